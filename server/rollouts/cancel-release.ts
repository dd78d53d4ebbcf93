import type { AuditEntry, AuditTransaction } from '../audit/audit-log.js';
import { jsonDiff } from '../audit/json-diff.js';
import { idRows } from '../storage/id-rows.js';

/** A router's assignment as a target keeps it from before its claim (null: it had none). */
export interface PriorAssignment {
  profileId: string;
  pinnedRevision: number | null;
  overrides: unknown;
}

interface Releasable {
  routerId: string;
  state: string;
  priorDesiredRevisionId: string | null;
  priorDesiredRolloutId: string | null;
  priorAssignment: PriorAssignment | null;
  assignmentProfileId: string | null;
  assignmentPinned: number | null;
}

/**
 * Gives back, inside the cancel's transaction, what a cancelled rollout set on routers that did
 * not apply its revision (sent and still waiting, failed, rolled back, offline): their desired
 * revision and rollout, and their assignment, as they were before the batch's claim. Otherwise a
 * router the plan refused stays pinned to that revision and "pending" for ever. A router another
 * rollout has claimed since keeps what that one set; an assignment changed since (not the
 * rollout's profile and revision any more) is the operator's and stays too. One
 * `router.desired.restored` event per router, by the aborting actor.
 *
 * Returns the events and the routers to publish their desired state again (those given back a
 * revision: one still applying the cancelled revision then applies the old one after it).
 */
export async function releaseUnapplied(
  tx: AuditTransaction,
  rollout: { id: string; profileId: string; revisionNumber: number; profile: string },
  ctx: { actor: string; requestId?: string },
): Promise<{ events: AuditEntry[]; republish: string[] }> {
  const rows = await tx.$queryRaw<Releasable[]>`
    SELECT t."routerId", t.state::text AS state, t."priorDesiredRevisionId", t."priorDesiredRolloutId",
           t."priorAssignment", a."profileId" AS "assignmentProfileId", a."pinnedRevision" AS "assignmentPinned"
      FROM "RolloutTarget" t
      JOIN "Router" r ON r.id = t."routerId"
      LEFT JOIN "Assignment" a ON a."routerId" = t."routerId"
     WHERE t."rolloutId" = ${rollout.id} AND t."desiredSetAt" IS NOT NULL AND t.state <> 'applied'
       AND r."desiredRolloutId" = ${rollout.id}
     ORDER BY t."routerId"
       FOR UPDATE OF r`;
  if (rows.length === 0) return { events: [], republish: [] };
  const ids = rows.map((r) => r.routerId);
  const now = new Date();
  await tx.$executeRaw`
    UPDATE "Router" AS r
       SET "desiredRevisionId" = t."priorDesiredRevisionId", "desiredRolloutId" = t."priorDesiredRolloutId",
           "updatedAt" = ${now}
      FROM "RolloutTarget" t
     WHERE t."rolloutId" = ${rollout.id} AND t."routerId" = r.id AND r."desiredRolloutId" = ${rollout.id}
       AND r.id IN ${idRows(ids)}`;
  // Only an assignment still as the rollout set it is given back.
  const ours = rows.filter(
    (r) => r.assignmentProfileId === rollout.profileId && r.assignmentPinned === rollout.revisionNumber,
  );
  const removed = ours.filter((r) => r.priorAssignment === null).map((r) => r.routerId);
  const restored = ours.filter((r) => r.priorAssignment !== null);
  if (removed.length) await tx.$executeRaw`DELETE FROM "Assignment" WHERE "routerId" IN ${idRows(removed)}`;
  if (restored.length)
    await tx.$executeRaw`
      UPDATE "Assignment" AS a
         SET "profileId" = p."profileId", "pinnedRevision" = p."pinnedRevision", overrides = p.overrides,
             "updatedAt" = ${now}
        FROM jsonb_to_recordset(${JSON.stringify(
          restored.map((r) => ({ routerId: r.routerId, ...r.priorAssignment })),
        )}::jsonb) AS p("routerId" text, "profileId" text, "pinnedRevision" integer, overrides jsonb)
       WHERE a."routerId" = p."routerId"`;

  // Names for the events: the revisions and profiles involved, read once.
  const revisionIds = [...new Set(rows.map((r) => r.priorDesiredRevisionId).filter((x): x is string => !!x))];
  const revisions = await tx.profileRevision.findMany({
    where: { id: { in: revisionIds } },
    select: { id: true, number: true, profile: { select: { name: true } } },
  });
  const revisionName = new Map(revisions.map((r) => [r.id, { profile: r.profile.name, revision: r.number }]));
  const profileIds = [...new Set(ours.flatMap((r) => (r.priorAssignment ? [r.priorAssignment.profileId] : [])))];
  const profiles = await tx.profile.findMany({ where: { id: { in: profileIds } }, select: { id: true, name: true } });
  const profileName = new Map(profiles.map((p) => [p.id, p.name]));
  const ourIds = new Set(ours.map((r) => r.routerId));

  const events = rows.map((r): AuditEntry => {
    const assignmentAfter = r.priorAssignment
      ? {
          profile: profileName.get(r.priorAssignment.profileId) ?? r.priorAssignment.profileId,
          pinnedRevision: r.priorAssignment.pinnedRevision,
          overrides: r.priorAssignment.overrides ?? null,
        }
      : null;
    const before = {
      desiredRevision: { profile: rollout.profile, revision: rollout.revisionNumber },
      ...(ourIds.has(r.routerId)
        ? { assignment: { profile: rollout.profile, pinnedRevision: rollout.revisionNumber } }
        : {}),
    };
    const after = {
      desiredRevision: r.priorDesiredRevisionId ? (revisionName.get(r.priorDesiredRevisionId) ?? null) : null,
      ...(ourIds.has(r.routerId) ? { assignment: assignmentAfter } : {}),
      rollout: rollout.id,
      target: r.state,
    };
    return {
      actor: ctx.actor,
      action: 'router.desired.restored',
      targetType: 'router',
      targetId: r.routerId,
      before,
      after,
      diff: jsonDiff(before, after),
      requestId: ctx.requestId,
    };
  });
  return { events, republish: rows.filter((r) => r.priorDesiredRevisionId).map((r) => r.routerId) };
}
