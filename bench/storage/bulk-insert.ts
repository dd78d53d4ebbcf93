/**
 * Prisma's createMany against bulkInsert (server/storage/bulk-insert.ts), side by side on
 * PostgreSQL: controller CPU (user + system of this process) to insert one rollout batch of
 * rows into each table a rollout inserts into per router: AuditEvent and ApplyResult. (Assignments
 * are now upserted in SQL by claimBatch: `npm run -s bench:rollout-batch`.)
 * The rows are shaped as the controller writes them (an apply's evidence, an event's `after`).
 *
 * Run: npm run -s bench:bulk-insert   (knobs: WF_BENCH_ROWS (2500), WF_BENCH_ROUNDS (5))
 */
import { randomUUID } from 'node:crypto';
import { AUDIT_COLUMNS } from '../../server/audit/audit-log.js';
import { APPLY_RESULT_COLUMNS } from '../../server/fleet/router-registry.js';
import { bulkInsert } from '../../server/storage/bulk-insert.js';
import { openDatabase } from '../../server/storage/index.js';
import { createPostgresDatabase } from '../../test/support/databases.js';

const ROWS = Number(process.env.WF_BENCH_ROWS ?? 2_500);
const ROUNDS = Number(process.env.WF_BENCH_ROUNDS ?? 5);

const tdb = await createPostgresDatabase();
const db = await openDatabase({ databaseUrl: tdb.databaseUrl });
const prisma = db.prisma;

const routerIds = Array.from({ length: ROWS }, () => randomUUID());
await prisma.$executeRawUnsafe(
  `INSERT INTO "Router"(id, name, identity, "updatedAt") SELECT x, 'r-' || x, 'i-' || x, now() FROM unnest($1::text[]) x`,
  routerIds,
);

// What an agent reports after applying a plan (shape of agent/apply's evidence, ~600 bytes).
const evidence = {
  planHash: 'c0ffee'.repeat(10),
  datapath: { mode: 'tcx', interfaces: [{ ifname: 'wan', programs: ['set_ip_ttl', 'set_ip_id_zero'] }] },
  offload: { configured: 'software', live: 'software' },
  changes: [
    { path: 'firewall.@defaults[0].flow_offloading', before: '0', after: '1' },
    { path: 'bpf/wan/wf_chain', before: null, after: 'attached (tcx)' },
  ],
  checks: Array.from({ length: 4 }, (_, i) => ({ name: `check-${i}`, ok: true, detail: 'read back as planned' })),
};
const after = { profile: 'bench', revision: 2, status: 'applied', planHash: 'c0ffee'.repeat(10) };

const tables: {
  name: string;
  clear: () => Promise<unknown>;
  prisma: () => Promise<unknown>;
  bulk: () => Promise<unknown>;
}[] = [
  {
    name: 'AuditEvent (one event per result)',
    clear: () => prisma.$executeRawUnsafe('TRUNCATE "AuditEvent"'),
    prisma: () => prisma.auditEvent.createMany({ data: routerIds.map((id) => auditRow(id)) }),
    bulk: () =>
      bulkInsert(
        prisma,
        'AuditEvent',
        AUDIT_COLUMNS,
        routerIds.map((id) => auditRow(id)),
      ),
  },
  {
    name: 'ApplyResult (evidence JSON, skip duplicates)',
    clear: () => prisma.$executeRawUnsafe('TRUNCATE "ApplyResult"'),
    prisma: () =>
      prisma.applyResult.createManyAndReturn({
        data: routerIds.map((id) => resultRow(id)),
        skipDuplicates: true,
        select: { routerId: true, agentResultId: true },
      }),
    bulk: () =>
      bulkInsert(
        prisma,
        'ApplyResult',
        APPLY_RESULT_COLUMNS,
        routerIds.map((id) => ({ id: randomUUID(), ...resultRow(id) })),
        {
          skipDuplicates: true,
          returning: ['routerId', 'agentResultId'],
        },
      ),
  },
];

function auditRow(targetId: string) {
  return {
    id: randomUUID(),
    at: new Date(),
    actor: 'agent:bench',
    action: 'apply.applied',
    targetType: 'router',
    targetId,
    after,
    prevHash: randomUUID(),
    hash: randomUUID(),
  };
}
function resultRow(routerId: string) {
  const now = new Date();
  return {
    routerId,
    status: 'applied' as const,
    evidence,
    startedAt: now,
    finishedAt: now,
    agentResultId: randomUUID(),
  };
}
async function cpuMs(fn: () => Promise<unknown>): Promise<number> {
  const before = process.cpuUsage();
  await fn();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

console.log(`${ROWS} rows per insert, ${ROUNDS} rounds each, alternating; controller CPU, median (min-max)`);
for (const t of tables) {
  const prismaMs: number[] = [];
  const bulkMs: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    await t.clear();
    prismaMs.push(await cpuMs(t.prisma));
    await t.clear();
    bulkMs.push(await cpuMs(t.bulk));
  }
  const fmt = (xs: number[]) =>
    `${median(xs).toFixed(1)} ms (${Math.min(...xs).toFixed(1)}-${Math.max(...xs).toFixed(1)})`;
  console.log(
    `${t.name}: Prisma createMany ${fmt(prismaMs)}, bulkInsert ${fmt(bulkMs)}, ratio ${(median(prismaMs) / median(bulkMs)).toFixed(1)}x`,
  );
}
await db.close();
await tdb.drop();
