/**
 * The fleet as code at fleet scale, on PostgreSQL, in one run: 10,000 routers across 5 sites,
 * one Assignment per site (2,000 routers each) and a rollout policy.
 *  1. POST /v1/plan with everything to create: each router judged with the plan function;
 *  2. POST /v1/apply of the same: 3 resources + 5 assignments + 5 rollouts of 2,000 targets, one transaction;
 *  3. POST /v1/plan again, nothing to do (the routers on their way in the rollouts);
 *  4. a one-field profile change planned: every router's plan computed again.
 * Each: wall and controller CPU (median of WF_BENCH_RUNS), the answer's size, the heap's growth.
 *
 * Run: npm run bench:intent   (knobs: WF_BENCH_ROUTERS, WF_BENCH_RUNS)
 */
import { pino } from 'pino';
import { startController } from '../../server/controller.js';
import { injectedFetch, testConfig } from '../../test/support/controller.js';
import { createPostgresDatabase } from '../../test/support/databases.js';
import { median } from '../statistics.js';

const ROUTERS = Number(process.env.WF_BENCH_ROUTERS ?? 10_000);
const RUNS = Number(process.env.WF_BENCH_RUNS ?? 5);
const SITES = ['ams', 'fra', 'lon', 'par', 'mad'];

const doc = (kind: string, name: string, spec: unknown) => ({
  apiVersion: 'wrtfleet/v1',
  kind,
  metadata: { name },
  spec,
});
const files = (ttl: number) => [
  doc('Profile', 'home', { l3Rewrite: { ttl: { value: ttl } }, flowOffload: { mode: 'auto' } }),
  doc('RolloutPolicy', 'careful', { canary: 1, batchSize: 200, maxFailureRatio: 0.05 }),
  ...SITES.map((site) =>
    doc('Assignment', `${site}-home`, {
      selector: { tags: [`site:${site}`] },
      profile: 'home',
      rolloutPolicy: 'careful',
    }),
  ),
];

async function main(): Promise<void> {
  const db = await createPostgresDatabase();
  const controller = await startController(
    testConfig(db, { heartbeatIntervalSeconds: 3_600 }),
    pino({ level: 'silent' }),
    {
      listen: false,
    },
  );
  try {
    const { secret } = await controller.tokens.create({
      name: 'bench',
      owner: 'bench',
      scopes: ['admin'],
      createdBy: 'bench',
    });
    const api = injectedFetch(controller.http, secret);
    const rows = Array.from({ length: ROUTERS }, (_, i) => ({
      name: `r${String(i).padStart(5, '0')}`,
      identity: `bench:${i}`,
      status: 'offline' as const,
      tags: [`site:${SITES[i % SITES.length]}`],
      soc: 'MT7621',
      arch: 'mipsel_24kc',
      kernel: '5.15.150',
      endian: 'little',
      openwrtRelease: '23.05.3',
    }));
    for (let i = 0; i < rows.length; i += 2_000)
      await controller.db.prisma.router.createMany({ data: rows.slice(i, i + 2_000) });

    const call = async (path: string, body: unknown) => {
      const c = process.cpuUsage();
      const t = performance.now();
      const res = await api(path, { method: 'POST', body });
      const wall = performance.now() - t;
      const d = process.cpuUsage(c);
      if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
      return { wall, cpu: (d.user + d.system) / 1000, bytes: JSON.stringify(res.body).length, body: res.body };
    };
    const repeat = async (label: string, path: string, body: unknown) => {
      global.gc?.();
      const heap = process.memoryUsage().heapUsed;
      const runs = [];
      for (let i = 0; i < RUNS; i++) runs.push(await call(path, body));
      global.gc?.();
      const grown = (process.memoryUsage().heapUsed - heap) / 2 ** 20;
      return {
        label,
        wall: median(runs.map((r) => r.wall)),
        cpu: median(runs.map((r) => r.cpu)),
        kib: runs[0]!.bytes / 1024,
        grown,
        changes: (runs[0]!.body as { changes: number }).changes,
      };
    };

    await call('/v1/plan', { documents: files(65) }); // warm: schemas compiled, plans cached by the JIT
    const results = [await repeat('plan: everything to create', '/v1/plan', { documents: files(65) })];
    const applied = await call('/v1/apply', { documents: files(65), source: 'bench' });
    const rollouts = (applied.body as { rollouts: { routers: number }[] }).rollouts;
    results.push({
      label: `apply: ${rollouts.length} rollouts, ${rollouts.reduce((n, r) => n + r.routers, 0)} targets`,
      wall: applied.wall,
      cpu: applied.cpu,
      kib: applied.bytes / 1024,
      grown: 0,
      changes: (applied.body as { plan: { changes: number } }).plan.changes,
    });
    results.push(await repeat('plan: nothing to do', '/v1/plan', { documents: files(65) }));
    results.push(await repeat('plan: the profile changed', '/v1/plan', { documents: files(64) }));

    console.log(`\n## The fleet as code: ${ROUTERS} routers, ${SITES.length} assignments (PostgreSQL)\n`);
    console.log('| step | changes | wall (ms) | controller CPU (ms) | answer (KiB) | heap kept after GC (MiB) |');
    console.log('| --- | ---: | ---: | ---: | ---: | ---: |');
    for (const r of results)
      console.log(
        `| ${r.label} | ${r.changes} | ${r.wall.toFixed(0)} | ${r.cpu.toFixed(0)} | ${r.kib.toFixed(0)} | ${r.grown.toFixed(1)} |`,
      );
    console.log(`\nmedian of ${RUNS} runs each (apply: one run); Node ${process.version}`);
  } finally {
    await controller.close();
    await db.drop();
  }
}

await main();
