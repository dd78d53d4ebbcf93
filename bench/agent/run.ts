/**
 * `npm run -s bench:agent`: the agent's numbers (docs/BENCHMARKS.md, section "Agent").
 *
 *  1. bundle size (dist/agent/agent.mjs, budget 3 MB)
 *  2. on-router agent idle RSS: the bundle running `run` inside a namespace against a
 *     controller on loopback, after it connected, probed and sat idle (budget 50 MB)
 *  3. proxy RSS per router: the bundle running `proxy` for 1 and for N routers, each a real
 *     SSH session to one sshd in a namespace (MaxSessions/MaxStartups raised), every router
 *     connected to the controller with facts collected and capabilities probed over SSH
 *     (budget 1 MB per router)
 *  4. a full apply over SSH: DesiredState sent -> ApplyResult APPLIED received, four programs
 *     attached with TCX and verified, alternating two configurations so every apply changes
 *     something (budget 1.5 s)
 *  5. 1,000 agents reconnecting after a controller restart: arrival histogram of their Hellos
 *     against the jitter window (ControllerLink reconnect.jitterWindowMs), and without jitter
 *
 * Knobs: WF_BENCH_ROUTERS (200), WF_BENCH_AGENTS (1000), WF_BENCH_JITTER_MS (5000),
 * WF_BENCH_APPLIES (10), WF_BENCH_IDLE_S (10).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApplyResult_Status, type DesiredState } from '../../proto/gen/wrtfleet/agent/v1/agent.js';
import { ControllerLink } from '../../agent/controller-link.js';
import { bundleAgent } from '../../agent/packaging/build.js';
import { FakeController } from '../../test/support/fake-controller.js';
import { sh, SshRouter } from '../../test/support/ssh-router.js';

const ROUTERS = Number(process.env.WF_BENCH_ROUTERS ?? 200);
const AGENTS = Number(process.env.WF_BENCH_AGENTS ?? 1000);
const JITTER_MS = Number(process.env.WF_BENCH_JITTER_MS ?? 5000);
const APPLIES = Number(process.env.WF_BENCH_APPLIES ?? 10);
const IDLE_S = Number(process.env.WF_BENCH_IDLE_S ?? 10);
const MB = 1024 * 1024;
/** The flags the procd init script and the systemd unit start the agent with (agent/packaging). */
const NODE_FLAGS = (process.env.WF_BENCH_NODE_FLAGS ?? '--max-semi-space-size=1 --single-threaded-gc').split(' ').filter(Boolean);
const work = mkdtempSync(join(tmpdir(), 'wf-bench-agent-'));
const results: Record<string, unknown> = {};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function rssParts(pid: number): { anon: number; file: number } {
  const st = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k: string) => Number(st.match(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm'))?.[1] ?? 0) * 1024;
  return { anon: kb('RssAnon'), file: kb('RssFile') };
}

function rssOf(pid: number): number {
  const m = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB/m);
  if (!m) throw new Error(`no VmRSS for ${pid}`);
  return Number(m[1]) * 1024;
}

/** The node process under `nsenter` (nsenter execs it, so the pid is the same). */
async function until(check: () => boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return;
    await sleep(100);
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function stopProc(p: ChildProcess): Promise<void> {
  if (p.exitCode !== null) return;
  const done = new Promise((r) => p.once('exit', r));
  p.kill('SIGTERM');
  await Promise.race([done, sleep(5_000)]);
  if (p.exitCode === null) p.kill('SIGKILL');
}

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function benchBundle(): Promise<string> {
  const b = await bundleAgent();
  results.bundle = { bytes: b.bytes, mib: +(b.bytes / MB).toFixed(2), budgetMiB: 3, objects: b.objects.length };
  console.log(`bundle: ${(b.bytes / MB).toFixed(2)} MiB (budget 3 MiB), ${b.objects.length} BPF objects`);
  return b.bundle;
}

async function benchOnRouterIdle(bundle: string): Promise<void> {
  const ns = `wf-bench-onr-${randomBytes(2).toString('hex')}`;
  const hostIf = `wfb${randomBytes(2).toString('hex')}`;
  // The namespace reaches the controller over a veth of ours (its WAN, with the default route).
  await sh(['ip', 'netns', 'add', ns]);
  await sh(['ip', '-n', ns, 'link', 'set', 'lo', 'up']);
  await sh(['ip', 'link', 'add', hostIf, 'type', 'veth', 'peer', 'name', 'wan0', 'netns', ns]);
  await sh(['ip', 'addr', 'add', '10.204.0.1/30', 'dev', hostIf]);
  await sh(['ip', 'link', 'set', hostIf, 'up']);
  await sh(['ip', '-n', ns, 'addr', 'add', '10.204.0.2/30', 'dev', 'wan0']);
  await sh(['ip', '-n', ns, 'link', 'set', 'wan0', 'up']);
  await sh(['ip', '-n', ns, 'route', 'add', 'default', 'via', '10.204.0.1']);
  const controller = new FakeController();
  controller.bindHost = '10.204.0.1';
  await controller.start();
  const p = spawn('nsenter', [`--net=/run/netns/${ns}`, 'node', ...NODE_FLAGS, bundle, 'run', '--controller', controller.address, '--identity', 'bench-onr', '--state-file', join(work, 'onr-state.json'), '--pin-root', `/sys/fs/bpf/wrtfleet/bench-${ns}`], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  p.stderr!.on('data', (d) => {
    err += String(d);
    if (process.env.WF_BENCH_VERBOSE) process.stderr.write(String(d));
  });
  try {
    await until(() => controller.connected('bench-onr'), 30_000, `on-router agent to connect (${err})`);
    const samples: number[] = [];
    for (let i = 0; i < IDLE_S; i++) {
      await sleep(1000);
      samples.push(rssOf(p.pid!));
    }
    const idle = samples.at(-1)!;
    const parts = rssParts(p.pid!);
    results.onRouterIdleRss = { anonMiB: +(parts.anon / MB).toFixed(1), fileMiB: +(parts.file / MB).toFixed(1), bytes: idle, mib: +(idle / MB).toFixed(1), maxMiB: +(Math.max(...samples) / MB).toFixed(1), idleSeconds: IDLE_S, budgetMiB: 50 };
    console.log(`on-router agent idle RSS: ${(idle / MB).toFixed(1)} MiB after ${IDLE_S} s idle (max ${(Math.max(...samples) / MB).toFixed(1)}; budget 50 MiB): anonymous ${(parts.anon / MB).toFixed(1)} MiB + file-backed ${(parts.file / MB).toFixed(1)} MiB (the node binary's pages)`);
  } finally {
    await stopProc(p);
    await controller.stop();
    await sh(['ip', 'netns', 'del', ns]).catch(() => undefined);
    await sh(['ip', 'link', 'del', hostIf]).catch(() => undefined);
    await sh([join(process.cwd(), 'bpf/build/wf-tcx'), 'rm', `/sys/fs/bpf/wrtfleet/bench-${ns}`]).catch(() => undefined);
  }
}

async function proxyRss(bundle: string, router: SshRouter, n: number): Promise<{ rss: number; connectMs: number }> {
  const controller = new FakeController();
  await controller.start();
  const cfg = {
    stateDir: join(work, `proxy-state-${n}`),
    routers: Array.from({ length: n }, (_, i) => ({
      host: router.addr.router,
      identity: `bench-proxy-${i}`,
      keyPath: router.clientKeyPath,
      hostKeyFingerprint: router.hostKeyFingerprint,
      // sshd gets n connections: give each a distinct pin root so probes never collide.
      paths: { pinRoot: `/sys/fs/bpf/wrtfleet/r${i}` },
    })),
  };
  const cfgPath = join(work, `proxy-${n}.json`);
  writeFileSync(cfgPath, JSON.stringify(cfg));
  const t0 = Date.now();
  const p = spawn('node', [...NODE_FLAGS, bundle, 'proxy', '--config', cfgPath, '--controller', controller.address], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  p.stderr!.on('data', (d) => (err = (err + String(d)).slice(-2000)));
  try {
    await until(() => cfg.routers.every((r) => controller.connected(r.identity)), 180_000, `${n} routers to connect (${err})`);
    const connectMs = Date.now() - t0;
    await sleep(5_000);
    const samples: number[] = [];
    for (let i = 0; i < 5; i++) {
      samples.push(rssOf(p.pid!));
      await sleep(1000);
    }
    return { rss: Math.max(...samples), connectMs };
  } finally {
    await stopProc(p);
    await controller.stop();
  }
}

async function benchProxy(bundle: string): Promise<void> {
  const router = new SshRouter({ maxSessions: 64, maxStartups: Math.max(ROUTERS * 2, 100), extraConfig: [] });
  await router.start();
  try {
    const one = await proxyRss(bundle, router, 1);
    const many = await proxyRss(bundle, router, ROUTERS);
    const perRouter = (many.rss - one.rss) / (ROUTERS - 1);
    results.proxy = {
      routers: ROUTERS,
      rssOneMiB: +(one.rss / MB).toFixed(1),
      rssManyMiB: +(many.rss / MB).toFixed(1),
      perRouterKiB: Math.round(perRouter / 1024),
      totalPerRouterKiB: Math.round(many.rss / ROUTERS / 1024),
      allConnectedMs: many.connectMs,
      budgetPerRouterMiB: 1,
    };
    console.log(
      `proxy: 1 router ${(one.rss / MB).toFixed(1)} MiB, ${ROUTERS} routers ${(many.rss / MB).toFixed(1)} MiB -> ${(perRouter / 1024).toFixed(0)} KiB per additional router (${(many.rss / ROUTERS / 1024).toFixed(0)} KiB/router overall; budget 1024 KiB); all ${ROUTERS} connected, probed and said Hello in ${many.connectMs} ms`,
    );
  } finally {
    await router.stop();
  }
}

async function benchApply(bundle: string): Promise<void> {
  const router = new SshRouter();
  await router.start();
  const controller = new FakeController();
  await controller.start();
  // The deployed form: the bundle running as a proxy process for this one router.
  const cfgPath = join(work, 'apply.json');
  writeFileSync(cfgPath, JSON.stringify({ stateDir: join(work, 'apply-state'), routers: [{ host: router.addr.router, identity: 'bench-apply', keyPath: router.clientKeyPath, hostKeyFingerprint: router.hostKeyFingerprint }] }));
  const proc = spawn('node', [...NODE_FLAGS, bundle, 'proxy', '--config', cfgPath, '--controller', controller.address], { stdio: ['ignore', 'ignore', 'ignore'] });
  try {
    await until(() => controller.connected('bench-apply'), 30_000, 'agent connected');
    const times: number[] = [];
    const phases: Record<string, number[]> = {};
    for (let i = 1; i <= APPLIES; i++) {
      const d: DesiredState = { profile: 'bench', revision: i, spec: { l3Rewrite: { ttl: { value: 64 + (i % 2) }, tcpwin: { value: 60000 + (i % 2) } } } as DesiredState['spec'], confirmWindowSeconds: 0, rolloutId: '' };
      const before = controller.results('bench-apply').length;
      const t0 = performance.now();
      controller.send('bench-apply', { $case: 'desiredState', value: d });
      await until(() => controller.results('bench-apply').length > before, 30_000, `apply ${i}`);
      const ms = performance.now() - t0;
      const r = controller.results('bench-apply')[before]!;
      if (r.status !== ApplyResult_Status.STATUS_APPLIED) throw new Error(`apply ${i}: ${r.status} ${r.error}`);
      times.push(ms);
      if (i === 1) results.firstApplyPhasesMs = (r.evidence as { timingsMs: unknown }).timingsMs;
      for (const [k, v] of Object.entries((r.evidence as { timingsMs: Record<string, number> }).timingsMs)) (phases[k] ??= []).push(v);
      await sleep(200); // let the ConfirmApply land before the next revision
    }
    const sorted = [...times].sort((a, b) => a - b);
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    results.applyOverSsh = {
      applies: APPLIES,
      firstMs: Math.round(times[0]!),
      medianMs: Math.round(pct(sorted, 50)),
      maxMs: Math.round(sorted.at(-1)!),
      phasesMedianMs: Object.fromEntries(Object.entries(phases).map(([k, v]) => [k, median(v)])),
      budgetMs: 1500,
    };
    console.log(`first apply phases: ${JSON.stringify(results.firstApplyPhasesMs)}`);
    console.log(`full apply over SSH (DesiredState -> APPLIED, 4 programs TCX + verify): first ${Math.round(times[0]!)} ms, median ${Math.round(pct(sorted, 50))} ms, max ${Math.round(sorted.at(-1)!)} ms over ${APPLIES} (budget 1500 ms); phases (median) ${JSON.stringify((results.applyOverSsh as { phasesMedianMs: unknown }).phasesMedianMs)}`);
  } finally {
    await stopProc(proc);
    await controller.stop();
    await router.stop();
  }
}

async function reconnectHistogram(jitterWindowMs: number): Promise<{ spreadMs: number; p50: number; p90: number; maxPerBucket: number; peakPer100ms: number; firstMs: number; lastMs: number; buckets: number[]; bucketMs: number }> {
  const controller = new FakeController();
  await controller.start();
  const links: ControllerLink[] = [];
  for (let i = 0; i < AGENTS; i++) {
    const identity = `bench-rc-${i}`;
    const link = new ControllerLink({
      address: controller.address,
      reconnect: { jitterWindowMs, initialDelayMs: 500, maxDelayMs: 5_000 },
      hello: async () => ({ router: { identity, name: identity }, agent: { version: '0.1.0', placement: 2, proxyHost: '' }, facts: undefined, capabilities: undefined, applied: undefined, live: undefined }),
    });
    links.push(link);
    link.start();
  }
  try {
    await until(() => links.every((l) => l.sessions === 1), 120_000, 'all agents connected');
    // A restart: the old process goes away and a new one listens again on the same port at once.
    const port = controller.port;
    await controller.stop();
    const restartedAt = Date.now();
    controller.hellos.length = 0;
    await controller.start(port);
    await until(() => links.every((l) => l.sessions === 2), Math.max(60_000, jitterWindowMs * 4), 'all agents back');
    const arrivals = controller.hellos.map((h) => h.at - restartedAt).sort((a, b) => a - b);
    const bucketMs = Math.max(100, Math.round(jitterWindowMs / 10) || 100);
    const buckets: number[] = [];
    for (const a of arrivals) {
      const b = Math.max(0, Math.floor(a / bucketMs));
      buckets[b] = (buckets[b] ?? 0) + 1;
    }
    for (let i = 0; i < buckets.length; i++) buckets[i] ??= 0;
    const per100: number[] = [];
    for (const a of arrivals) per100[Math.floor(a / 100)] = (per100[Math.floor(a / 100)] ?? 0) + 1;
    return { spreadMs: arrivals.at(-1)! - arrivals[0]!, p50: pct(arrivals, 50), p90: pct(arrivals, 90), maxPerBucket: Math.max(...buckets), peakPer100ms: Math.max(...Array.from(per100, (x) => x ?? 0)), firstMs: arrivals[0]!, lastMs: arrivals.at(-1)!, buckets, bucketMs };
  } finally {
    await Promise.all(links.map((l) => l.stop()));
    await controller.stop();
  }
}

async function benchReconnect(): Promise<void> {
  const jit = await reconnectHistogram(JITTER_MS);
  const none = await reconnectHistogram(0);
  results.reconnect = { agents: AGENTS, jitterWindowMs: JITTER_MS, withJitter: jit, withoutJitter: none };
  const fmt = (h: typeof jit) => `${h.buckets.map((b, i) => `${i * h.bucketMs}-${(i + 1) * h.bucketMs}ms:${b}`).join(' ')}`;
  console.log(`reconnect of ${AGENTS} agents after a controller restart, jitter window ${JITTER_MS} ms: first ${jit.firstMs} ms, last ${jit.lastMs} ms after the restart, p50 ${jit.p50} ms, p90 ${jit.p90} ms, peak ${jit.peakPer100ms} Hellos per 100 ms`);
  console.log(`  histogram: ${fmt(jit)}`);
  console.log(`without jitter (window 0): first ${none.firstMs} ms, last ${none.lastMs} ms, peak ${none.peakPer100ms} Hellos per 100 ms (as fast as this one process can accept): ${fmt(none)}`);
}

const only = (process.env.WF_BENCH_ONLY ?? 'bundle,idle,proxy,apply,reconnect').split(',');
try {
  const bundle = only.some((x) => ['bundle', 'idle', 'proxy', 'apply'].includes(x)) ? await benchBundle() : '';
  if (only.includes('idle')) await benchOnRouterIdle(bundle);
  if (only.includes('apply')) await benchApply(bundle);
  if (only.includes('proxy')) await benchProxy(bundle);
  if (only.includes('reconnect')) await benchReconnect();
  // Merged into the previous results, so a partial run (WF_BENCH_ONLY) replaces only what it measured.
  const file = join(process.cwd(), 'bench/agent/results.json');
  let previous: Record<string, unknown> = {};
  try {
    previous = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch {
    /* first run */
  }
  writeFileSync(file, `${JSON.stringify({ ...previous, at: new Date().toISOString(), kernel: readFileSync('/proc/sys/kernel/osrelease', 'utf8').trim(), node: process.version, ...results }, null, 2)}\n`);
  console.log('results: bench/agent/results.json');
} finally {
  rmSync(work, { recursive: true, force: true });
}
process.exit(0);
