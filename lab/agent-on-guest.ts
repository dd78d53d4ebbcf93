/**
 * The packaged agent on a lab guest, as a router runs it: the bundle and BPF objects installed
 * where the OpenWrt package puts them, started with the procd init script's node flags and
 * environment, against a controller on this host that the guest reaches through QEMU's user
 * networking. Used by the agent-on-router check and by bench/lab's start-up measurement.
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
import { pino } from 'pino';
import { bundleAgent } from '../agent/packaging/build.js';
import { REPO_ROOT } from '../agent/packaging/esbuild-plugins.js';
import { startController, type Controller } from '../server/controller.js';
import type { Guest } from './guest.js';
import { inNamespace } from './topology.js';

/** Where the bundle lives on the router, as the init script installs it. */
export const GUEST_AGENT_HOME = '/usr/lib/wrtfleet';
const WORK = '/tmp/wf';
/** The oldest Node.js the bundle targets (agent/packaging/build.ts says why). */
export const MIN_NODE_MAJOR = 18;
/** The address the guest dials: the host as QEMU user networking presents it. */
const HOST_FROM_GUEST = '10.0.2.2';

/**
 * Builds the bundle (once per process) and copies what a router gets onto the guest:
 * agent.cjs, the BPF objects, and the static wf-tcx for the guest's CPU as bpf/build/wf-tcx
 * (where the on-router agent looks for it next to agent.cjs).
 */
let bundled: Promise<string> | undefined;
export async function installAgentBundle(guest: Guest): Promise<{ bytes: number }> {
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
  /** The admin token api() sends, for requests it cannot make (an image upload's raw body). */
  apiToken: string;
  /** The agents' streams the controller holds now (the guest's agent: none or one). */
  sessions(): { identity: string }[];
  stop(): Promise<void>;
}

/**
 * A controller for the guest's agent: embedded PGlite, mutual TLS with 10.0.2.2 in its server
 * certificate, heartbeats every 5 s with a generous miss allowance (an emulated 24Kc shared
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
      // Telemetry comes every four heartbeats: 20 s, so the check waits less for counters.
      heartbeatIntervalSeconds: 5,
      missedHeartbeatsBeforeOffline: 24,
      autoRegister: true,
      logLevel: 'error',
      security: { insecureAgents: false, grpcTlsNames: [HOST_FROM_GUEST] },
      console: { buildWhenMissing: false },
      redisPrefix: `wflab-${guest.name}-${process.pid}`,
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
    apiToken: secret,
    sessions: () => [...controller.gateway.sessions.values()],
    async stop() {
      relay.kill('SIGTERM');
      await controller.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export async function waitFor<T>(
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
export async function startAgent(guest: Guest, args: string[]): Promise<number> {
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

export async function stopAgent(guest: Guest): Promise<void> {
  await guest.run(['sh', '-c', `kill $(cat ${WORK}/agent.pid) 2>/dev/null; sleep 2; true`]);
}

export const agentLog = async (guest: Guest) =>
  ((await guest.host.readFile(`${WORK}/agent.log`)) ?? '').trim().split('\n').slice(-8).join(' | ');

export interface EnrolledAgent {
  /** The identity the agent said Hello with. */
  identity: string;
  /** From the init script's exec to the controller's Hello, enrollment included. */
  enrollToHelloMs: number;
  /** What a later start passes: the saved certificate instead of the token. */
  runArgs: string[];
}

/**
 * The agent's first start on the guest, as onboarding leaves a router: a one-time token and the
 * CA's fingerprint, the credentials, state and log of any earlier start removed; it makes its
 * key pair and CSR, enrolls, and says Hello over mTLS.
 */
export async function enrollAgent(guest: Guest, lab: LabController): Promise<EnrolledAgent> {
  const minted = await lab.api<{ token: string; caFingerprint: string }>('/v1/enrollment-tokens', {
    method: 'POST',
    body: { routerName: `lab-${guest.arch}` },
  });
  await guest.host.writeFile(`${WORK}/token`, minted.body.token, 0o600);
  await guest.run(['rm', '-rf', `${WORK}/creds`, `${WORK}/state.json`, `${WORK}/agent.log`]);
  const runArgs = [
    '--controller', `${HOST_FROM_GUEST}:${lab.grpcPort}`,
    '--name', `lab-${guest.arch}`,
    '--state-file', `${WORK}/state.json`,
    '--pin-root', '/sys/fs/bpf/wrtfleet',
    '--credentials-dir', `${WORK}/creds`,
  ]; // prettier-ignore
  const started = await startAgent(guest, [
    ...runArgs,
    '--enroll-token-file',
    `${WORK}/token`,
    '--ca-fingerprint',
    minted.body.caFingerprint,
  ]);
  const first = await waitFor('the first Hello', 900_000, () => lab.sessions()[0]).catch(async (e: Error) => {
    throw new Error(`${e.message}; agent log: ${await agentLog(guest)}`);
  });
  return { identity: first.identity, enrollToHelloMs: Date.now() - started, runArgs };
}

/** The running agent's resident memory and its peak, as the guest's kernel counts them (KiB). */
export async function agentRss(guest: Guest): Promise<{ rssKiB: number; peakKiB: number }> {
  const status = await guest.run(['sh', '-c', `grep -E 'VmRSS|VmHWM' /proc/$(cat ${WORK}/agent.pid)/status`]);
  return {
    rssKiB: Number(/VmRSS:\s*(\d+)/.exec(status.stdout)?.[1]),
    peakKiB: Number(/VmHWM:\s*(\d+)/.exec(status.stdout)?.[1]),
  };
}
