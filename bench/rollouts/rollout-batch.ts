/**
 * A rollout batch's two set-wise steps on the controller, in SQL as they run now beside the
 * Prisma queries they replaced (kept below; the assignments' insert was already bulkInsert): claiming the batch (targets, assignments, desired
 * revisions) and reading the batch's desired states for delivery. Controller CPU (user + system
 * of this process) per batch, on PostgreSQL, rounds alternating the two.
 *
 * Run: npm run -s bench:rollout-batch   (knobs: WF_BENCH_ROUTERS (2500), WF_BENCH_ROUNDS (7))
 */
import { randomUUID } from 'node:crypto';
import { Prisma, type PrismaClient } from '../../prisma/generated/client/client.js';
import { DEFAULT_PROFILE_SPEC } from '../../core/profile-spec.js';
import { desiredStatesOf } from '../../server/rollouts/desired-state.js';
import { claimBatch, onlyWaitingForResults, type BatchToClaim } from '../../server/rollouts/rollout-targets.js';
import { waitingTargets } from '../../server/rollouts/target-outcomes.js';
import { bulkInsert } from '../../server/storage/bulk-insert.js';
import { openDatabase } from '../../server/storage/index.js';
import { createPostgresDatabase } from '../../test/support/databases.js';
import { median } from '../statistics.js';

const ROUTERS = Number(process.env.WF_BENCH_ROUTERS ?? 2_500);
const ROUNDS = Number(process.env.WF_BENCH_ROUNDS ?? 7);

/** claimBatch as it was, in Prisma's set-wise calls (one claim per state, three assignment writes, the routers). */
async function prismaClaimBatch(db: PrismaClient, batch: BatchToClaim) {
  const { rolloutId, revisionId, profileId, revisionNumber, routers } = batch;
  const now = new Date();
  const online = routers.filter((r) => r.status === 'online' && !r.decommissionedAt).map((r) => r.id);
  const offline = routers.filter((r) => r.status !== 'online' || r.decommissionedAt).map((r) => r.id);
  const eligible = new Set(routers.filter((r) => !r.decommissionedAt).map((r) => r.id));
  return db.$transaction(async (tx) => {
    const sent = online.length
      ? await tx.rolloutTarget.updateManyAndReturn({
          where: { rolloutId, routerId: { in: online }, state: 'queued' },
          data: { state: 'sent', sentAt: now },
          select: { routerId: true },
        })
      : [];
    const skipped = offline.length
      ? await tx.rolloutTarget.updateManyAndReturn({
          where: { rolloutId, routerId: { in: offline }, state: 'queued' },
          data: { state: 'skipped', error: 'offline: gets the revision when it reconnects', finishedAt: now },
          select: { routerId: true },
        })
      : [];
    const claimed = [...sent, ...skipped].map((t) => t.routerId).filter((id) => eligible.has(id));
    await tx.assignment.updateMany({
      where: { routerId: { in: claimed }, profileId },
      data: { pinnedRevision: revisionNumber },
    });
    await tx.assignment.updateMany({
      where: { routerId: { in: claimed }, NOT: { profileId } },
      data: { profileId, pinnedRevision: revisionNumber, overrides: Prisma.DbNull },
    });
    await bulkInsert(
      tx,
      'Assignment',
      { id: 'text', routerId: 'text', profileId: 'text', pinnedRevision: 'integer', updatedAt: 'timestamptz' },
      claimed.map((routerId) => ({
        id: randomUUID(),
        routerId,
        profileId,
        pinnedRevision: revisionNumber,
        updatedAt: now,
      })),
      { skipDuplicates: true },
    );
    await tx.router.updateMany({
      where: { id: { in: claimed } },
      data: { desiredRevisionId: revisionId, desiredRolloutId: rolloutId },
    });
    return { sent, skipped };
  });
}

/** The desired-state read as it was: Prisma's findMany with the revision, profile and assignment included. */
function prismaDesiredStates(db: PrismaClient, routerIds: string[]) {
  return db.router.findMany({
    where: { id: { in: routerIds } },
    select: { id: true, desiredRolloutId: true, desiredRevision: { include: { profile: true } }, assignment: true },
  });
}

/** finishTargets' read as it was: the targets waiting for a burst's routers, the rollout joined by Prisma. */
function prismaWaitingTargets(db: PrismaClient, routerIds: string[]) {
  return db.rolloutTarget.findMany({
    where: {
      routerId: { in: routerIds },
      state: { in: ['sent', 'skipped'] },
      rollout: { state: { in: ['running', 'paused'] } },
    },
    select: { rolloutId: true, routerId: true, state: true, rollout: { select: { revisionId: true } } },
  });
}

/**
 * What an advance read before it found the batch still waiting (rollout-engine.ts's step): the
 * rollout with its revision and profile, the overdue targets failed, the batch's queued targets
 * with their routers, and those in flight counted.
 */
async function prismaAdvanceReads(db: PrismaClient, rolloutId: string) {
  const rollout = await db.rollout.findUnique({
    where: { id: rolloutId },
    include: { revision: { include: { profile: true } } },
  });
  if (!rollout) throw new Error('no rollout');
  await db.rolloutTarget.updateMany({
    where: { rolloutId, state: 'sent', sentAt: { lt: new Date(Date.now() - 180_000) } },
    data: { state: 'failed', error: 'no apply result within 180 s', finishedAt: new Date() },
  });
  const pending = await db.rolloutTarget.findMany({
    where: { rolloutId, batch: rollout.currentBatch, state: 'queued' },
    include: { router: { select: { id: true, status: true, decommissionedAt: true } } },
  });
  const inFlight = await db.rolloutTarget.count({ where: { rolloutId, batch: rollout.currentBatch, state: 'sent' } });
  return pending.length === 0 && inFlight > 0;
}

const tdb = await createPostgresDatabase();
const db = await openDatabase({ databaseUrl: tdb.databaseUrl });
const prisma = db.prisma;
const routerIds = Array.from({ length: ROUTERS }, () => randomUUID());
// Every tenth router offline, every other one assigned to another profile with overrides: both
// claims and all three assignment writes have rows to do.
await prisma.$executeRawUnsafe(
  `INSERT INTO "Router"(id, name, identity, status, "updatedAt")
   SELECT x, 'r-' || x, 'i-' || x, (CASE WHEN n % 10 = 0 THEN 'offline' ELSE 'online' END)::"ConnectionStatus", now()
     FROM unnest($1::text[]) WITH ORDINALITY AS u(x, n)`,
  routerIds,
);
const spec = DEFAULT_PROFILE_SPEC as object;
const profiles = await Promise.all(
  ['bench-a', 'bench-b'].map((name) => prisma.profile.create({ data: { name, latestRevision: 1 } })),
);
const revisions = await Promise.all(
  profiles.map((p) =>
    prisma.profileRevision.create({ data: { profileId: p.id, number: 1, spec, createdBy: 'bench' } }),
  ),
);
const routers = await prisma.router.findMany({ select: { id: true, status: true, decommissionedAt: true } });

/** A new rollout of profile `i` (alternating, so assignments move each round) with every router queued. */
async function newBatch(i: number): Promise<BatchToClaim> {
  const revision = revisions[i % 2]!;
  // One rollout running at a time, as the engine would have it: each router waits in one.
  await prisma.rollout.updateMany({ where: { state: 'running' }, data: { state: 'completed' } });
  const rollout = await prisma.rollout.create({
    data: { revisionId: revision.id, selector: {}, strategy: {}, batchCount: 1, createdBy: 'bench', state: 'running' },
  });
  await prisma.$executeRawUnsafe(
    `INSERT INTO "RolloutTarget"("rolloutId", "routerId", batch, "updatedAt") SELECT $1, x, 0, now() FROM unnest($2::text[]) x`,
    rollout.id,
    routerIds,
  );
  return { rolloutId: rollout.id, revisionId: revision.id, profileId: revision.profileId, revisionNumber: 1, routers };
}

/** Controller CPU; the wall time (PostgreSQL's work and the round trips with it) goes to `walls`. */
async function cpuMs(fn: () => Promise<unknown>, walls: number[]): Promise<number> {
  const before = process.cpuUsage();
  const start = performance.now();
  await fn();
  walls.push(performance.now() - start);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

type Measures = Record<'prisma' | 'sql', { cpu: number[]; wall: number[] }>;
const measures = (): Measures => ({ prisma: { cpu: [], wall: [] }, sql: { cpu: [], wall: [] } });
const claim = measures();
const read = measures();
const finish = measures();
const advance = measures();
/** A burst of results as the registry passes them on (APPLY_BATCH_MAX). */
const burst = routerIds.slice(0, 500);
const scratch: number[] = [];
// One warm-up round, not counted.
for (let round = -1, i = 0; round < ROUNDS; round++) {
  const counted = (m: Measures, way: keyof Measures) => (round < 0 ? scratch : m[way].wall);
  const [first, second] = [await newBatch(i++), await newBatch(i++)];
  const prismaClaim = await cpuMs(() => prismaClaimBatch(prisma, first), counted(claim, 'prisma'));
  const sqlClaim = await cpuMs(() => claimBatch(prisma, second), counted(claim, 'sql'));
  const prismaRead = await cpuMs(() => prismaDesiredStates(prisma, routerIds), counted(read, 'prisma'));
  const sqlRead = await cpuMs(() => desiredStatesOf(prisma, routerIds), counted(read, 'sql'));
  const prismaFinish = await cpuMs(() => prismaWaitingTargets(prisma, burst), counted(finish, 'prisma'));
  const sqlFinish = await cpuMs(() => waitingTargets(prisma, burst), counted(finish, 'sql'));
  const prismaAdvance = await cpuMs(() => prismaAdvanceReads(prisma, second.rolloutId), counted(advance, 'prisma'));
  const sqlAdvance = await cpuMs(
    () => onlyWaitingForResults(prisma, second.rolloutId, Date.now()),
    counted(advance, 'sql'),
  );
  if (round < 0) continue;
  claim.prisma.cpu.push(prismaClaim);
  claim.sql.cpu.push(sqlClaim);
  read.prisma.cpu.push(prismaRead);
  read.sql.cpu.push(sqlRead);
  finish.prisma.cpu.push(prismaFinish);
  finish.sql.cpu.push(sqlFinish);
  advance.prisma.cpu.push(prismaAdvance);
  advance.sql.cpu.push(sqlAdvance);
}
// Each pair must agree: what each router is to be sent, which targets a burst finishes, and
// that the batch just claimed waits for its results.
const last = (await prisma.rollout.findFirstOrThrow({ where: { state: 'running' } })).id;
if (!(await prismaAdvanceReads(prisma, last)) || !(await onlyWaitingForResults(prisma, last, Date.now())))
  throw new Error('the batch just claimed should be waiting for its results');
const waiting = (rows: { rolloutId: string; routerId: string; state: string; revisionId: string }[]) =>
  rows.map((t) => `${t.rolloutId} ${t.routerId} ${t.state} ${t.revisionId}`).sort();
const prismaWaiting = (await prismaWaitingTargets(prisma, burst)).map((t) => ({
  ...t,
  revisionId: t.rollout.revisionId ?? '',
}));
if (
  prismaWaiting.length === 0 ||
  JSON.stringify(waiting(prismaWaiting)) !== JSON.stringify(waiting(await waitingTargets(prisma, burst)))
)
  throw new Error('the two reads of waiting targets disagree');
const a = await prismaDesiredStates(prisma, routerIds);
const b = new Map((await desiredStatesOf(prisma, routerIds)).map((r) => [r.id, r]));
for (const r of a) {
  const s = b.get(r.id);
  if (s?.desiredRevision?.id !== r.desiredRevision?.id || s?.assignment?.profileId !== r.assignment?.profileId)
    throw new Error(`the two reads disagree on router ${r.id}`);
}

const fmt = (xs: number[]) =>
  `${median(xs).toFixed(1)} ms (${Math.min(...xs).toFixed(1)}-${Math.max(...xs).toFixed(1)})`;
const report = (name: string, m: Measures) =>
  console.log(
    `${name}: controller CPU Prisma ${fmt(m.prisma.cpu)}, SQL ${fmt(m.sql.cpu)}, ratio ${(median(m.prisma.cpu) / median(m.sql.cpu)).toFixed(1)}x;` +
      ` wall Prisma ${fmt(m.prisma.wall)}, SQL ${fmt(m.sql.wall)}`,
  );
console.log(`${ROUTERS} routers per batch, ${ROUNDS} rounds alternating; median (min-max)`);
report('claim a batch', claim);
report("read the batch's desired states", read);
report(`find the targets a burst of ${burst.length} results finishes`, finish);
report('an advance finding the batch still waiting', advance);
await db.close();
await tdb.drop();
