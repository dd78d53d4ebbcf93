/**
 * Controller benchmarks, in one run so their ratios hold on a noisy machine:
 *  1. GET /v1/routers?limit=100 with 10,000 routers stored: latency percentiles under load
 *     (autocannon, 10 connections, loopback), on PostgreSQL and on embedded PGlite;
 *  2. a rollout of one revision to 1,000 simulated agents over real gRPC streams, from
 *     POST /v1/rollouts to `completed` (controller in its own process, PostgreSQL + BullMQ);
 *  3. verifying a 100,000-event audit chain.
 *
 * Run: npm run bench:server   (knobs: WF_BENCH_ROUTERS, WF_BENCH_AGENTS, WF_BENCH_EVENTS, WF_BENCH_SECONDS,
 *                                     WF_BENCH_SERVER_NODE_FLAGS, WF_BENCH_WRK_THREADS (1))
 */
import { execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import autocannon from 'autocannon';
import { pino } from 'pino';
import { startSimulatedFleet, stopFleet } from '../../agent/sim/simulated-fleet.js';
import { defaultFixturesDir, fixtureModels } from '../../agent/sim/fixtures.js';
import type { Prisma } from '../../prisma/generated/client/client.js';
import { eventHash, GENESIS_HASH } from '../../server/audit/audit-log.js';
import { verifyAuditChain } from '../../server/audit/audit-verify.js';
import { startController } from '../../server/controller.js';
import type { RouterSummary } from '../../server/fleet/router-directory.js';
import type { RolloutView } from '../../server/rollouts/rollout-engine.js';
import { openDatabase } from '../../server/storage/index.js';
import { createPgliteDatabase, createPostgresDatabase, type TestDatabase } from '../../test/support/databases.js';
import { testConfig } from '../../test/support/controller.js';
import { freePort } from '../../test/support/ports.js';

const ROUTERS = Number(process.env.WF_BENCH_ROUTERS ?? 10_000);
const AGENTS = Number(process.env.WF_BENCH_AGENTS ?? 1_000);
const EVENTS = Number(process.env.WF_BENCH_EVENTS ?? 100_000);
const SECONDS = Number(process.env.WF_BENCH_SECONDS ?? 10);
const REDIS_URL = process.env.WRTFLEET_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const repo = path.resolve(import.meta.dirname, '../..');
const silent = pino({ level: 'silent' });

async function until<T>(check: () => Promise<T | undefined | false>, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const v = await check().catch(() => undefined);
    if (v) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** The controller as operators run it: its own process (the load generator must not share its event loop). */
async function startServerProcess(db: TestDatabase, extraEnv: Record<string, string> = {}) {
  const [httpPort, grpcPort] = [await freePort(), await freePort()];
  // WF_BENCH_SERVER_NODE_FLAGS: extra node flags for the controller (e.g. --cpu-prof --cpu-prof-dir=/tmp/prof).
  const flags = (process.env.WF_BENCH_SERVER_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean);
  const server = spawn(process.execPath, [...flags, '--import', 'tsx', 'server/main.ts'], {
    cwd: repo,
    env: {
      ...process.env,
      ...(db.databaseUrl ? { DATABASE_URL: db.databaseUrl } : {}),
      WRTFLEET_DATA_DIR: db.dataDir,
      WRTFLEET_HTTP_PORT: String(httpPort),
      WRTFLEET_GRPC_PORT: String(grpcPort),
      WRTFLEET_INSECURE_AGENTS: 'true',
      LOG_LEVEL: 'warn',
      ...extraEnv,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${httpPort}`;
  await until(async () => (await fetch(`${url}/healthz`)).ok, 60_000, 'controller');
  const token = (await readFile(path.join(db.dataDir, 'admin-token'), 'utf8')).trim();
  const stop = async () => {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
  };
  return { url, grpcPort, token, stop };
}

async function listLatency(label: string, db: TestDatabase) {
  // Seed with the controller's own storage code, then hand the database to a server process.
  const seeded = await openDatabase({
    databaseUrl: db.databaseUrl,
    dataDir: db.databaseUrl ? undefined : path.join(db.dataDir, 'pglite'),
  });
  const now = Date.now();
  const socs = ['MT7621', 'QCA9558', 'MT7986', 'MT7981', 'IPQ8074'];
  for (let i = 0; i < ROUTERS; i += 2000) {
    await seeded.prisma.router.createMany({
      data: Array.from({ length: Math.min(2000, ROUTERS - i) }, (_, j) => ({
        name: `bench-${i + j}`,
        identity: `bench:${i + j}`,
        soc: socs[(i + j) % socs.length]!,
        status: (i + j) % 3 === 0 ? ('offline' as const) : ('online' as const),
        kernel: '6.6.110',
        createdAt: new Date(now - ROUTERS + i + j),
      })),
    });
  }
  await seeded.close();
  const server = await startServerProcess(db);
  try {
    const rows = [];
    for (const connections of [1, 10]) {
      // wrk first: a load generator in C, in its own process (one thread by default), leaves the controller
      // and PostgreSQL the CPU that autocannon (JavaScript, in this process) takes for itself.
      const w = wrk(`${server.url}/v1/routers?limit=100`, connections, server.token);
      rows.push({ label, tool: 'wrk', connections, ...w });
      const result = await autocannon({
        url: `${server.url}/v1/routers?limit=100`,
        connections,
        duration: SECONDS,
        headers: { authorization: `Bearer ${server.token}` },
      });
      if (result.non2xx > 0 || result.errors > 0)
        throw new Error(`${label}: ${result.non2xx} non-2xx, ${result.errors} errors`);
      rows.push({
        label,
        tool: 'autocannon',
        connections,
        requests: result.requests.total,
        rps: Math.round(result.requests.average),
        p50: result.latency.p50,
        p90: result.latency.p90,
        p99: result.latency.p99,
        max: result.latency.max,
      });
    }
    return rows;
  } finally {
    await server.stop();
    await db.drop();
  }
}

/** wrk (Debian's package; installed when missing) against one URL: requests, req/s and latency percentiles in ms. */
function wrk(url: string, connections: number, token: string) {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
  } catch (err) {
    // wrk --version exits 1 after printing its version; only a missing binary is ENOENT.
    if ((err as NodeJS.ErrnoException).code === 'ENOENT')
      execFileSync('apt-get', ['install', '-y', '-qq', 'wrk'], { stdio: 'inherit' });
  }
  // One thread, like autocannon: wrk is event-driven and one thread drives 10 connections at these
  // rates; a second busy thread takes a whole core of the two the controller and PostgreSQL share
  // (WF_BENCH_WRK_THREADS to change it).
  const threads = Number(process.env.WF_BENCH_WRK_THREADS ?? 1);
  const out = execFileSync('wrk', [
    '-t',
    String(Math.min(threads, connections)),
    '-c',
    String(connections),
    '-d',
    `${SECONDS}s`,
    '--latency',
    '-H',
    `authorization: Bearer ${token}`,
    url,
  ]).toString();
  const toMs = (v: string, unit: string) => Number(v) * (unit === 'us' ? 1e-3 : unit === 's' ? 1e3 : 1);
  const percentile = (p: string) => {
    const m = new RegExp(`^\\s*${p}%\\s+([\\d.]+)(us|ms|s)\\b`, 'm').exec(out);
    if (!m) throw new Error(`wrk output without the ${p}% latency:\n${out}`);
    return toMs(m[1]!, m[2]!);
  };
  // "    Latency   2.31ms    1.02ms   15.12ms   88.00%": average, stdev, max
  const max = /^\s*Latency(?:\s+[\d.]+(?:us|ms|s)){2}\s+([\d.]+)(us|ms|s)/m.exec(out);
  const requests = Number(/(\d+) requests in/.exec(out)?.[1]);
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0);
  if (non2xx > 0 || !requests || !max) throw new Error(`wrk: ${non2xx} non-2xx of ${requests}:\n${out}`);
  const rps = Math.round(Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]));
  return {
    requests,
    rps,
    p50: percentile('50'),
    p90: percentile('90'),
    p99: percentile('99'),
    max: toMs(max[1]!, max[2]!),
  };
}

async function rolloutToFleet() {
  const db = await createPostgresDatabase();
  const server = await startServerProcess(db, { REDIS_URL });
  const { url, token, grpcPort } = server;
  let fleet: Awaited<ReturnType<typeof startSimulatedFleet>> = [];
  try {
    const api = async <Body>(p: string, method = 'GET', body?: unknown) =>
      (
        await fetch(`${url}${p}`, {
          method,
          headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
          body: body ? JSON.stringify(body) : undefined,
        })
      ).json() as Promise<Body>;
    const roots = await fixtureModels(defaultFixturesDir());
    const perModel = Math.ceil(AGENTS / roots.length);
    const connectStarted = Date.now();
    fleet = await startSimulatedFleet({
      controller: `127.0.0.1:${grpcPort}`,
      fixtureRoots: roots,
      perModel,
      reconnect: { jitterWindowMs: 2_000 },
    });
    await until(
      async () =>
        (await api<{ items: RouterSummary[] }>(`/v1/routers?status=online&limit=500`)).items.length ===
          Math.min(500, fleet.length) && fleet.every((r) => r.link.state === 'connected'),
      120_000,
      'fleet online',
    );
    const connectSeconds = (Date.now() - connectStarted) / 1000;
    await api('/v1/profiles/bench', 'PUT', { spec: { l3Rewrite: { ttl: { value: 128 } } } });
    const t0 = Date.now();
    const rollout = await api<RolloutView>('/v1/rollouts', 'POST', {
      profile: 'bench',
      selector: { all: true },
      strategy: { canary: 10, batchSize: 250 },
    });
    const done = await until(
      async () => {
        const r = await api<RolloutView>(`/v1/rollouts/${rollout.id}`);
        return r.state === 'completed' ? r : undefined;
      },
      120_000,
      'rollout completed',
    );
    const seconds = (Date.now() - t0) / 1000;
    return {
      agents: fleet.length,
      batches: done.batchCount,
      applied: done.counts.applied,
      failed: done.counts.failed,
      seconds,
      connectSeconds,
    };
  } finally {
    await stopFleet(fleet);
    await server.stop();
    await db.drop();
  }
}

async function auditChain() {
  const db = await createPostgresDatabase();
  const controller = await startController(
    testConfig(db, { logLevel: 'silent', security: { insecureAgents: true } }),
    silent,
  );
  try {
    // Build a real chain (hashes computed as AuditLog does), written in bulk: the benchmark is the verification.
    let prevHash = GENESIS_HASH;
    const start = Date.now() - EVENTS;
    const batch: Prisma.AuditEventCreateManyInput[] = [];
    const existing = await controller.db.prisma.auditEvent.findFirst({ orderBy: { seq: 'desc' } });
    if (existing) prevHash = existing.hash;
    for (let i = 0; i < EVENTS; i++) {
      const event = {
        id: randomUUID(),
        at: new Date(start + i),
        actor: i % 10 === 0 ? 'token:admin' : `agent:bench:${i % 997}`,
        action: i % 10 === 0 ? 'profile.revised' : 'apply.applied',
        targetType: 'router',
        targetId: `r-${i % 997}`,
        before: null,
        after: { profile: 'bench', revision: 1 + (i % 7), status: 'applied' },
        diff: null,
        requestId: null,
      };
      const hash = eventHash(prevHash, event);
      batch.push({ ...event, before: undefined, diff: undefined, prevHash, hash });
      prevHash = hash;
      if (batch.length === 5000) await controller.db.prisma.auditEvent.createMany({ data: batch.splice(0) });
    }
    if (batch.length) await controller.db.prisma.auditEvent.createMany({ data: batch.splice(0) });
    const t0 = Date.now();
    const verdict = await verifyAuditChain(controller.db.prisma);
    const seconds = (Date.now() - t0) / 1000;
    if (!verdict.ok) throw new Error(`chain did not verify: ${JSON.stringify(verdict.firstBroken)}`);
    return { events: verdict.checked, seconds };
  } finally {
    await controller.close();
    await db.drop();
  }
}

console.log(
  `wrtfleet server benchmarks: ${ROUTERS} routers, ${AGENTS} agents, ${EVENTS} audit events, ${SECONDS}s load per run`,
);
const lists = [
  ...(await listLatency('PostgreSQL', await createPostgresDatabase())),
  ...(await listLatency('PGlite (embedded)', await createPgliteDatabase())),
];
console.log('\nGET /v1/routers?limit=100 (autocannon in this process, controller in its own, loopback; latency in ms)');
console.table(lists);
const rollout = await rolloutToFleet();
console.log(
  `\nrollout to ${rollout.agents} simulated agents over gRPC (PostgreSQL + BullMQ): ${rollout.seconds.toFixed(2)} s, ${rollout.batches} batches, ${rollout.applied} applied, ${rollout.failed} failed (fleet connected in ${rollout.connectSeconds.toFixed(1)} s)`,
);
const chain = await auditChain();
console.log(
  `\naudit chain verification: ${chain.events} events in ${chain.seconds.toFixed(2)} s (${Math.round(chain.events / chain.seconds)} events/s)`,
);
process.exit(0);
