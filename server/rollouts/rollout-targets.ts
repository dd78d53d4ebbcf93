import { randomUUID } from 'node:crypto';
import { Prisma, type PrismaClient } from '../../prisma/generated/client/client.js';
import { bulkInsert, type ColumnType } from '../storage/bulk-insert.js';

/** The writes that create a rollout's targets and claim a batch of them for sending. */

const TARGET_COLUMNS: Record<string, ColumnType> = {
  rolloutId: 'text',
  routerId: 'text',
  batch: 'integer',
  updatedAt: 'timestamptz',
};

export const ASSIGNMENT_COLUMNS: Record<string, ColumnType> = {
  id: 'text',
  routerId: 'text',
  profileId: 'text',
  pinnedRevision: 'integer',
  updatedAt: 'timestamptz',
};

/** Every target of a new rollout, pending, in one statement however many routers it has. */
export async function insertTargets(
  tx: Prisma.TransactionClient,
  rolloutId: string,
  targets: { routerId: string; batch: number }[],
): Promise<void> {
  const now = new Date();
  await bulkInsert(
    tx,
    'RolloutTarget',
    TARGET_COLUMNS,
    targets.map((t) => ({ rolloutId, ...t, updatedAt: now })),
  );
}

export interface BatchToClaim {
  rolloutId: string;
  revisionId: string;
  profileId: string;
  revisionNumber: number;
  /** The batch's pending targets' routers. */
  routers: { id: string; status: string; decommissionedAt: Date | null }[];
}

/**
 * Claims a batch's pending targets in one transaction: online routers become `sent`, the others
 * `skipped`, and every router claimed gets the revision as its desired state and assignment.
 * Returns what this call claimed; nothing when another advance claimed the batch first.
 */
export async function claimBatch(db: PrismaClient, batch: BatchToClaim) {
  const { rolloutId, revisionId, profileId, revisionNumber, routers } = batch;
  const now = new Date();
  const online = routers.filter((r) => r.status === 'online' && !r.decommissionedAt).map((r) => r.id);
  const offline = routers.filter((r) => r.status !== 'online' || r.decommissionedAt).map((r) => r.id);
  const eligible = new Set(routers.filter((r) => !r.decommissionedAt).map((r) => r.id));
  return db.$transaction(
    async (tx) => {
      // The targets are claimed first: an advance running at the same time (a sweep, a job run
      // again after Redis returned) waits here for this commit and then finds nothing pending,
      // so it neither writes the same routers (two such writers can deadlock) nor publishes
      // them again (a router told twice applies twice).
      const sent = online.length
        ? await tx.rolloutTarget.updateManyAndReturn({
            where: { rolloutId, routerId: { in: online }, state: 'pending' },
            data: { state: 'sent', sentAt: now },
            select: { routerId: true },
          })
        : [];
      // Offline routers keep the revision as their desired state and get it when they reconnect.
      const skipped = offline.length
        ? await tx.rolloutTarget.updateManyAndReturn({
            where: { rolloutId, routerId: { in: offline }, state: 'pending' },
            data: { state: 'skipped', error: 'offline: gets the revision when it reconnects', finishedAt: now },
            select: { routerId: true },
          })
        : [];
      const claimed = [...sent, ...skipped].map((t) => t.routerId).filter((id) => eligible.has(id));
      if (claimed.length) {
        // The router's assignment follows the rollout; its overrides survive if the profile stays.
        // Three set-wise statements, however large the batch.
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
          ASSIGNMENT_COLUMNS,
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
      }
      return { sent, skipped };
    },
    { maxWait: 30_000, timeout: 60_000 },
  );
}

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
