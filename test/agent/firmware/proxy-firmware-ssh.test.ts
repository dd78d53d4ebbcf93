/**
 * The proxy's firmware upgrade for real over SSH: a namespace "router" running Debian's sshd
 * (test/support/ssh-router.ts) with, in its mount namespace only, a boot id file over
 * /proc/sys/kernel/random/boot_id, an OpenWrt os-release and fake `sysupgrade` and `df` in
 * /usr/local/sbin. The fake sysupgrade records its arguments; when it is started to flash, the
 * test "reboots" the router: sshd goes away, the boot id and release change, sshd comes back.
 * The agent (RouterAgent, placement proxy) must wait for it and say Hello again with both.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FirmwareProgress_Step as Step } from '../../../agent/firmware/firmware-progress.js';
import { RouterAgent } from '../../../agent/router-agent.js';
import { SshHost } from '../../../core/host/ssh-host.js';
import { eventually } from '../../support/controller.js';
import { FakeController } from '../../support/fake-controller.js';
import { SshRouter } from '../../support/ssh-router.js';

const ID = 'proxy-fw:01';
const work = mkdtempSync(join(tmpdir(), 'wf-fw-ssh-'));
const tools = join(work, 'sbin');
const bootIdFile = join(work, 'boot_id');
const osRelease = join(work, 'os-release');
const release = (version: string, build: string) =>
  `NAME="OpenWrt"\nVERSION="${version}"\nID="openwrt"\nID_LIKE="lede openwrt"\nVERSION_ID="${version}"\nBUILD_ID="${build}"\nOPENWRT_BOARD="x86/64"\nOPENWRT_ARCH="x86_64"\n`;

mkdirSync(tools);
writeFileSync(
  join(tools, 'sysupgrade'),
  `#!/bin/sh\necho "$*" >> ${work}/sysupgrade.argv\n[ "$1" = -T ] || touch ${work}/flashing\nexit 0\n`,
  { mode: 0o755 },
);
writeFileSync(
  join(tools, 'df'),
  "#!/bin/sh\necho 'Filesystem 1K-blocks Used Available Use% Mounted on'\necho 'tmpfs 250000 1000 249000 1% /tmp'\n",
  { mode: 0o755 },
);
writeFileSync(bootIdFile, `${randomUUID()}\n`);
writeFileSync(osRelease, release('23.05.3', 'r23809-234f1a2efa'));

const router = new SshRouter({
  binds: [
    { source: bootIdFile, target: '/proc/sys/kernel/random/boot_id' },
    { source: osRelease, target: '/etc/os-release' },
    { source: tools, target: '/usr/local/sbin' },
  ],
});
const controller = new FakeController();
const image = randomBytes(2 * 1024 * 1024 + 123);
const sha256 = createHash('sha256').update(image).digest('hex');
const logs: string[] = [];
let agent: RouterAgent;

describe('proxy firmware upgrade over SSH', () => {
  beforeAll(async () => {
    await router.start();
    await controller.start();
    controller.firmwareImages.set(sha256, image);
    agent = new RouterAgent({
      host: new SshHost({
        host: router.addr.router,
        username: 'root',
        privateKey: router.clientKey,
        hostKeyFingerprint: router.hostKeyFingerprint,
        commandTimeoutMs: 4_000,
        backoff: { initialMs: 100, maxMs: 1_000 },
      }),
      controller: controller.address,
      placement: 'proxy',
      identity: ID,
      probe: false,
      reconnect: { jitterWindowMs: 200, initialDelayMs: 100, maxDelayMs: 500 },
      firmware: {
        imagePath: join(router.dir, 'wrtfleet-firmware.bin'),
        routerReturn: { pollMs: 300, maxPollMs: 1_000, readTimeoutMs: 2_000, timeoutMs: 60_000 },
      },
      log: (m) => logs.push(m),
    });
    agent.start();
    await eventually(async () => controller.connected(ID), 20_000, 'the first Hello');
  }, 60_000);

  afterAll(async () => {
    await agent?.stop();
    await controller.stop();
    await router.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it('streams the image over SSH, flashes, waits for the reboot and says Hello with the new boot id and release', async () => {
    const before = controller.hellos.find((h) => h.identity === ID)!.hello;
    expect(before.bootId).toBe(readFileSync(bootIdFile, 'utf8').trim());
    expect(before.facts!.openwrt!.release).toBe('23.05.3');
    controller.breakNextDownloadAfter = 512 * 1024;
    controller.send(ID, {
      $case: 'firmwareUpgrade',
      value: {
        upgradeId: 'up-ssh',
        sha256,
        sizeBytes: image.length,
        keepConfig: true,
        release: '24.10.0',
        revision: 'r28427-6df0e3d02a',
      },
    });
    await eventually(async () => existsSync(join(work, 'flashing')), 30_000, 'sysupgrade to flash');
    const imagePath = join(router.dir, 'wrtfleet-firmware.bin');
    expect(createHash('sha256').update(readFileSync(imagePath)).digest('hex')).toBe(sha256);
    expect(readFileSync(join(work, 'sysupgrade.argv'), 'utf8').trim().split('\n')).toEqual([
      `-T ${imagePath}`,
      imagePath,
    ]);
    expect(controller.firmwareRequests).toEqual([0, 512 * 1024]);
    const steps = [...new Set(controller.firmwareProgress(ID).map((p) => Step[p.step]))];
    expect(steps).toEqual(['STEP_CHECKING', 'STEP_TRANSFERRING', 'STEP_VERIFYING', 'STEP_TESTING', 'STEP_FLASHING']);

    // The reboot: the router goes away, comes back on another boot with the new release.
    await eventually(async () => !controller.connected(ID), 10_000, 'the proxy to close its stream');
    await router.stopSshd();
    await router.killSessions();
    const newBoot = randomUUID();
    writeFileSync(bootIdFile, `${newBoot}\n`);
    writeFileSync(osRelease, release('24.10.0', 'r28427-6df0e3d02a'));
    await new Promise((r) => setTimeout(r, 1_500));
    await router.startSshd();

    await eventually(
      async () => controller.hellos.filter((h) => h.identity === ID).length >= 2,
      40_000,
      'the Hello after the reboot',
    );
    const after = controller.hellos.filter((h) => h.identity === ID).at(-1)!.hello;
    expect(after.bootId).toBe(newBoot);
    expect(after.facts!.openwrt).toMatchObject({ release: '24.10.0', revision: 'r28427-6df0e3d02a' });
    expect(logs.join('\n')).toMatch(/the router went away/);
    expect(logs.join('\n')).toMatch(/the router is back after/);
  }, 120_000);
});
