/**
 * Alert evaluation over 10,000 routers on PostgreSQL, in one run so the ratios hold:
 *  1. the controller's CPU per evaluation (process.cpuUsage around `evaluate`, no other load):
 *     a tick with nothing changed, a full evaluation with nothing firing, the evaluation that
 *     fires 3,000 routers of one site and groups them into one notification, and a full
 *     evaluation with those 3,000 firing;
 *  2. the API's latency (GET /v1/routers?limit=100, autocannon in its own process, 10
 *     connections) with the evaluator stopped and with a full evaluation forced every second
 *     (the worst case: production evaluates only when something changed), in alternating rounds.
 *
 * Run: npm run bench:alerts   (knobs: WF_BENCH_ROUTERS, WF_BENCH_OFFLINE, WF_BENCH_SECONDS, WF_BENCH_ROUNDS)
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { pino } from 'pino';
import { startController } from '../../server/controller.js';
import { testConfig } from '../../test/support/controller.js';
import { createPostgresDatabase } from '../../test/support/databases.js';
import { median } from '../statistics.js';

const ROUTERS = Number(process.env.WF_BENCH_ROUTERS ?? 10_000);
const OFFLINE = Number(process.env.WF_BENCH_OFFLINE ?? 3_000);
const SECONDS = Number(process.env.WF_BENCH_SECONDS ?? 10);
const ROUNDS = Number(process.env.WF_BENCH_ROUNDS ?? 3);
const repo = path.resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

const cpuMs = (start: NodeJS.CpuUsage) => {
  const d = process.cpuUsage(start);
  return (d.user + d.system) / 1000;
};

async function measure(times: number, work: () => Promise<unknown>): Promise<{ cpu: number; wall: number }> {
  const cpu: number[] = [];
  const wall: number[] = [];
  for (let i = 0; i < times; i++) {
    const c = process.cpuUsage();
    const t = performance.now();
    await work();
    wall.push(performance.now() - t);
    cpu.push(cpuMs(c));
  }
  return { cpu: median(cpu), wall: median(wall) };
}

async function load(url: string, token: string): Promise<{ p50: number; p99: number; rps: number }> {
  const { stdout } = await run(
    process.execPath,
    [
      path.join(repo, 'node_modules/autocannon/autocannon.js'),
      '-j',
      '-c',
      '10',
      '-d',
      String(SECONDS),
      '-H',
      `authorization=Bearer ${token}`,
      url,
    ],
    { maxBuffer: 64 * 1024 * 1024 },
  );
  const result = JSON.parse(stdout) as {
    latency: { p50: number; p99: number };
    requests: { average: number };
    non2xx: number;
    errors: number;
  };
  if (result.non2xx || result.errors) throw new Error(`${result.non2xx} non-2xx, ${result.errors} errors`);
  return { p50: result.latency.p50, p99: result.latency.p99, rps: result.requests.average };
}

async function main(): Promise<void> {
  const db = await createPostgresDatabase();
  const controller = await startController(
    // No offline sweep: the bench writes the routers' status itself.
    testConfig(db, { heartbeatIntervalSeconds: 3_600, alerts: { evaluateEveryMs: 3_600_000 } }),
    pino({ level: 'silent' }),
  );
  try {
    const evaluator = controller.alerting.evaluator;
    await evaluator.stop();
    const prisma = controller.db.prisma;
    const { secret: token } = await controller.tokens.create({
      name: 'bench',
      owner: 'bench',
      scopes: ['admin'],
      createdBy: 'bench',
    });
    await prisma.alertRule.update({ where: { name: 'router-offline' }, data: { groupWaitSeconds: 0 } });
    await prisma.alertChannel.create({
      data: { name: 'noc', kind: 'webhook', settings: { url: 'http://127.0.0.1:9/hook' }, createdBy: 'bench' },
    });
    const sites = ['fra', 'lon', 'par', 'mad', 'mil', 'vie'];
    const rows = Array.from({ length: ROUTERS }, (_, i) => ({
      name: `r${String(i).padStart(5, '0')}`,
      identity: `bench:${i}`,
      status: 'online' as const,
      lastSeenAt: new Date(),
      tags: [i < OFFLINE ? 'site:ams' : `site:${sites[i % sites.length]}`],
    }));
    for (let i = 0; i < rows.length; i += 2_000) await prisma.router.createMany({ data: rows.slice(i, i + 2_000) });
    await evaluator.evaluate({ force: true }); // warm: plans, the rule cache

    const quiet = await measure(20, () => evaluator.evaluate());
    const fullNone = await measure(10, () => evaluator.evaluate({ force: true }));
    await prisma.router.updateMany({
      where: { tags: { has: 'site:ams' } },
      data: { status: 'offline', lastSeenAt: new Date(Date.now() - 600_000) },
    });
    let outcome: unknown;
    const firing = await measure(1, async () => (outcome = await evaluator.evaluate()));
    const fullFiring = await measure(10, () => evaluator.evaluate({ force: true }));
    const notifications = await prisma.alertNotification.count();

    const url = `${controller.httpUrl}/v1/routers?limit=100`;
    const api: { label: string; p50: number; p99: number; rps: number }[] = [];
    await load(url, token); // warm
    for (let round = 0; round < ROUNDS; round++) {
      api.push({ label: 'evaluator stopped', ...(await load(url, token)) });
      const timer = setInterval(() => void evaluator.evaluate({ force: true }).catch(() => undefined), 1_000);
      try {
        api.push({ label: 'full evaluation every 1 s', ...(await load(url, token)) });
      } finally {
        clearInterval(timer);
      }
    }

    const ms = (x: number) => x.toFixed(1);
    console.log(`\n## Alert evaluation: ${ROUTERS} routers, ${OFFLINE} of one site offline (PostgreSQL)\n`);
    console.log('| evaluation | controller CPU (ms) | wall (ms) |');
    console.log('| --- | ---: | ---: |');
    console.log(`| tick, nothing changed (skipped) | ${ms(quiet.cpu)} | ${ms(quiet.wall)} |`);
    console.log(`| full, nothing firing | ${ms(fullNone.cpu)} | ${ms(fullNone.wall)} |`);
    console.log(
      `| fires ${OFFLINE} + groups them (${JSON.stringify(outcome)}) | ${ms(firing.cpu)} | ${ms(firing.wall)} |`,
    );
    console.log(`| full, ${OFFLINE} firing | ${ms(fullFiring.cpu)} | ${ms(fullFiring.wall)} |`);
    console.log(`\nnotifications created: ${notifications}\n`);
    console.log('| GET /v1/routers?limit=100, 10 connections | p50 (ms) | p99 (ms) | req/s |');
    console.log('| --- | ---: | ---: | ---: |');
    for (const label of ['evaluator stopped', 'full evaluation every 1 s']) {
      const mine = api.filter((a) => a.label === label);
      console.log(
        `| ${label} (median of ${mine.length}) | ${median(mine.map((a) => a.p50))} | ${median(mine.map((a) => a.p99))} | ${Math.round(median(mine.map((a) => a.rps)))} |`,
      );
    }
  } finally {
    await controller.close();
    await db.drop();
  }
}

await main();
