/**
 * A simulated router's firmware upgrade against a real gRPC controller on loopback
 * (test/support/fake-controller.ts, which serves DownloadFirmware): the agent's own upgrader
 * downloads the image for real, the simulated router checks it as sysupgrade does, goes away
 * and comes back as its script says.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { writeFwtoolImage } from '../../../core/firmware/index.js';
import { FirmwareProgress_Step as Step } from '../../../agent/firmware/firmware-progress.js';
import { fixturesDir } from '../../../agent/sim/fixtures.js';
import { SimulatedRouter } from '../../../agent/sim/simulated-router.js';
import { startSimulatedFleet, stopFleet } from '../../../agent/sim/simulated-fleet.js';
import { firmwareScriptByRules } from '../../../agent/sim/simulated-firmware-script.js';
import type { SimulatedFirmwareScript } from '../../../agent/sim/simulated-firmware-script.js';
import type { FirmwareUpgrade } from '../../../proto/gen/wrtfleet/agent/v1/firmware.js';
import { eventually } from '../../support/controller.js';
import { FakeController } from '../../support/fake-controller.js';

const ROOT = join(fixturesDir(), 'routers/glinet-gl-mt6000-mt7986'); // 23.05.3, kernel 5.15
const SPEC = { flowOffload: { mode: 'software' } };

function image(supported: string[], extra: Record<string, unknown> = {}): Buffer {
  const payload = Buffer.alloc(700 * 1024, 7);
  return Buffer.from(
    writeFwtoolImage(payload, {
      metadata_version: '1.0',
      compat_version: '1.0',
      supported_devices: supported,
      version: {
        dist: 'OpenWrt',
        version: '24.10.0',
        revision: 'r28427-6df0e3d02a',
        target: 'mediatek/filogic',
        board: 'glinet_gl-mt6000',
      },
      ...extra,
    }),
  );
}

const good = image(['glinet,gl-mt6000']);
const otherBoard = image(['xiaomi,mi-router-4a-gigabit']);
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('simulated router firmware upgrade', () => {
  const controller = new FakeController();
  let router: SimulatedRouter | undefined;
  let serial = 0;
  let id = '';

  beforeAll(async () => {
    await controller.start();
    for (const b of [good, otherBoard]) controller.firmwareImages.set(sha(b), b);
  });
  afterEach(async () => {
    await router?.stop();
    router = undefined;
  });
  afterAll(() => controller.stop());

  async function start(script: SimulatedFirmwareScript = {}): Promise<SimulatedRouter> {
    id = `sim.glinet-gl-mt6000-mt7986:${String(++serial).padStart(3, '0')}`;
    router = new SimulatedRouter({
      root: ROOT,
      controller: controller.address,
      identity: id,
      name: `fw-${serial}`,
      reconnect: { jitterWindowMs: 100, initialDelayMs: 50, maxDelayMs: 300 },
      firmware: { rebootMs: 300, script: () => script },
      log: process.env.WF_DEBUG ? (m) => console.log(m) : undefined,
    });
    router.start();
    await eventually(async () => controller.connected(id), 10_000, 'the first Hello');
    return router;
  }

  const upgrade = (b: Buffer, extra: Partial<FirmwareUpgrade> = {}): FirmwareUpgrade => ({
    upgradeId: `up-${serial}`,
    sha256: sha(b),
    sizeBytes: b.length,
    keepConfig: true,
    release: '24.10.0',
    revision: 'r28427-6df0e3d02a',
    ...extra,
  });
  const hellos = () => controller.hellos.filter((h) => h.identity === id).map((h) => h.hello);
  const progress = () => controller.firmwareProgress(id);
  const steps = () => [...new Set(progress().map((p) => `${Step[p.step]}${p.failed ? ' failed' : ''}`))];
  const ended = () => eventually(async () => progress().some((p) => p.failed), 10_000, 'a failed step');

  it('downloads, checks, flashes and comes back with a new boot id, release, kernel and its plan re-applied', async () => {
    const r = await start();
    controller.send(id, {
      $case: 'desiredState',
      value: { profile: 'p', revision: 1, spec: SPEC as never, confirmWindowSeconds: 0, rolloutId: '' },
    });
    await eventually(async () => controller.results(id).find((x) => x.revision === 1), 10_000, 'the apply');
    const before = hellos()[0]!;
    const served = controller.firmwareBytesServed;
    controller.breakNextDownloadAfter = 256 * 1024;
    controller.send(id, { $case: 'firmwareUpgrade', value: upgrade(good) });
    controller.send(id, { $case: 'firmwareUpgrade', value: upgrade(good) }); // a repeat: ignored
    await eventually(async () => hellos().length === 2, 15_000, 'the Hello after the flash');
    expect(steps()).toEqual(['STEP_CHECKING', 'STEP_TRANSFERRING', 'STEP_VERIFYING', 'STEP_TESTING', 'STEP_FLASHING']);
    expect(progress().filter((p) => p.step === Step.STEP_FLASHING)).toHaveLength(1);
    // Broken after 256 KiB, resumed from there: the image was served about once, not twice.
    expect(controller.firmwareRequests.slice(-2)).toEqual([0, 256 * 1024]);
    expect(controller.firmwareBytesServed - served).toBe(good.length);
    const after = hellos()[1]!;
    expect(after.bootId).toMatch(/^[0-9a-f-]{36}$/);
    expect(after.bootId).not.toBe(before.bootId);
    expect(before.facts!.openwrt!.release).toBe('23.05.3');
    expect(after.facts!.openwrt).toMatchObject({ release: '24.10.0', revision: 'r28427-6df0e3d02a' });
    expect(after.facts!.kernel).toMatch(/^6\.6\./);
    expect(before.capabilities!.predicted!.tcx!.value).toBe(false);
    expect(after.capabilities!.predicted!.tcx!.value).toBe(true);
    expect(after.applied).toMatchObject({ profile: 'p', revision: 1 });
    // The reboot lost the datapath; the agent's reboot check put the plan back and said so.
    await eventually(
      async () =>
        controller.results(id).find((x) => (x.evidence as { trigger?: string } | undefined)?.trigger === 'reboot'),
      10_000,
      'the re-apply after the reboot',
    );
    expect(r.flashes).toMatchObject([{ release: '24.10.0', keepConfig: true, ending: 'returns' }]);
  });

  it("refuses in sysupgrade -T an image that does not list the router's board", async () => {
    await start();
    controller.send(id, { $case: 'firmwareUpgrade', value: upgrade(otherBoard) });
    await ended();
    expect(steps()).toEqual([
      'STEP_CHECKING',
      'STEP_TRANSFERRING',
      'STEP_VERIFYING',
      'STEP_TESTING',
      'STEP_TESTING failed',
    ]);
    expect(progress().at(-1)!.detail).toMatch(/glinet,gl-mt6000/);
  });

  it('refuses an image whose SHA-256 is not the announced one', async () => {
    await start();
    // The controller serves these bytes under another hash: what arrives is not what was announced.
    const announced = '0'.repeat(64);
    controller.firmwareImages.set(announced, good);
    controller.send(id, { $case: 'firmwareUpgrade', value: { ...upgrade(good), sha256: announced } });
    await ended();
    expect(progress().at(-1)).toMatchObject({ step: Step.STEP_VERIFYING, failed: true });
    expect(progress().at(-1)!.detail).toContain('SHA-256 mismatch');
  });

  for (const failStep of ['checking', 'transferring', 'verifying', 'testing'] as const)
    it(`fails the ${failStep} step with the scripted words`, async () => {
      await start({ failStep, failDetail: `scripted ${failStep} trouble` });
      controller.send(id, { $case: 'firmwareUpgrade', value: upgrade(good) });
      await ended();
      expect(progress().at(-1)).toMatchObject({
        step: Step[`STEP_${failStep.toUpperCase()}` as keyof typeof Step],
        failed: true,
      });
      expect(progress().at(-1)!.detail).toContain(`scripted ${failStep} trouble`);
      expect(router!.flashes).toEqual([]);
    });

  it('never comes back when so scripted', async () => {
    const r = await start({ ending: 'never-returns' });
    controller.send(id, { $case: 'firmwareUpgrade', value: upgrade(good) });
    await eventually(async () => r.flashes.length === 1, 10_000, 'the flash');
    await new Promise((res) => setTimeout(res, 1_500));
    expect(hellos()).toHaveLength(1);
    expect(controller.connected(id)).toBe(false);
  });

  it('comes back on the old release when the bootloader fell back', async () => {
    await start({ ending: 'old-release' });
    controller.send(id, { $case: 'firmwareUpgrade', value: upgrade(good) });
    await eventually(async () => hellos().length === 2, 15_000, 'the Hello after the flash');
    const [before, after] = hellos();
    expect(after!.bootId).not.toBe(before!.bootId);
    expect(after!.facts!.openwrt!.release).toBe('23.05.3');
    expect(after!.facts!.kernel).toBe(before!.facts!.kernel);
  });

  it('comes back with nothing applied when the configuration was not kept', async () => {
    await start();
    controller.send(id, {
      $case: 'desiredState',
      value: { profile: 'p', revision: 1, spec: SPEC as never, confirmWindowSeconds: 0, rolloutId: '' },
    });
    await eventually(async () => controller.results(id).find((x) => x.revision === 1), 10_000, 'the apply');
    controller.send(id, { $case: 'firmwareUpgrade', value: upgrade(good, { keepConfig: false }) });
    await eventually(async () => hellos().length === 2, 15_000, 'the Hello after the flash');
    const after = hellos()[1]!;
    expect(after.facts!.openwrt!.release).toBe('24.10.0');
    expect(after.applied).toBeUndefined();
    expect(router!.flashes).toMatchObject([{ keepConfig: false, ending: 'config-reset' }]);
  });

  it('takes its scripts from the fleet, by router name', async () => {
    const fleet = await startSimulatedFleet({
      controller: controller.address,
      fixtureRoots: [ROOT],
      perModel: 2,
      firstSerial: 901,
      reconnect: { jitterWindowMs: 100, initialDelayMs: 50, maxDelayMs: 300 },
      firmware: { rebootMs: 300 },
      firmwareScript: firmwareScriptByRules([{ match: /-902$/, ending: 'never-returns' }]),
    });
    try {
      const ids = fleet.map((r) => r.identity);
      await eventually(async () => ids.every((i) => controller.connected(i)), 10_000, 'the fleet');
      for (const i of ids)
        controller.send(i, { $case: 'firmwareUpgrade', value: { ...upgrade(good), upgradeId: 'up-fleet' } });
      await eventually(async () => fleet.every((r) => r.flashes.length === 1), 10_000, 'both flashes');
      const [kept, lost] = fleet;
      await eventually(
        async () => controller.hellos.filter((h) => h.identity === kept!.identity).length === 2,
        10_000,
        'the returning router',
      );
      expect(lost!.flashes[0]!.ending).toBe('never-returns');
      expect(controller.hellos.filter((h) => h.identity === lost!.identity)).toHaveLength(1);
    } finally {
      await stopFleet(fleet);
    }
  });
});
