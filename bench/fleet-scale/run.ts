/**
 * A controller holding a large fleet, measured as production runs it: the controller in its own
 * process (`server/launch.mjs server/main.ts`, as `npm run server`) on PostgreSQL + Redis, the
 * agents in separate `agent fleet` processes, enrolled and connected over mutual TLS. One run:
 *  1. enrollment: N enrollment tokens through the API, each agent enrolls once (credentials kept);
 *  2. cold start: a fresh controller, then every fleet process at once: time until all N streams
 *     are up (10/50/90/100 %), listen-queue overflows, streams the controller closed and why;
 *  3. kill -9 of the controller and an immediate restart: the same, from the kill;
 *  4. a rollout of one revision to all N: POST /v1/rollouts to `completed`;
 *  5. controller RSS with N streams (idle, after the rollout);
 * with `GET /v1/routers?limit=100` timed 10 times a second throughout (p50/p99 per phase).
 *
 * Run: npm run -s bench:fleet-scale
 * knobs: WF_BENCH_AGENTS (10000), WF_BENCH_PROCESSES (4), WF_BENCH_TLS (true; false: plaintext agents),
 *        WF_BENCH_CANARY (100), WF_BENCH_BATCH (2500: rollout batch size), WF_BENCH_SERVER_NODE_FLAGS,
 *        WF_BENCH_FLEET_NODE_FLAGS (Node flags of the fleet processes, e.g. --cpu-prof),
 *        WF_BENCH_SERVER_ENV ('K=V K=V': extra controller environment), WF_BENCH_KEEP_LOG (path: keep the controller log),
 *        WF_BENCH_COLD_ONLY (1: stop after the cold start, e.g. to profile it alone),
 *        WF_BENCH_SKIP_KILL (1: no kill -9 phase, the rollout follows the cold start),
 *        WF_BENCH_IDLE_SECONDS (10: how long idle CPU is measured with every stream up; longer to profile it),
 *        WF_BENCH_API_REPLICA (true: a second replica with WRTFLEET_SERVE_AGENTS=false and WRTFLEET_RUN_TASKS=false,
 *        the list timed through it as well),
 *        WF_BENCH_HEAPSNAP (seconds to wait after SIGUSR2 for a heap snapshot of the controller with N streams;
 *        give WF_BENCH_SERVER_NODE_FLAGS="--heapsnapshot-signal=SIGUSR2")
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createPostgresDatabase, type TestDatabase } from '../../test/support/databases.js';
import { freePort } from '../../test/support/ports.js';
import { ListProbe } from './list-probe.js';
import { cpuSeconds, postgresCpuSeconds, rssMiB, tcpExt, transactions } from './process-readings.js';

const AGENTS = Number(process.env.WF_BENCH_AGENTS ?? 10_000);
const PROCESSES = Number(process.env.WF_BENCH_PROCESSES ?? 4);
const TLS = (process.env.WF_BENCH_TLS ?? 'true') !== 'false';
const CANARY = Number(process.env.WF_BENCH_CANARY ?? 100);
const BATCH = Number(process.env.WF_BENCH_BATCH ?? 2_500);
const IDLE_SECONDS = Number(process.env.WF_BENCH_IDLE_SECONDS ?? 10);
const API_REPLICA = (process.env.WF_BENCH_API_REPLICA ?? 'true') !== 'false';
const REDIS_URL = process.env.WRTFLEET_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const MODELS = 3; // fixtures/routers holds three captured trees; `agent fleet` runs per-model of each
const repo = path.resolve(import.meta.dirname, '../..');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(check: () => Promise<T | undefined | false>, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const v = await check().catch(() => undefined);
    if (v) return v;
    await sleep(100);
  }
  throw new Error(`timed out waiting for ${what}`);
}

interface Controller {
  process: ChildProcess;
  url: string;
  grpcPort: number;
  token: string;
}

class ControllerProcess {
  private readonly env: Record<string, string>;
  private log = createWriteStream(process.env.WF_BENCH_KEEP_LOG ?? '/dev/null', { flags: 'a' });
  /** Every controller log line at warn or above, and "closing agent stream" lines, by reason. */
  readonly closes = new Map<string, number>();
  current: Controller | undefined;

  constructor(
    private readonly db: TestDatabase,
    readonly httpPort: number,
    readonly grpcPort: number,
    /** Replicas of one installation share it (the job queue and the fleet bus). */
    redisPrefix: string,
    extraEnv: Record<string, string> = {},
  ) {
    this.env = {
      ...extraEnv,
      DATABASE_URL: db.databaseUrl!,
      REDIS_URL,
      WRTFLEET_REDIS_PREFIX: redisPrefix,
      WRTFLEET_DATA_DIR: db.dataDir,
      WRTFLEET_HTTP_PORT: String(httpPort),
      WRTFLEET_GRPC_PORT: String(grpcPort),
      LOG_LEVEL: 'info',
      ...(TLS ? {} : { WRTFLEET_INSECURE_AGENTS: 'true' }),
      ...Object.fromEntries(
        (process.env.WF_BENCH_SERVER_ENV ?? '')
          .split(/\s+/)
          .filter(Boolean)
          .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
      ),
    };
  }

  async start(): Promise<Controller> {
    const flags = (process.env.WF_BENCH_SERVER_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean);
    const child = spawn(
      process.execPath,
      [
        ...flags,
        '--experimental-wasm-modules',
        '--disable-warning=DEP0123',
        '--enable-source-maps',
        'server/launch.mjs',
        'server/main.ts',
      ],
      { cwd: repo, env: { ...process.env, ...this.env }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let partial = '';
    const onData = (chunk: Buffer) => {
      this.log.write(chunk);
      const text = partial + chunk.toString('utf8');
      const lines = text.split('\n');
      partial = lines.pop()!;
      for (const line of lines) {
        if (!line.includes('"closing agent stream"')) continue;
        const code = /"code":"(\w+)"/.exec(line)?.[1] ?? '?';
        const reason = /"reason":"([^"]{0,80})/.exec(line)?.[1] ?? '?';
        const key = `${code}: ${reason}`;
        this.closes.set(key, (this.closes.get(key) ?? 0) + 1);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    const url = `http://127.0.0.1:${this.httpPort}`;
    await until(async () => (await fetch(`${url}/healthz`)).ok, 120_000, 'controller');
    const token = (await readFile(path.join(this.db.dataDir, 'admin-token'), 'utf8')).trim();
    this.current = { process: child, url, grpcPort: this.grpcPort, token };
    return this.current;
  }

  async kill(signal: NodeJS.Signals): Promise<void> {
    const c = this.current;
    if (!c) return;
    this.current = undefined;
    const exited = new Promise((r) => c.process.once('exit', r));
    c.process.kill(signal);
    await exited;
  }
}

async function api<T = unknown>(c: Controller, route: string, init: { method?: string; body?: unknown } = {}) {
  const res = await fetch(`${c.url}${route}`, {
    method: init.method ?? 'GET',
    headers: {
      authorization: `Bearer ${c.token}`,
      ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${route}: ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
}

/** This replica's agent streams, from /metrics. */
async function connectedAgents(c: Controller): Promise<number> {
  const res = await fetch(`${c.url}/metrics`, { headers: { authorization: `Bearer ${c.token}` } });
  const m = /^wrtfleet_connected_agents (\d+)/m.exec(await res.text());
  return m ? Number(m[1]) : 0;
}

/** The `agent fleet` processes: PROCESSES of them, serials apart. */
class Fleet {
  private children: ChildProcess[] = [];
  readonly perModel = Math.ceil(AGENTS / MODELS / PROCESSES);

  constructor(
    private readonly dir: string,
    private readonly caFingerprint: string | undefined,
  ) {}

  get total(): number {
    return this.perModel * MODELS * PROCESSES;
  }

  start(grpcAddress: string): void {
    for (let i = 0; i < PROCESSES; i++) {
      const args = [
        ...(process.env.WF_BENCH_FLEET_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean),
        '--experimental-wasm-modules',
        '--disable-warning=DEP0123',
        // Bundled like `npm run server` (server/launch.mjs), not through tsx's loader thread:
        // four fleet processes starting at once spent ~2 s of CPU each on module loading.
        'server/launch.mjs',
        'agent/main.ts',
        'fleet',
        '--controller',
        grpcAddress,
        '--per-model',
        String(this.perModel),
        '--first-serial',
        String(1 + i * this.perModel),
      ];
      if (TLS)
        args.push(
          '--credentials-dir',
          path.join(this.dir, 'credentials'),
          '--enroll-token-file',
          path.join(this.dir, `tokens-${i}.txt`),
          '--ca-fingerprint',
          this.caFingerprint!,
        );
      const child = spawn(process.execPath, args, { cwd: repo, stdio: ['ignore', 'ignore', 'pipe'] });
      child.stderr!.on('data', (d: Buffer) => {
        const text = d.toString();
        if (/error|fail/i.test(text)) process.stderr.write(`fleet ${i}: ${text.slice(0, 300)}`);
      });
      this.children.push(child);
    }
  }

  pids(): number[] {
    return this.children.map((c) => c.pid!);
  }

  async stop(): Promise<void> {
    await Promise.all(
      this.children.map(
        (c) =>
          new Promise<void>((resolve) => {
            if (c.exitCode !== null) return resolve();
            const force = setTimeout(() => c.kill('SIGKILL'), 20_000);
            c.once('exit', () => {
              clearTimeout(force);
              resolve();
            });
            c.kill('SIGTERM');
          }),
      ),
    );
    this.children = [];
  }
}

/** Waits until `want` streams are up, noting when 10/50/90/100 % were reached (seconds from `t0`). */
async function storm(
  c: () => Controller | undefined,
  want: number,
  t0: number,
  timeoutMs: number,
): Promise<{ at: Record<string, number>; complete: boolean }> {
  const marks = [0.1, 0.5, 0.9, 1];
  const at: Record<string, number> = {};
  const deadline = t0 + timeoutMs;
  while (Date.now() < deadline) {
    const ctl = c();
    const n = ctl ? await connectedAgents(ctl).catch(() => 0) : 0;
    for (const m of marks)
      if (at[`${m * 100}%`] === undefined && n >= m * want) at[`${m * 100}%`] = (Date.now() - t0) / 1000;
    if (n >= want) return { at, complete: true };
    // Once a second: a scrape of /metrics is itself work for the controller under test.
    await sleep(1_000);
  }
  return { at, complete: false };
}

/** CPU seconds the fleet processes have used since they started (their whole life so far). */
async function fleetCpuSeconds(fleet: Fleet): Promise<number> {
  const each = await Promise.all(fleet.pids().map((p) => cpuSeconds(p).catch(() => 0)));
  return each.reduce((a, b) => a + b, 0);
}

const fmt = (n: number, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : '-');

async function main() {
  const db = await createPostgresDatabase();
  const dir = await mkdtemp(path.join(os.tmpdir(), 'wf-fleet-scale-'));
  const redisPrefix = `wf-bench-${randomUUID().slice(0, 8)}`;
  const ctl = new ControllerProcess(db, await freePort(), await freePort(), redisPrefix);
  const probe = new ListProbe(() => ctl.current);
  // WF_BENCH_API_REPLICA: a second replica serving the REST API only, the list timed through it too.
  const apiReplica = API_REPLICA
    ? new ControllerProcess(db, await freePort(), await freePort(), redisPrefix, {
        WRTFLEET_SERVE_AGENTS: 'false',
        WRTFLEET_RUN_TASKS: 'false',
        WRTFLEET_AGENT_ADDRESS: `127.0.0.1:${ctl.grpcPort}`,
      })
    : undefined;
  const apiProbe = apiReplica ? new ListProbe(() => apiReplica.current) : undefined;
  const setPhase = (phase: string) => {
    probe.setPhase(phase);
    apiProbe?.setPhase(phase);
  };
  const rows: string[] = [];
  const note = (line: string) => {
    rows.push(line);
    console.log(line);
  };
  let fleet: Fleet | undefined;
  try {
    let c = await ctl.start();
    const grpc = `127.0.0.1:${c.grpcPort}`;
    if (apiReplica) {
      const a = await apiReplica.start();
      console.log(`API-only replica (WRTFLEET_SERVE_AGENTS=false WRTFLEET_RUN_TASKS=false) pid ${a.process.pid}`);
    }
    let caFingerprint: string | undefined;
    fleet = new Fleet(dir, undefined);
    const n = fleet.total;
    console.log(
      `${n} agents in ${PROCESSES} processes, ${TLS ? 'mutual TLS' : 'plaintext'}; controller pid ${c.process.pid}`,
    );

    if (TLS) {
      // One single-use enrollment token per agent, minted through the API as an operator would.
      const tokens: string[] = [];
      const t = Date.now();
      for (let i = 0; i < n; i += 20) {
        const minted = await Promise.all(
          Array.from({ length: Math.min(20, n - i) }, () =>
            api<{ token: string; caFingerprint: string }>(c, '/v1/enrollment-tokens', {
              method: 'POST',
              body: { expiresInSeconds: 86_400 },
            }),
          ),
        );
        for (const m of minted) tokens.push(m.token);
        caFingerprint ??= minted[0]!.caFingerprint.startsWith('SHA256:')
          ? minted[0]!.caFingerprint
          : `SHA256:${minted[0]!.caFingerprint}`;
      }
      const per = n / PROCESSES;
      for (let i = 0; i < PROCESSES; i++)
        await writeFile(path.join(dir, `tokens-${i}.txt`), tokens.slice(i * per, (i + 1) * per).join('\n'));
      note(`tokens minted: ${n} in ${fmt((Date.now() - t) / 1000)} s`);
      fleet = new Fleet(dir, caFingerprint);
      const t1 = Date.now();
      setPhase('enrollment');
      fleet.start(grpc);
      const e = await storm(() => ctl.current, n, t1, 900_000);
      note(`enrollment + first connect: ${JSON.stringify(e.at)}${e.complete ? '' : ' (INCOMPLETE)'}`);
      setPhase('idle');
      await fleet.stop();
      await ctl.kill('SIGTERM');
      c = await ctl.start();
    }

    // Cold start: the controller is up with no streams; every fleet process starts at once.
    ctl.closes.clear();
    await sleep(2_000);
    const rssBefore = await rssMiB(c.process.pid!);
    let overflow0 = await tcpExt();
    setPhase('cold start');
    const t2 = Date.now();
    let cpu0 = await cpuSeconds(c.process.pid!);
    let tx0 = await transactions(db.databaseUrl!);
    fleet.start(grpc);
    const cold = await storm(() => ctl.current, n, t2, 600_000);
    const fleetCpu = await fleetCpuSeconds(fleet);
    let overflow1 = await tcpExt();
    setPhase('idle');
    note(
      `cold start: ${JSON.stringify(cold.at)}${cold.complete ? '' : ' (INCOMPLETE)'}; ListenOverflows +${overflow1.ListenOverflows! - overflow0.ListenOverflows!}, ListenDrops +${overflow1.ListenDrops! - overflow0.ListenDrops!}`,
    );
    note(`  streams closed by the controller: ${JSON.stringify(Object.fromEntries(ctl.closes))}`);
    note(`  controller CPU: ${fmt((await cpuSeconds(c.process.pid!)) - cpu0, 1)} s for ${n} connects`);
    note(`  agent fleet processes CPU (the other side, same machine): ${fmt(fleetCpu, 1)} s`);
    note(`  PostgreSQL transactions: ${(await transactions(db.databaseUrl!)) - tx0} for ${n} connects`);
    cpu0 = await cpuSeconds(c.process.pid!);
    const [idleFleet0, idlePostgres0] = [await fleetCpuSeconds(fleet), await postgresCpuSeconds()];
    await sleep(IDLE_SECONDS * 1000);
    c = ctl.current!;
    // Heartbeats and telemetry: what every other phase pays on top of its own work.
    const perCore = (seconds: number) => `${fmt((seconds / IDLE_SECONDS) * 100, 1)} % of a core`;
    note(
      `  CPU idle with ${n} streams: controller ${perCore((await cpuSeconds(c.process.pid!)) - cpu0)}, ` +
        `agent fleet ${perCore((await fleetCpuSeconds(fleet)) - idleFleet0)}, PostgreSQL ${perCore((await postgresCpuSeconds()) - idlePostgres0)}`,
    );
    const rssWith = await rssMiB(c.process.pid!);
    note(
      `controller RSS with ${n} streams (idle, ${IDLE_SECONDS} s after): ${fmt(rssWith, 0)} MiB; ${fmt(rssBefore, 0)} MiB before, so ${fmt(((rssWith - rssBefore) * 1024) / n, 1)} KiB per stream`,
    );
    if (process.env.WF_BENCH_HEAPSNAP) {
      // With --heapsnapshot-signal=SIGUSR2 in WF_BENCH_SERVER_NODE_FLAGS: a snapshot of the controller with N streams.
      c.process.kill('SIGUSR2');
      await sleep(Number(process.env.WF_BENCH_HEAPSNAP) * 1000);
    }
    const fleetRss = await Promise.all(fleet.pids().map((p) => rssMiB(p).catch(() => 0)));
    note(`agent fleet processes RSS: ${fleetRss.map((r) => fmt(r, 0)).join(', ')} MiB`);

    // WF_BENCH_COLD_ONLY: stop here (a --cpu-prof of the controller then covers the cold start alone).
    if (process.env.WF_BENCH_COLD_ONLY) return;

    // kill -9 and restart at once (WF_BENCH_SKIP_KILL: straight on to the rollout).
    if (!process.env.WF_BENCH_SKIP_KILL) {
      ctl.closes.clear();
      overflow0 = await tcpExt();
      const t3 = Date.now();
      await ctl.kill('SIGKILL');
      setPhase('after kill -9');
      c = await ctl.start();
      const up = (Date.now() - t3) / 1000;
      const again = await storm(() => ctl.current, n, t3, 600_000);
      overflow1 = await tcpExt();
      setPhase('idle');
      note(
        `kill -9 + restart (controller answering after ${fmt(up)} s): ${JSON.stringify(again.at)}${again.complete ? '' : ' (INCOMPLETE)'}; ListenOverflows +${overflow1.ListenOverflows! - overflow0.ListenOverflows!}`,
      );
      note(`  streams closed by the controller: ${JSON.stringify(Object.fromEntries(ctl.closes))}`);
    }
    await sleep(5_000);

    // A rollout of one revision to every router.
    ctl.closes.clear();
    await api(c, '/v1/profiles/scale', { method: 'PUT', body: { spec: { l3Rewrite: { ttl: { value: 65 } } } } });
    setPhase('rollout');
    const t4 = Date.now();
    cpu0 = await cpuSeconds(c.process.pid!);
    tx0 = await transactions(db.databaseUrl!);
    const [fleetCpu0, postgresCpu0] = [await fleetCpuSeconds(fleet), await postgresCpuSeconds()];
    const rollout = await api<{ id: string }>(c, '/v1/rollouts', {
      method: 'POST',
      body: { profile: 'scale', selector: { all: true }, strategy: { canary: CANARY, batchSize: BATCH } },
    });
    const done = await until(
      async () => {
        const r = await api<{ state: string; counts: Record<string, number> }>(c, `/v1/rollouts/${rollout.id}`);
        return ['completed', 'paused', 'failed', 'cancelled'].includes(r.state) ? r : undefined;
      },
      600_000,
      'rollout',
    );
    setPhase('idle');
    note(
      `rollout (canary ${CANARY}, batches of ${BATCH}): ${done.state} in ${fmt((Date.now() - t4) / 1000, 2)} s, ${JSON.stringify(done.counts)}`,
    );
    note(`  streams closed by the controller: ${JSON.stringify(Object.fromEntries(ctl.closes))}`);
    note(`  controller CPU: ${fmt((await cpuSeconds(c.process.pid!)) - cpu0, 1)} s for the rollout`);
    note(
      `  agent fleet processes CPU: ${fmt((await fleetCpuSeconds(fleet)) - fleetCpu0, 1)} s; PostgreSQL CPU: ${fmt((await postgresCpuSeconds()) - postgresCpu0, 1)} s`,
    );
    note(`  PostgreSQL transactions: ${(await transactions(db.databaseUrl!)) - tx0} for the rollout`);
    await sleep(10_000);
    note(`controller RSS with ${n} streams (after the rollout): ${fmt(await rssMiB(c.process.pid!), 0)} MiB`);

    for (const [where, p] of [
      ["the agents' replica", probe],
      ['the API-only replica', apiProbe],
    ] as const) {
      if (!p) continue;
      for (const phase of ['enrollment', 'cold start', 'after kill -9', 'rollout']) {
        const s = p.summary(phase);
        if (s.n)
          note(
            `GET /v1/routers?limit=100 through ${where} during ${phase}: n=${s.n} p50 ${fmt(s.p50)} ms, p99 ${fmt(s.p99)} ms, max ${fmt(s.max)} ms`,
          );
      }
      if (p.errors) note(`GET /v1/routers errors through ${where} (timeouts, refused while restarting): ${p.errors}`);
    }
  } finally {
    await probe.stop();
    await apiProbe?.stop();
    await apiReplica?.kill('SIGTERM');
    await fleet?.stop();
    await ctl.kill('SIGTERM');
    await db.drop();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
