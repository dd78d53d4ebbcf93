import type { Prisma, PrismaClient } from '../../prisma/generated/client/client.js';
import { bulkInsert, type ColumnType } from '../storage/bulk-insert.js';
import { idRows } from '../storage/id-rows.js';
import { DEFAULT_STRATEGY, type Strategy } from './rollout-strategy.js';

/** A rollout's targets: created, claimed a batch at a time for sending, and waited on. */

const TARGET_COLUMNS: Record<string, ColumnType> = {
  rolloutId: 'text',
  routerId: 'text',
  batch: 'integer',
  updatedAt: 'timestamptz',
};

const LEFT_OUT_COLUMNS: Record<string, ColumnType> = {
  ...TARGET_COLUMNS,
  state: '"RolloutTargetState"',
  error: 'text',
  finishedAt: 'timestamptz',
};

/** The batch of a router the rollout leaves out from the start (the plan refused it): before the first. */
export const LEFT_OUT_BATCH = -1;

/**
 * Every target of a new rollout in one statement however many routers it has: queued, and
 * those `leftOut` (the plan refused them) `skipped` with the reason, in batch -1, never sent.
 */
export async function insertTargets(
  tx: Prisma.TransactionClient,
  rolloutId: string,
  targets: { routerId: string; batch: number }[],
  leftOut: { routerId: string; reason: string }[] = [],
  /** Why a router is left out, before its reason. */
  leftOutBecause = 'the plan refuses it',
): Promise<void> {
  const now = new Date();
  await bulkInsert(
    tx,
    'RolloutTarget',
    TARGET_COLUMNS,
    targets.map((t) => ({ rolloutId, ...t, updatedAt: now })),
  );
  if (leftOut.length)
    await bulkInsert(
      tx,
      'RolloutTarget',
      LEFT_OUT_COLUMNS,
      leftOut.map((t) => ({
        rolloutId,
        routerId: t.routerId,
        batch: LEFT_OUT_BATCH,
        state: 'skipped',
        error: `left out, ${leftOutBecause}: ${t.reason}`,
        finishedAt: now,
        updatedAt: now,
      })),
    );
}

export interface BatchToClaim {
  rolloutId: string;
  revisionId: string;
  profileId: string;
  revisionNumber: number;
  /** The batch's queued targets' routers. */
  routers: { id: string; status: string; decommissionedAt: Date | null }[];
}

/**
 * Claims a batch's queued targets in one transaction: online routers become `sent`, the others
 * `skipped`, and every router claimed gets the revision as its desired state and assignment;
 * each target keeps what they were before (an abort gives them back: `abort-release.ts`).
 * Returns what this call claimed; nothing when another advance claimed the batch first.
 *
 * Two statements in SQL whatever the batch's size, each given its routers as one JSON
 * parameter (as bulkInsert does). Why: Prisma's six calls cost the controller several times the
 * CPU; measured in docs/BENCHMARKS.md#rollout-batch.
 */
export async function claimBatch(db: PrismaClient, batch: BatchToClaim) {
  const { rolloutId, revisionId, profileId, revisionNumber, routers } = batch;
  const now = new Date();
  const online = new Set(routers.filter((r) => r.status === 'online' && !r.decommissionedAt).map((r) => r.id));
  const eligible = new Set(routers.filter((r) => !r.decommissionedAt).map((r) => r.id));
  return db.$transaction(
    async (tx) => {
      // The targets are claimed first: an advance running at the same time (a sweep, a job run
      // again after Redis returned) waits here for this commit and then finds nothing queued,
      // so it neither writes the same routers (two such writers can deadlock) nor publishes
      // them again (a router told twice applies twice). Offline routers are skipped: they keep
      // the revision as their desired state and get it when they reconnect.
      const [claimedRows] = await tx.$queryRaw<[{ sent: string[] | null; skipped: string[] | null }]>`
        WITH claimed AS (
          UPDATE "RolloutTarget" AS t
             SET state = (CASE WHEN b.online THEN 'sent' ELSE 'skipped' END)::"RolloutTargetState",
                 "sentAt" = CASE WHEN b.online THEN ${now}::timestamptz END,
                 error = CASE WHEN b.online THEN NULL ELSE ${OFFLINE_SKIP} END,
                 "finishedAt" = CASE WHEN b.online THEN NULL ELSE ${now}::timestamptz END,
                 "updatedAt" = ${now}::timestamptz
            FROM jsonb_to_recordset(${JSON.stringify(routers.map((r) => ({ id: r.id, online: online.has(r.id) })))}::jsonb)
                   AS b(id text, online boolean)
           WHERE t."rolloutId" = ${rolloutId} AND t."routerId" = b.id AND t.state = 'queued'
          RETURNING t."routerId", b.online
        )
        SELECT array_agg("routerId") FILTER (WHERE online) AS sent,
               array_agg("routerId") FILTER (WHERE NOT online) AS skipped
          FROM claimed`;
      const sent = claimedRows.sent ?? [];
      const skipped = claimedRows.skipped ?? [];
      const claimed = [...sent, ...skipped].filter((id) => eligible.has(id));
      if (claimed.length) {
        // The router's assignment follows the rollout; its overrides survive if the profile
        // stays. Created where the router had none. The targets note the desired state and
        // assignment from before: every part of one statement reads the same snapshot, so
        // `prior` sees the rows as they were before `assigned` and the UPDATE change them.
        await tx.$executeRaw`
          WITH prior AS (
            UPDATE "RolloutTarget" AS t
               SET "desiredSetAt" = ${now}::timestamptz,
                   "priorDesiredRevisionId" = r."desiredRevisionId",
                   "priorDesiredRolloutId" = r."desiredRolloutId",
                   "priorAssignment" = (
                     SELECT jsonb_build_object('profileId', a."profileId", 'pinnedRevision', a."pinnedRevision",
                                               'overrides', a.overrides)
                       FROM "Assignment" a WHERE a."routerId" = r.id)
              FROM "Router" r
             WHERE t."rolloutId" = ${rolloutId} AND t."routerId" = r.id AND r.id IN ${idRows(claimed)}
          ), assigned AS (
            INSERT INTO "Assignment" (id, "routerId", "profileId", "pinnedRevision", "updatedAt")
            SELECT gen_random_uuid()::text, c.id, ${profileId}, ${revisionNumber}, ${now}::timestamptz
              FROM ${idRows(claimed)} AS c(id)
            ON CONFLICT ("routerId") DO UPDATE
               SET "pinnedRevision" = EXCLUDED."pinnedRevision",
                   overrides = CASE WHEN "Assignment"."profileId" = EXCLUDED."profileId"
                                    THEN "Assignment".overrides END,
                   "profileId" = EXCLUDED."profileId",
                   "updatedAt" = EXCLUDED."updatedAt"
          )
          UPDATE "Router"
             SET "desiredRevisionId" = ${revisionId}, "desiredRolloutId" = ${rolloutId}, "updatedAt" = ${now}::timestamptz
           WHERE id IN ${idRows(claimed)}`;
      }
      return { sent: sent.map((routerId) => ({ routerId })), skipped: skipped.map((routerId) => ({ routerId })) };
    },
    { maxWait: 30_000, timeout: 60_000 },
  );
}

const OFFLINE_SKIP = 'offline: gets the revision when it reconnects';

/**
 * Claims, at most once per target, the sent targets still without a result after `olderThan`:
 * their desired state is to be published again. The replica that claimed a batch may have died
 * before publishing it, and a router whose stream another replica holds then hears of the
 * revision only on its next reconnection, which may never come. The claim, as with a batch,
 * keeps two replicas' sweeps from publishing the same router twice.
 */
export async function claimRedeliveries(db: PrismaClient, rolloutId: string, olderThan: Date): Promise<string[]> {
  const claimed = await db.rolloutTarget.updateManyAndReturn({
    where: { rolloutId, state: 'sent', sentAt: { lt: olderThan }, redeliveredAt: null },
    data: { redeliveredAt: new Date() },
    select: { routerId: true },
  });
  return claimed.map((t) => t.routerId);
}

/**
 * Whether the rollout's current batch only waits for results: the rollout running, nothing of
 * nothing of the batch queued, something sent, and nothing sent longer ago than the result timeout. An
 * advance then has nothing to do. Every burst of results asks for one, so this is answered in
 * one query. Why: the full step's seven reads cost ten times the CPU per advance; measured in
 * docs/BENCHMARKS.md#rollout-batch.
 */
export async function onlyWaitingForResults(db: PrismaClient, rolloutId: string, now: number): Promise<boolean> {
  const [row] = await db.$queryRaw<
    { state: string; strategy: Partial<Strategy>; queued: number; sent: number; oldestSent: Date | null }[]
  >`
    SELECT o.state::text AS state, o.strategy,
           (count(t."routerId") FILTER (WHERE t.state = 'queued'))::int AS queued,
           (count(t."routerId") FILTER (WHERE t.state = 'sent'))::int AS sent,
           min(t."sentAt") FILTER (WHERE t.state = 'sent') AS "oldestSent"
      FROM "Rollout" o LEFT JOIN "RolloutTarget" t ON t."rolloutId" = o.id AND t.batch = o."currentBatch"
     WHERE o.id = ${rolloutId}
     GROUP BY o.id`;
  if (!row || row.state !== 'running' || row.queued > 0 || row.sent === 0 || !row.oldestSent) return false;
  const { resultTimeoutSeconds } = { ...DEFAULT_STRATEGY, ...row.strategy };
  return row.oldestSent.getTime() >= now - resultTimeoutSeconds * 1000;
}
