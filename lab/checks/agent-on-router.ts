/**
 * The packaged agent (agent.cjs, `npm run agent:bundle`) running ON the mipsel guest under
 * Debian's Node.js 18, as it would on an OpenWrt 23.05 router with the feed's node 18: it
 * enrolls with a one-time token against a controller on the host over mutual TLS, says Hello,
 * reports the router's facts (compared with the proxy's view over SSH), gets a profile with the four rewrites, attaches them to the WAN (eth1) with cls_bpf, and
 * reports telemetry. It runs with the node flags and environment of the procd init script, so
 * the start-up time and idle RSS measured here are those of the packaged agent.
 *
 * The guest reaches the host at 10.0.2.2 (QEMU user networking on eth2), which QEMU turns into
 * 127.0.0.1 of ITS network namespace: a socat there carries that port into this process's
 * namespace, where the controller listens.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { isDeepStrictEqual } from 'node:util';
import { pino } from 'pino';
import { factsSummary } from '../../core/capabilities.js';
import { collectFacts, type RouterFacts } from '../../core/facts/index.js';
import { bundleAgent } from '../../agent/packaging/build.js';
import { REPO_ROOT } from '../../agent/packaging/esbuild-plugins.js';
import { startController, type Controller } from '../../server/controller.js';
import type { Guest } from '../guest.js';
import { inNamespace } from '../topology.js';
import { resultOf, type CheckResult, type CheckStep, type LabCheck } from './lab-check.js';

/** Where the bundle lives on the router, as the init script installs it. */
const GUEST_AGENT_HOME = '/usr/lib/wrtfleet';
const WORK = '/tmp/wf';
/** The oldest Node.js the bundle targets: OpenWrt 23.05's feed (node 18.20), the last with mipsel. */
export const MIN_NODE_MAJOR = 18;
/** The address the guest dials: the host as QEMU user networking presents it. */
const HOST_FROM_GUEST = '10.0.2.2';

const step = (name: string, ok: boolean, detail: string): CheckStep => ({ name, ok, detail });

/**
 * Builds the bundle (once per process) and copies what a router gets onto the guest:
 * agent.cjs, the BPF objects, and the static wf-tcx for the guest's CPU as bpf/build/wf-tcx
 * (where the on-router agent looks for it next to agent.cjs).
 */
let bundled: Promise<string> | undefined;
async function installAgentBundle(guest: Guest): Promise<{ bytes: number }> {
  bundled ??= bundleAgent().then((b) => join(b.bundle, '..'));
  const dist = await bundled;
  const files: [string, Buffer, number][] = [
    [`${GUEST_AGENT_HOME}/agent.cjs`, readFileSync(join(dist, 'agent.cjs')), 0o755],
  ];
  for (const endian of ['bpfel', 'bpfeb'])
    for (const f of readdirSync(join(dist, 'bpf/build', endian)))
      files.push([
        `${GUEST_AGENT_HOME}/bpf/build/${endian}/${f}`,
        readFileSync(join(dist, 'bpf/build', endian, f)),
        0o644,
      ]);
  const helper = join(dist, 'bpf/build', guest.arch, 'wf-tcx.gz');
  if (!existsSync(helper)) throw new Error(`${helper} is missing: npm run bpf:build cross-builds it`);
  files.push([`${GUEST_AGENT_HOME}/bpf/build/wf-tcx`, gunzipSync(readFileSync(helper)), 0o755]);
  await guest.run(['mkdir', '-p', `${GUEST_AGENT_HOME}/bpf/build/bpfel`, `${GUEST_AGENT_HOME}/bpf/build/bpfeb`, WORK]);
  for (const [path, data, mode] of files) await guest.host.writeFile(path, data, mode);
  return { bytes: files.reduce((n, [, d]) => n + d.length, 0) };
}

/** The node flags and environment of the procd init script, read from it so the lab runs what ships. */
export function initScriptNodeSettings(): { flags: string[]; env: string[] } {
  const script = readFileSync(join(REPO_ROOT, 'agent/packaging/openwrt/wrtfleet-agent.init'), 'utf8');
  const value = (name: string) => (new RegExp(`^${name}="([^"]*)"`, 'm').exec(script)?.[1] ?? '').split(/\s+/);
  return { flags: value('AGENT_NODE_FLAGS').filter(Boolean), env: value('AGENT_ENV').filter(Boolean) };
}

export interface LabController {
  controller: Controller;
  /** Port the guest dials at 10.0.2.2 (the controller's own port, relayed). */
  grpcPort: number;
  api<T = unknown>(path: string, init?: { method?: string; body?: unknown }): Promise<{ status: number; body: T }>;
  stop(): Promise<void>;
}

/**
 * A controller for the guest's agent: embedded PGlite, mutual TLS with 10.0.2.2 in its server
 * certificate, heartbeats every 10 s with a generous miss allowance (an emulated 24Kc shared
 * with other guests answers late), and the relay from the guest's QEMU namespace.
 */
export async function startLabController(guest: Guest): Promise<LabController> {
  const dataDir = mkdtempSync(join(tmpdir(), 'wflab-controller-'));
  const controller = await startController(
    {
      dataDir,
      httpHost: '127.0.0.1',
      httpPort: 0,
      grpcHost: '127.0.0.1',
      grpcPort: 0,
      heartbeatIntervalSeconds: 10,
      missedHeartbeatsBeforeOffline: 12,
      autoRegister: true,
      logLevel: 'error',
      security: { insecureAgents: false, grpcTlsNames: [HOST_FROM_GUEST] },
      console: { buildWhenMissing: false },
      redisPrefix: `wflab-${guest.arch}-${process.pid}`,
    },
    pino({ level: 'error' }),
  );
  const grpcPort = Number(controller.grpcAddress.split(':').pop());
  const relay: ChildProcess = spawn(
    inNamespace(guest.namespaces.qemu, ['socat', `TCP-LISTEN:${grpcPort},bind=127.0.0.1,reuseaddr,fork`])[0]!,
    [
      ...inNamespace(guest.namespaces.qemu, ['socat', `TCP-LISTEN:${grpcPort},bind=127.0.0.1,reuseaddr,fork`]).slice(1),
      `EXEC:nsenter --net=/proc/${process.pid}/ns/net -- socat STDIO TCP\\:127.0.0.1\\:${grpcPort}`,
    ],
    { stdio: 'ignore' },
  );
  const { secret } = await controller.tokens.create({ name: 'lab', owner: 'lab', scopes: ['admin'], createdBy: 'lab' });
  const api = async <T>(path: string, init: { method?: string; body?: unknown } = {}) => {
    const res = await fetch(`${controller.httpUrl}${path}`, {
      method: init.method ?? 'GET',
      headers: { authorization: `Bearer ${secret}`, ...(init.body ? { 'content-type': 'application/json' } : {}) },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    return { status: res.status, body: (await res.json()) as T };
  };
  return {
    controller,
    grpcPort,
    api,
    async stop() {
      relay.kill('SIGTERM');
      await controller.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function waitFor<T>(
  what: string,
  timeoutMs: number,
  check: () => Promise<T | undefined> | T | undefined,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${Math.round(timeoutMs / 1000)} s waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Starts the agent in the background on the guest as the init script would, and returns the host time it was started. */
async function startAgent(guest: Guest, args: string[]): Promise<number> {
  const { flags, env } = initScriptNodeSettings();
  const script = [
    `cd ${WORK}`,
    `export ${env.join(' ')} WRTFLEET_HOME=${GUEST_AGENT_HOME}`,
    `exec node ${flags.join(' ')} ${GUEST_AGENT_HOME}/agent.cjs run --placement on_router ${args.join(' ')}`,
  ].join('\n');
  await guest.host.writeFile(`${WORK}/run.sh`, script, 0o644);
  const started = Date.now();
  const r = await guest.run([
    'sh',
    '-c',
    `(sh ${WORK}/run.sh >> ${WORK}/agent.log 2>&1 & echo $! > ${WORK}/agent.pid) </dev/null`,
  ]);
  if (r.code !== 0) throw new Error(`could not start the agent: ${r.stderr}`);
  return started;
}

async function stopAgent(guest: Guest): Promise<void> {
  await guest.run(['sh', '-c', `kill $(cat ${WORK}/agent.pid) 2>/dev/null; sleep 2; true`]);
}

const agentLog = async (guest: Guest) =>
  ((await guest.host.readFile(`${WORK}/agent.log`)) ?? '').trim().split('\n').slice(-8).join(' | ');

interface RouterView {
  id: string;
  identity: string;
  status: string;
  datapath: string;
  facts: RouterFacts | null;
  lastApplyStatus: string | null;
  appliedRevision: { revision: number } | number | null;
  liveState: {
    telemetry?: {
      programs?: { program: string; packetsSeen?: number | string; packetsRewritten?: number | string }[];
      agentRssBytes?: number | string;
    };
  } | null;
}

/** The rewrites on the WAN, eBPF required, a confirm window longer than an emulated apply. */
export const LAB_PROFILE_SPEC = {
  l3Rewrite: { ttl: { value: 64 }, ipid: true, tcpts: true, tcpwin: { value: 65535 }, ebpf: 'on' },
  commitConfirm: { windowSeconds: 900 },
} as const;

async function runOnRouter(guest: Guest): Promise<CheckResult> {
  const steps: CheckStep[] = [];
  const numbers: Record<string, number> = {};
  const node = await guest.run(['node', '--version']);
  const major = Number(/^v(\d+)/.exec(node.stdout.trim())?.[1]);
  steps.push(
    step('node', major >= MIN_NODE_MAJOR, `guest node ${node.stdout.trim()} (bundle targets >= ${MIN_NODE_MAJOR})`),
  );
  const installed = await installAgentBundle(guest);
  numbers.bundleBytes = installed.bytes;
  const lab = await startLabController(guest);
  try {
    const sessions = () => [...lab.controller.gateway.sessions.values()];
    const minted = await lab.api<{ token: string; caFingerprint: string }>('/v1/enrollment-tokens', {
      method: 'POST',
      body: { routerName: `lab-${guest.arch}` },
    });
    await guest.host.writeFile(`${WORK}/token`, minted.body.token, 0o600);
    await guest.run(['rm', '-rf', `${WORK}/creds`, `${WORK}/state.json`, `${WORK}/agent.log`]);
    const common = [
      '--controller', `${HOST_FROM_GUEST}:${lab.grpcPort}`,
      '--name', `lab-${guest.arch}`,
      '--state-file', `${WORK}/state.json`,
      '--pin-root', '/sys/fs/bpf/wrtfleet',
      '--credentials-dir', `${WORK}/creds`,
    ]; // prettier-ignore
    // First start: enrollment (key pair, CSR, Enroll) before the Hello.
    const t0 = await startAgent(guest, [
      ...common,
      '--enroll-token-file',
      `${WORK}/token`,
      '--ca-fingerprint',
      minted.body.caFingerprint,
    ]);
    const first = await waitFor('the first Hello', 900_000, async () => sessions()[0]).catch(async (e: Error) => {
      throw new Error(`${e.message}; agent log: ${await agentLog(guest)}`);
    });
    numbers.enrollToHelloMs = Date.now() - t0;
    steps.push(
      step(
        'enrolled',
        /enrolled as/.test(await agentLog(guest)),
        `enrolled as ${first.identity} over mTLS, Hello after ${(numbers.enrollToHelloMs / 1000).toFixed(0)} s`,
      ),
    );
    // Second start, with the saved certificate: what every boot of the router costs.
    await stopAgent(guest);
    await waitFor('the stream to close', 120_000, () => (sessions().length === 0 ? true : undefined));
    const t1 = await startAgent(guest, common);
    await waitFor('the Hello after a restart', 900_000, () => sessions()[0]);
    numbers.startToHelloMs = Date.now() - t1;
    steps.push(
      step(
        'restart',
        true,
        `restart with saved credentials: Hello after ${(numbers.startToHelloMs / 1000).toFixed(0)} s`,
      ),
    );

    const routerId = (await lab.api<{ items: RouterView[] }>('/v1/routers')).body.items[0]!.id;
    // What the agent learned on the router, as the controller stored it from the Hello, must
    // read as the proxy's view over SSH does (the facts check tests that view against the guest).
    const reported = (await lab.api<RouterView>(`/v1/routers/${routerId}`)).body.facts;
    const overSsh = await collectFacts(guest.host);
    const same = reported != null && isDeepStrictEqual(factsSummary(reported), factsSummary(overSsh));
    steps.push(
      step(
        'facts',
        same,
        same
          ? `the agent reported ${reported.arch} ${reported.endian}-endian, ${reported.cpu.model}, kernel ${reported.kernel}: the proxy's view over SSH`
          : `reported ${JSON.stringify(reported).slice(0, 300)}; over SSH ${JSON.stringify(factsSummary(overSsh)).slice(0, 300)}`,
      ),
    );
    const saved = await lab.api('/v1/profiles/lab-wan', { method: 'PUT', body: { spec: LAB_PROFILE_SPEC } });
    steps.push(
      step('profile', saved.status === 201 || saved.status === 200, `profile lab-wan saved (${saved.status})`),
    );
    const preview = await lab.api<{
      items: {
        plan: {
          satisfiable: boolean;
          datapath: { mode: string; attach: string; bpfObject: string };
          offload: { mode: string };
        };
      }[];
    }>('/v1/plan-preview', { method: 'POST', body: { profile: 'lab-wan', selector: { ids: [routerId] } } });
    const plan = preview.body.items[0]?.plan;
    steps.push(
      step(
        'plan',
        plan?.satisfiable === true &&
          plan.datapath.mode === 'ebpf' &&
          plan.datapath.attach === 'cls_bpf' &&
          plan.datapath.bpfObject === 'bpfel',
        `plan: ${plan?.datapath.mode}/${plan?.datapath.attach}/${plan?.datapath.bpfObject}, offload ${plan?.offload.mode} (not OpenWrt: no uci)`,
      ),
    );
    const applyStarted = Date.now();
    await lab.api('/v1/rollouts', { method: 'POST', body: { profile: 'lab-wan', selector: { ids: [routerId] } } });
    const applied = await waitFor('the apply result', 900_000, async () => {
      const r = (await lab.api<RouterView>(`/v1/routers/${routerId}`)).body;
      return r.lastApplyStatus && r.lastApplyStatus !== 'pending' ? r : undefined;
    });
    numbers.applyMs = Date.now() - applyStarted;
    const tc = await guest.run(['tc', 'filter', 'show', 'dev', 'eth1', 'egress']);
    steps.push(
      step(
        'applied',
        applied.lastApplyStatus === 'applied' && /bpf/.test(tc.stdout) && /direct-action/.test(tc.stdout),
        `apply ${applied.lastApplyStatus} in ${(numbers.applyMs / 1000).toFixed(0)} s; eth1 egress: ${/name (\S+)/.exec(tc.stdout)?.[1] ?? tc.stdout.trim().slice(0, 80)}`,
      ),
    );
    // WAN egress traffic for the counters: the guest pings the WAN peer.
    await guest.run(['ping', '-c', '10', '-i', '0.2', guest.addresses.wan.peer]);
    const telemetry = await waitFor('telemetry with counters', 600_000, async () => {
      const t = (await lab.api<RouterView>(`/v1/routers/${routerId}`)).body.liveState?.telemetry;
      const wan = (t?.programs ?? []).filter((c) => c.program.startsWith('eth1/'));
      const seen = wan.reduce((n, c) => n + Number(c.packetsSeen ?? 0), 0);
      const rewritten = wan.reduce((n, c) => n + Number(c.packetsRewritten ?? 0), 0);
      return seen >= 10
        ? { keys: wan.map((c) => c.program), seen, rewritten, rss: Number(t?.agentRssBytes ?? 0) }
        : undefined;
    });
    numbers.telemetryPacketsSeen = telemetry.seen;
    steps.push(
      step(
        'telemetry',
        telemetry.rewritten > 0,
        `telemetry: ${telemetry.seen} packets seen, ${telemetry.rewritten} rewritten on ${telemetry.keys.join(', ')}; agent reports RSS ${(telemetry.rss / 2 ** 20).toFixed(1)} MiB`,
      ),
    );
    // Idle: connected, applied, nothing to do; RSS as the kernel counts it.
    await new Promise((r) => setTimeout(r, 30_000));
    const status = await guest.run(['sh', '-c', `grep -E 'VmRSS|VmHWM' /proc/$(cat ${WORK}/agent.pid)/status`]);
    numbers.idleRssKiB = Number(/VmRSS:\s*(\d+)/.exec(status.stdout)?.[1]);
    numbers.peakRssKiB = Number(/VmHWM:\s*(\d+)/.exec(status.stdout)?.[1]);
    steps.push(
      step(
        'rss',
        numbers.idleRssKiB > 0 && numbers.idleRssKiB < 64 * 1024,
        `idle RSS ${(numbers.idleRssKiB / 1024).toFixed(1)} MiB (peak ${(numbers.peakRssKiB / 1024).toFixed(1)} MiB)`,
      ),
    );
    return resultOf(steps, numbers);
  } finally {
    await stopAgent(guest).catch(() => undefined);
    await lab.stop();
  }
}

export const agentOnRouter: LabCheck = {
  name: 'agent-on-router',
  arches: ['mipsel'],
  run: runOnRouter,
};
