import type { PrismaClient } from '../../prisma/generated/client/client.js';
import { idRows } from '../storage/id-rows.js';
import type { TargetState } from './rollout-strategy.js';

/** An apply result as the rollout engine needs it. */
export interface TargetOutcome {
  routerId: string;
  revisionId: string | null;
  status: 'applied' | 'failed' | 'rolled_back';
  error: string | null;
}

/**
 * A burst of apply results finishes the rollout targets waiting for them: found in one query
 * and moved in one UPDATE per outcome. Returns the rollouts whose targets moved.
 */
export async function finishTargets(db: PrismaClient, results: TargetOutcome[]): Promise<Set<string>> {
  const relevant = results.filter((r) => r.revisionId);
  if (relevant.length === 0) return new Set();
  const targets = await waitingTargets(db, [...new Set(relevant.map((r) => r.routerId))]);
  // A router's last result of the burst for the revision a target waits for decides it.
  const outcome = new Map<string, (typeof relevant)[number]>();
  for (const r of relevant) outcome.set(`${r.routerId}\u0000${r.revisionId}`, r);
  const groups = new Map<
    string,
    { status: TargetState; error: string | null; keys: { rolloutId: string; routerId: string; state: TargetState }[] }
  >();
  for (const t of targets) {
    const r = outcome.get(`${t.routerId}\u0000${t.revisionId}`);
    if (!r) continue;
    const key = `${r.status}\u0000${r.error ?? ''}`;
    const group = groups.get(key) ?? { status: r.status, error: r.error, keys: [] };
    group.keys.push({ rolloutId: t.rolloutId, routerId: t.routerId, state: t.state });
    groups.set(key, group);
  }
  const finishedAt = new Date();
  // Each target only from the state it was read in: one moved meanwhile is left as it is. The
  // keys go as one JSON parameter. Why: Prisma's OR of every (rollout, router, state) key cost
  // several times the CPU per statement; measured in docs/BENCHMARKS.md#rollout-batch.
  for (const { status, error, keys } of groups.values())
    await db.$executeRaw`
      UPDATE "RolloutTarget" AS t
         SET state = ${status}::"RolloutTargetState", error = ${error}, "finishedAt" = ${finishedAt},
             "updatedAt" = now()
        FROM jsonb_to_recordset(${JSON.stringify(keys)}::jsonb) AS k("rolloutId" text, "routerId" text, state text)
       WHERE t."rolloutId" = k."rolloutId" AND t."routerId" = k."routerId"
         AND t.state = k.state::"RolloutTargetState"`;
  return new Set(targets.filter((t) => outcome.has(`${t.routerId}\u0000${t.revisionId}`)).map((t) => t.rolloutId));
}

/**
 * The targets of rollouts not ended yet that wait for these routers' results, with the
 * revision each waits for. In SQL, the routers as one JSON parameter. Why: Prisma's findMany with
 * the rollout joined cost three times the CPU per burst; measured in docs/BENCHMARKS.md#rollout-batch.
 */
export function waitingTargets(db: PrismaClient, routerIds: string[]) {
  return db.$queryRaw<{ rolloutId: string; routerId: string; state: TargetState; revisionId: string }[]>`
    SELECT t."rolloutId", t."routerId", t.state::text AS state, o."revisionId"
      FROM "RolloutTarget" t JOIN "Rollout" o ON o.id = t."rolloutId"
     WHERE t."routerId" IN ${idRows(routerIds)}
       AND t.state IN ('sent', 'skipped') AND t.batch >= 0
       AND o.state IN ('running', 'soaking', 'awaiting_approval', 'paused')`;
}

/**
 * A result stored just before the database went away (or the replica died) may never have
 * reached onApplyResult: the store is not repeated when the agent sends it again, so its
 * target would wait in `sent` until it timed out. Such targets take their stored result here.
 */
export async function recoverMissedResults(db: PrismaClient, rolloutId: string, revisionId: string): Promise<void> {
  const waiting = await db.rolloutTarget.findMany({
    where: { rolloutId, state: 'sent' },
    select: { routerId: true, sentAt: true },
  });
  if (waiting.length === 0) return;
  const results = await db.applyResult.findMany({
    where: { revisionId, routerId: { in: waiting.map((w) => w.routerId) }, status: { not: 'pending' } },
    orderBy: { startedAt: 'desc' },
    select: { routerId: true, status: true, error: true, startedAt: true },
  });
  // An APPLIED result the router undid before saying Hello again (rolled back while cut off)
  // is stored as history but never made the router's state: it counts only for a router still
  // running that revision. Taken as the outcome, it completed a rollout whose router runs the
  // old revision, in the moment before the rollback's own result arrived.
  const running = new Set(
    (
      await db.router.findMany({
        where: { id: { in: waiting.map((w) => w.routerId) }, appliedRevisionId: revisionId },
        select: { id: true },
      })
    ).map((r) => r.id),
  );
  // Each router's results, newest first.
  const byRouter = new Map<string, typeof results>();
  for (const r of results) {
    const list = byRouter.get(r.routerId) ?? [];
    list.push(r);
    byRouter.set(r.routerId, list);
  }
  const outcomes: TargetOutcome[] = [];
  for (const target of waiting) {
    // Only a result started after the target was sent: one of an earlier rollout of the same
    // revision must not count. startedAt is the agent's clock; one running behind ours leaves
    // the target to time out, as before.
    const since = target.sentAt?.getTime() ?? Infinity;
    const result = byRouter.get(target.routerId)?.find((r) => r.startedAt.getTime() >= since);
    if (!result || result.status === 'pending') continue;
    if (result.status === 'applied' && !running.has(target.routerId)) continue;
    outcomes.push({ routerId: target.routerId, revisionId, status: result.status, error: result.error });
  }
  await finishTargets(db, outcomes);
}
