/**
 * One firmware upgrade end to end against a real reboot: a controller on the host, the proxy
 * agent (RouterAgent, placement proxy, its own pinned SshHost, enrolled over mTLS) driving the
 * mipsel guest, an image uploaded through the REST API and a firmware rollout for the guest.
 *
 * Real: the protocol and the controller's confirmation (a Hello after a NEW boot id carrying the
 * image's release and revision), the image's transfer over the guest's SSH (`cat >` on an exec
 * channel to dropbear), sha256sum on the guest, the guest's kernel rebooting (QEMU resets the
 * machine; the kernel boots again with a new boot id) and the proxy finding it back over SSH.
 * Simulated: the flash. The guest is no OpenWrt; lab/firmware-kit.ts gives it OpenWrt's release
 * files and a `sysupgrade` whose -T checks the image's fwtool metadata for the board and whose
 * flash switches the release files to the image's build, kept on a disk that survives the
 * reboot (lab/guest-flash.ts). A second upgrade's flash "falls back" (the guest reboots on the
 * release it had): the controller must say `failed`, "came back on".
 */
import { hostname } from 'node:os';
import { readFileSync } from 'node:fs';
import { SshHost } from '../../core/host/ssh-host.js';
import { RouterAgent } from '../../agent/router-agent.js';
import { enrollThroughController } from '../../server/pki/local-enrollment.js';
import { startLabController, type LabController } from '../agent-on-guest.js';
import {
  FALLBACK_MARKER,
  installFirmwareKit,
  LAB_BOARD,
  labFirmwareImage,
  labImageFileName,
  removeFirmwareKit,
  type LabRelease,
} from '../firmware-kit.js';
import type { Guest } from '../guest.js';
import { resultOf, type CheckResult, type CheckStep, type LabCheck } from './lab-check.js';

/** Builds shaped like OpenWrt's: installed (A), upgraded to (B), and the one that falls back (C). */
const RELEASE_A: LabRelease = { release: '24.10.0', revision: 'r28427-6df0e3d02a' };
const RELEASE_B: LabRelease = { release: '24.10.1', revision: 'r28597-0425664679' };
const RELEASE_C: LabRelease = { release: '24.10.2', revision: 'r28739-d9340319c6' };
/** An image the size of a small router's (ramips sysupgrade images are 6-10 MB). */
const IMAGE_BYTES = 8 * 2 ** 20;
/** The agent steps of an upgrade, as the controller audits them, in order. */
const STEP_EVENTS = ['checking', 'transferring', 'verifying', 'testing', 'flashing'].map((s) => `firmware.${s}`);
const UPGRADE_TIMEOUT_MS = 15 * 60_000;

const step = (name: string, ok: boolean, detail: string): CheckStep => ({ name, ok, detail });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface RouterView {
  id: string;
  status: string;
  /** The list's summary of the release (the router's own view carries the facts too). */
  openwrt: { release: string } | null;
  facts: { boardName: string | null; openwrt: { release: string; revision: string | null } | null } | null;
}
interface TargetView {
  state: string;
  error: string | null;
  firmwareStep: string | null;
}
interface AuditEvent {
  at: string;
  action: string;
  after: { rollout?: string; bytesDone?: number } | null;
}

/** The proxy's own connection to the guest, as a proxy config would give it: key and pinned host key. */
function proxySshHost(guest: Guest): SshHost {
  return new SshHost({
    host: guest.sshHost,
    port: guest.sshPort,
    username: 'root',
    privateKey: readFileSync(guest.privateKeyPath),
    hostKeyFingerprint: guest.hostKeyFingerprint,
    label: `proxy -> lab ${guest.name}`,
    // The emulated 24Kc answers many times slower than a router (lab/guest.ts).
    connectTimeoutMs: 30_000,
    commandTimeoutMs: 60_000,
    backoff: { initialMs: 200, maxMs: 2_000 },
  });
}

async function bootState(guest: Guest): Promise<{ bootId: string; uptimeS: number; readAt: number }> {
  // The lab's own connection went down with the reboot: dial afresh.
  await guest.host.disconnect();
  const r = await guest.run(['cat', '/proc/sys/kernel/random/boot_id', '/proc/uptime']);
  const [bootId, uptime] = r.stdout.trim().split('\n');
  return { bootId: bootId!.trim(), uptimeS: Number(uptime!.split(' ')[0]), readAt: Date.now() };
}

async function uploadImage(lab: LabController, build: LabRelease): Promise<string> {
  const res = await fetch(
    `${lab.controller.httpUrl}/v1/firmware/images?fileName=${encodeURIComponent(labImageFileName(build))}`,
    {
      method: 'POST',
      headers: { authorization: `Bearer ${lab.apiToken}`, 'content-type': 'application/octet-stream' },
      body: new Blob([Buffer.from(labFirmwareImage(build, IMAGE_BYTES))]),
    },
  );
  const body = (await res.json()) as { sha256?: string; message?: string };
  if (res.status !== 201 || !body.sha256)
    throw new Error(`uploading ${build.release}: ${res.status} ${JSON.stringify(body)}`);
  return body.sha256;
}

interface UpgradeOutcome {
  target: TargetView;
  /** firmware.* audit events of this rollout, oldest first. */
  events: AuditEvent[];
  before: { bootId: string };
  after: { bootId: string; uptimeS: number; readAt: number };
  router: RouterView;
  /** Every firmwareStep the target showed while polled. */
  stepsSeen: string[];
}

/** One firmware rollout for the guest, to its end (any state but sent/queued). */
async function upgradeTo(guest: Guest, lab: LabController, routerId: string, sha256: string): Promise<UpgradeOutcome> {
  const before = await bootState(guest);
  const created = await lab.api<{ id: string; total: number; leftOut: number; summary?: unknown }>('/v1/rollouts', {
    method: 'POST',
    body: { firmware: { image: sha256 }, selector: { ids: [routerId] } },
  });
  if (created.status !== 201 || created.body.leftOut !== 0)
    throw new Error(
      `the firmware rollout was not created for the guest: ${created.status} ${JSON.stringify(created.body)}`,
    );
  const rolloutId = created.body.id;
  const stepsSeen: string[] = [];
  const deadline = Date.now() + UPGRADE_TIMEOUT_MS;
  let target: TargetView | undefined;
  for (;;) {
    target = (await lab.api<{ items: TargetView[] }>(`/v1/rollouts/${rolloutId}/targets`)).body.items[0];
    if (target?.firmwareStep && stepsSeen.at(-1) !== target.firmwareStep) stepsSeen.push(target.firmwareStep);
    if (target && !['sent', 'queued', 'pending'].includes(target.state)) break;
    if (Date.now() > deadline)
      throw new Error(`the upgrade did not end within ${UPGRADE_TIMEOUT_MS / 60_000} min: ${JSON.stringify(target)}`);
    await sleep(250);
  }
  const after = await bootState(guest);
  const audit = await lab.api<{ items: AuditEvent[] }>(`/v1/audit?router=${routerId}&limit=1000`);
  const events = audit.body.items.filter((e) => e.action.startsWith('firmware.') && e.after?.rollout === rolloutId);
  const router = (await lab.api<RouterView>(`/v1/routers/${routerId}`)).body;
  return { target, events, before, after, router, stepsSeen };
}

const eventAt = (o: UpgradeOutcome, action: string) => {
  const e = o.events.find((x) => x.action === action);
  return e ? Date.parse(e.at) : NaN;
};

/** Assertions common to both upgrades: the steps in order, a real reboot, a fresh Hello. */
function stepsOf(o: UpgradeOutcome, ending: string, label: string): CheckStep[] {
  const actions = o.events.map((e) => e.action);
  const expected = [...STEP_EVENTS, ending];
  const sinceFlash = (o.after.readAt - eventAt(o, 'firmware.flashing')) / 1000;
  return [
    step(
      `${label}: steps`,
      JSON.stringify(actions) === JSON.stringify(expected),
      `audited ${actions.map((a) => a.replace('firmware.', '')).join(' > ')} (polled: ${o.stepsSeen.join(' > ')})`,
    ),
    step(
      `${label}: rebooted`,
      o.after.bootId !== o.before.bootId && o.after.uptimeS < sinceFlash,
      `boot id ${o.before.bootId.slice(0, 8)} -> ${o.after.bootId.slice(0, 8)}, up ${o.after.uptimeS.toFixed(0)} s of the ${sinceFlash.toFixed(0)} s since FLASHING`,
    ),
  ];
}

async function runFirmwareUpgrade(guest: Guest): Promise<CheckResult> {
  const steps: CheckStep[] = [];
  const numbers: Record<string, number> = {};
  await installFirmwareKit(guest, RELEASE_A);
  const lab = await startLabController(guest);
  const proxyHost = proxySshHost(guest);
  const agentLog: string[] = [];
  let agent: RouterAgent | undefined;
  try {
    const identity = `lab-${guest.name}-proxy`;
    const { controller } = lab;
    const credentials = await enrollThroughController(
      controller.security,
      controller.grpcAddress,
      { identity, name: identity },
      'lab',
    );
    agent = new RouterAgent({
      host: proxyHost,
      controller: controller.grpcAddress,
      credentials: credentials.linkCredentials,
      placement: 'proxy',
      identity,
      name: identity,
      proxyHost: hostname(),
      // The guest is back in about 20 s: poll for it more often than for a router's minutes-long flash.
      firmware: { routerReturn: { pollMs: 2_000, maxPollMs: 4_000 } },
      log: (m) => void agentLog.push(`${new Date().toISOString()} ${m}`),
    });
    const note = (m: string) => void agentLog.push(`${new Date().toISOString()} ${m}`);
    agent.link.on('error', (err: Error) => note(`link error: ${err.message}`));
    agent.link.on('disconnected', (d: { details: string }) => note(`link down: ${d.details}`));
    agent.link.on('welcome', () => note('welcome'));
    agent.start();
    const online = async (release: string) => {
      const items = (await lab.api<{ items: RouterView[] }>('/v1/routers')).body.items;
      const found = items.find((r) => r.status === 'online' && r.openwrt?.release === release);
      return found && (await lab.api<RouterView>(`/v1/routers/${found.id}`)).body;
    };
    let router: RouterView | undefined;
    for (const deadline = Date.now() + 180_000; !router && Date.now() < deadline; await sleep(500))
      router = await online(RELEASE_A.release);
    if (!router)
      throw new Error(
        `the proxy's Hello with ${RELEASE_A.release} never came; sessions ${JSON.stringify(lab.sessions())}, routers ${JSON.stringify((await lab.api('/v1/routers')).body).slice(0, 1500)}`,
      );
    steps.push(
      step(
        'installed',
        router.facts?.boardName === LAB_BOARD && router.facts.openwrt?.revision === RELEASE_A.revision,
        `the proxy says Hello: board ${router.facts?.boardName}, OpenWrt ${RELEASE_A.release} (${router.facts?.openwrt?.revision})`,
      ),
    );

    // The upgrade to B: upgraded on the Hello after the reboot.
    const up = await upgradeTo(guest, lab, router.id, await uploadImage(lab, RELEASE_B));
    steps.push(...stepsOf(up, 'firmware.upgraded', 'upgrade'));
    const release = up.router.facts?.openwrt;
    steps.push(
      step(
        'upgrade: upgraded',
        up.target.state === 'upgraded' &&
          release?.release === RELEASE_B.release &&
          release.revision === RELEASE_B.revision,
        `target ${up.target.state}${up.target.error ? ` (${up.target.error})` : ''}; the API says OpenWrt ${release?.release} (${release?.revision})`,
      ),
    );
    numbers.imageBytes = IMAGE_BYTES;
    numbers.transferMs = eventAt(up, 'firmware.verifying') - eventAt(up, 'firmware.transferring');
    numbers.transferMbitPerS = Math.round(((IMAGE_BYTES * 8) / (numbers.transferMs * 1000)) * 10) / 10;
    numbers.sha256sumMs = eventAt(up, 'firmware.testing') - eventAt(up, 'firmware.verifying');
    numbers.flashingToUpgradedMs = eventAt(up, 'firmware.upgraded') - eventAt(up, 'firmware.flashing');
    // The new kernel started uptime seconds before it was read; the Hello is the decision's time.
    numbers.rebootToHelloMs = Math.round(
      eventAt(up, 'firmware.upgraded') - (up.after.readAt - up.after.uptimeS * 1000),
    );

    // The second upgrade's flash falls back: the guest reboots on B, the controller says failed.
    await guest.run(['touch', FALLBACK_MARKER]);
    const back = await upgradeTo(guest, lab, router.id, await uploadImage(lab, RELEASE_C));
    steps.push(...stepsOf(back, 'firmware.failed', 'fallback'));
    steps.push(
      step(
        'fallback: failed',
        back.target.state === 'failed' &&
          /came back on/.test(back.target.error ?? '') &&
          back.router.facts?.openwrt?.release === RELEASE_B.release,
        `target ${back.target.state}: ${back.target.error}`,
      ),
    );
    numbers.fallbackFlashingToFailedMs = eventAt(back, 'firmware.failed') - eventAt(back, 'firmware.flashing');
    // The proxy's own account of its wait (router-return.ts), to tell its polls from the link's
    // reconnect in the reboot-to-Hello time: "the router is back after N s", once per upgrade.
    const backAfter = agentLog.map((l) => /the router is back after (\d+) s/.exec(l)?.[1]).filter(Boolean);
    numbers.proxySawRouterBackS = Number(backAfter[0] ?? NaN);
    numbers.fallbackProxySawRouterBackS = Number(backAfter[1] ?? NaN);
    const result = resultOf(steps, numbers);
    return result.ok
      ? result
      : { ...result, detail: `${result.detail}; agent log: ${agentLog.slice(-12).join(' | ')}` };
  } catch (err) {
    // What the proxy said is most of the diagnosis of an upgrade that never ended.
    throw new Error(`${(err as Error).message}\n--- proxy agent log ---\n${agentLog.slice(-30).join('\n')}`, {
      cause: err,
    });
  } finally {
    await agent?.stop().catch(() => undefined);
    await proxyHost.close().catch(() => undefined);
    await lab.stop();
    await removeFirmwareKit(guest).catch(() => undefined);
  }
}

export const firmwareUpgradeCheck: LabCheck = {
  name: 'firmware-upgrade',
  // virtio_blk (the flash that survives the reboot) is in the mipsel kernel only.
  arches: ['mipsel'],
  run: runFirmwareUpgrade,
};
