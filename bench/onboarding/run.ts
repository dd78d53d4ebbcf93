/**
 * `npm run bench:onboarding`: bulk onboarding of namespace routers.
 *
 * N routers (default 50), each its own network namespace running Debian's sshd
 * (test/support/ssh-router.ts: a /30 on a veth to this host, a WAN veth to a peer namespace;
 * no address outside the veths created here), a real controller (`startController` on a
 * fresh PostgreSQL database, mutual TLS for agents), and the operator's path:
 * `wrtfleet onboard --inventory FILE.csv --concurrency C` (the CLI as a separate process,
 * POST /v1/onboarding per router, following each job), placement proxy (the
 * controller-hosted proxy: one RouterAgent over SSH per router, enrolled through the real
 * enrollment path, then a Hello over mTLS). `--via api` posts and polls from this process
 * instead of spawning the CLI.
 *
 * Measured: wall time from the first request to the last router's Hello (the
 * `onboarding.hello_received` audit event), and to the last job's end; per router, request →
 * Hello and job created → finished (p50, p95, max). Router setup and teardown are not timed.
 * Everything created here (namespaces, veths, sshd processes, the database, scratch files)
 * is removed at the end, also on failure or Ctrl-C.
 *
 *   npm run bench:onboarding -- [--routers 50] [--concurrency 10] [--via cli|api] [--json]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { startController, type Controller } from '../../server/controller.js';
import { authedFetch, testConfig } from '../../test/support/controller.js';
import { createPostgresDatabase, type TestDatabase } from '../../test/support/databases.js';
import { SshRouter } from '../../test/support/ssh-router.js';
import { nearestRankPercentile } from '../statistics.js';

const { values: args } = parseArgs({
  options: {
    routers: { type: 'string', default: '50' },
    concurrency: { type: 'string', default: '10' },
    via: { type: 'string', default: 'cli' },
    json: { type: 'boolean', default: false },
  },
});
const N = Number(args.routers);
const C = Number(args.concurrency);
if (!Number.isInteger(N) || N < 1 || N > 240) throw new Error('--routers must be 1..240 (one 10.200.N.0/30 each)');
if (!Number.isInteger(C) || C < 1) throw new Error('--concurrency must be a positive integer');
if (args.via !== 'cli' && args.via !== 'api') throw new Error('--via must be cli or api');

const log = (m: string) => console.error(`[bench:onboarding] ${m}`);
const scratch = mkdtempSync(join(tmpdir(), 'wf-bench-onb-'));
const routers: SshRouter[] = [];
let db: TestDatabase | undefined;
let controller: Controller | undefined;
let cleaning: Promise<void> | undefined;

function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    await controller?.close().catch((e: unknown) => log(`controller close: ${(e as Error).message}`));
    // Sequentially: each stop kills that namespace's processes and deletes its namespaces and veth.
    for (const r of routers) await r.stop().catch((e: unknown) => log(`router ${r.id} stop: ${(e as Error).message}`));
    await db?.drop().catch((e: unknown) => log(`database drop: ${(e as Error).message}`));
    rmSync(scratch, { recursive: true, force: true });
  })();
  return cleaning;
}
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.once(sig, () => {
    log(`${sig}: cleaning up`);
    void cleanup().finally(() => process.exit(130));
  });
}

async function pool<T>(items: T[], width: number, fn: (item: T, i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        await fn(items[i]!, i);
      }
    }),
  );
}

const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

async function main(): Promise<void> {
  // 1. Routers (not timed). Ten at a time: each start is a dozen `ip` calls, two ssh-keygen and an sshd.
  const setupStart = Date.now();
  for (let i = 0; i < N; i++) routers.push(new SshRouter());
  await pool(routers, 10, (r) => r.start());
  log(`${N} namespace routers with sshd up in ${s(Date.now() - setupStart)}`);

  // 2. Controller on PostgreSQL, mutual TLS for agents.
  db = await createPostgresDatabase();
  controller = await startController(
    testConfig(db, { security: { insecureAgents: false }, heartbeatIntervalSeconds: 5 }),
    pino({ level: 'silent' }),
    {
      onboarding: { helloTimeoutMs: 120_000, sshConnectTimeoutMs: 10_000 },
    },
  );
  const { secret } = await controller.tokens.create({
    name: 'bench',
    owner: 'bench',
    scopes: ['write'],
    createdBy: 'bench',
  });
  const api = authedFetch(controller.httpUrl, secret);
  const rssBefore = process.memoryUsage().rss;

  // 3. Inventory: one password file per router (never inline), placement proxy.
  const lines = ['host,user,passwordFile,tags,placement,identity'];
  routers.forEach((r, i) => {
    const pw = join(scratch, `pw-${i}`);
    writeFileSync(pw, `${r.password}\n`, { mode: 0o600 });
    lines.push(`${r.addr.router},root,${pw},bench:onboarding,proxy,bench-onb:${String(i).padStart(3, '0')}`);
  });
  const inventory = join(scratch, 'inventory.csv');
  writeFileSync(inventory, `${lines.join('\n')}\n`);

  // 4. The run.
  const t0 = new Date();
  let summary: {
    total: number;
    succeeded: number;
    failed: number;
    results: { host: string; state: string; reason: string | null }[];
  };
  if (args.via === 'cli') {
    const child = spawn(
      'node',
      [
        'cli/bin.mjs',
        '--url',
        controller.httpUrl,
        '--token',
        secret,
        '--json',
        'onboard',
        '--inventory',
        inventory,
        '--concurrency',
        String(C),
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += String(d)));
    child.stderr.on('data', (d) => (err += String(d)));
    const code = await new Promise<number | null>((res) => child.on('exit', res));
    try {
      summary = JSON.parse(out);
    } catch {
      throw new Error(`wrtfleet onboard exited ${code} without a JSON summary: ${err.slice(-2000)}`);
    }
  } else {
    const results: { host: string; state: string; reason: string | null }[] = [];
    await pool(routers, C, async (r, i) => {
      const res = await api('/v1/onboarding', {
        method: 'POST',
        body: {
          host: r.addr.router,
          user: 'root',
          password: r.password,
          placement: 'proxy',
          tags: ['bench:onboarding'],
          identity: `bench-onb:${String(i).padStart(3, '0')}`,
        },
      });
      if (res.status !== 202)
        return void results.push({
          host: r.addr.router,
          state: 'failed',
          reason: `HTTP ${res.status}: ${JSON.stringify(res.body)}`,
        });
      for (;;) {
        const j = (await api(`/v1/jobs/${res.body.jobId}`)).body;
        if (['succeeded', 'failed', 'cancelled'].includes(j.state))
          return void results.push({ host: r.addr.router, state: j.state, reason: j.error ?? j.message });
        await new Promise((res2) => setTimeout(res2, 100));
      }
    });
    const ok = results.filter((x) => x.state === 'succeeded').length;
    summary = { total: N, succeeded: ok, failed: N - ok, results };
  }
  const tEnd = Date.now();

  // 5. Numbers, from the controller's own records.
  const prisma = controller.db.prisma;
  const jobs = await prisma.job.findMany({
    where: { kind: 'onboarding', createdAt: { gte: t0 } },
    select: { id: true, createdAt: true, finishedAt: true, state: true },
  });
  const hellos = await prisma.auditEvent.findMany({
    where: { action: 'onboarding.hello_received', targetId: { in: jobs.map((j) => j.id) } },
    select: { targetId: true, at: true },
  });
  const helloAt = new Map(hellos.map((h) => [h.targetId, h.at.getTime()]));
  const perHello = jobs
    .filter((j) => helloAt.has(j.id))
    .map((j) => helloAt.get(j.id)! - j.createdAt.getTime())
    .sort((a, b) => a - b);
  const perJob = jobs
    .filter((j) => j.finishedAt)
    .map((j) => j.finishedAt!.getTime() - j.createdAt.getTime())
    .sort((a, b) => a - b);
  const lastHello = Math.max(...hellos.map((h) => h.at.getTime()));
  const online = await prisma.router.count({ where: { identity: { startsWith: 'bench-onb:' }, status: 'online' } });
  const result = {
    routers: N,
    concurrency: C,
    via: args.via === 'cli' ? 'wrtfleet onboard --inventory (CLI process)' : 'POST /v1/onboarding + polling',
    placement: 'proxy (controller-hosted)',
    succeeded: summary.succeeded,
    failed: summary.failed,
    helloCount: hellos.length,
    onlineAfter: online,
    wallToLastHelloSeconds: hellos.length ? (lastHello - t0.getTime()) / 1000 : null,
    wallToLastJobEndSeconds: (tEnd - t0.getTime()) / 1000,
    perRouterRequestToHello: {
      p50: nearestRankPercentile(perHello, 50) / 1000,
      p95: nearestRankPercentile(perHello, 95) / 1000,
      max: perHello.at(-1)! / 1000,
    },
    perRouterJob: {
      p50: nearestRankPercentile(perJob, 50) / 1000,
      p95: nearestRankPercentile(perJob, 95) / 1000,
      max: perJob.at(-1)! / 1000,
    },
    controllerRssMiB: {
      before: Math.round(rssBefore / 2 ** 20),
      after: Math.round(process.memoryUsage().rss / 2 ** 20),
    },
    proxyAgents: controller.onboarding.proxies.size,
    failures: summary.results.filter((x) => x.state !== 'succeeded').slice(0, 10),
  };
  if (args.json) console.log(JSON.stringify(result, null, 2));
  else {
    console.log(
      `${result.succeeded}/${N} onboarded (${result.via}, concurrency ${C}, placement proxy, mTLS, PostgreSQL)`,
    );
    console.log(
      `wall: last Hello ${result.wallToLastHelloSeconds?.toFixed(1)} s after the first request, last job end ${result.wallToLastJobEndSeconds.toFixed(1)} s (target ≤ 60 s)`,
    );
    console.log(
      `per router, request → Hello: p50 ${result.perRouterRequestToHello.p50.toFixed(2)} s, p95 ${result.perRouterRequestToHello.p95.toFixed(2)} s, max ${result.perRouterRequestToHello.max.toFixed(2)} s`,
    );
    console.log(
      `per router, job created → finished: p50 ${result.perRouterJob.p50.toFixed(2)} s, p95 ${result.perRouterJob.p95.toFixed(2)} s, max ${result.perRouterJob.max.toFixed(2)} s`,
    );
    console.log(
      `controller process RSS ${result.controllerRssMiB.before} → ${result.controllerRssMiB.after} MiB with ${result.proxyAgents} proxy agents; ${online} routers online`,
    );
    for (const f of result.failures) console.log(`FAILED ${f.host}: ${f.reason}`);
  }
  if (summary.succeeded !== N) process.exitCode = 1;
}

try {
  await main();
} catch (err) {
  log(`failed: ${(err as Error).stack ?? String(err)}`);
  process.exitCode = 1;
} finally {
  await cleanup();
}
