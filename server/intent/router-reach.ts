import type { PrismaClient } from '../../prisma/generated/client/client.js';
import type { FirmwareMetadata, FitOptions } from '../../core/firmware/index.js';
import { judgeRouters } from '../firmware/fleet-fit.js';
import { selectorWhere, type Selector } from '../fleet/selector.js';
import { planVerdicts } from '../rollouts/plan-verdicts.js';
import { ACTIVE_STATES } from '../rollouts/rollout-strategy.js';

/**
 * What an Assignment or a FirmwarePolicy would do to one router it selects:
 * `change` its plan (or install the image), give it a new `revision` whose plan is the same,
 * `retry` the revision it is set to run but does not (its last apply failed or rolled back, and
 * no rollout is bringing it), nothing (`unchanged`: already there, or on its way in a running
 * rollout), or nothing because the plan (or the image) is `refused` on it, with why.
 */
export type ReachVerdict = 'change' | 'revision' | 'retry' | 'unchanged' | 'refused';

/** The verdicts that put a router in the apply's rollout. */
export const MOVING_VERDICTS: ReadonlySet<ReachVerdict> = new Set(['change', 'revision', 'retry']);

export interface RouterReach {
  id: string;
  name: string;
  verdict: ReachVerdict;
  reason: string | null;
  /** What the router is set to run now ("home@3", a firmware release), null for nothing. */
  from: string | null;
}

/** Last apply statuses that leave a router off the revision it is set to run until someone retries. */
const FAILED_APPLIES: ReadonlySet<string | null> = new Set(['failed', 'rolled_back']);

/** Target states of a rollout that is still bringing its routers there. */
const ON_ITS_WAY = ['queued', 'sent'] as const;

/** A profile revision as the plan function reads it; `id` null for one the apply would write. */
export interface TargetRevision {
  id: string | null;
  profileId: string;
  profile: string;
  number: number;
  spec: unknown;
}

/** The routers an assignment selects, each with its verdict against the revision it assigns. */
export async function assignmentReach(
  db: PrismaClient,
  selector: Selector,
  target: TargetRevision,
): Promise<RouterReach[]> {
  const where = selectorWhere(selector);
  // The targets on their way first, then the routers: a batch claimed in between sets the
  // routers' desired revision in the same commit that moves its targets past `queued`, so
  // in this order a router is seen either on its way or there, never neither.
  const onItsWay =
    target.id === null
      ? []
      : await db.rolloutTarget.findMany({
          where: { state: { in: [...ON_ITS_WAY] }, rollout: { revisionId: target.id, state: { in: ACTIVE_STATES } } },
          select: { routerId: true },
        });
  const [routers, verdicts] = await Promise.all([
    db.router.findMany({
      where,
      orderBy: [{ nameKey: 'asc' }, { id: 'asc' }],
      select: {
        id: true,
        name: true,
        desiredRevisionId: true,
        desiredRevision: { select: { number: true, profile: { select: { name: true } } } },
        appliedRevisionId: true,
        appliedRevision: { select: { number: true, profile: { select: { name: true } } } },
        lastApplyStatus: true,
      },
    }),
    planVerdicts(db, { ...target, id: target.id ?? 'planned' }, where, target.profile),
  ]);
  const verdictOf = new Map(verdicts.map((v) => [v.routerId, v]));
  const coming = new Set(onItsWay.map((t) => t.routerId));
  return routers.map((r) => {
    const from = r.desiredRevision ? `${r.desiredRevision.profile.name}@${r.desiredRevision.number}` : null;
    const v = verdictOf.get(r.id);
    if (v?.refused) return { id: r.id, name: r.name, verdict: 'refused', reason: v.refused, from };
    if (target.id !== null && coming.has(r.id))
      return { id: r.id, name: r.name, verdict: 'unchanged', reason: null, from };
    if (target.id !== null && r.desiredRevisionId === target.id) {
      // Set to run it, not running it, its last apply failed, and no rollout bringing it: an
      // apply converges, so it tries again. Without a failed result (offline, or its apply not
      // in yet) the router takes the revision on its next Hello: nothing to do.
      if (r.appliedRevisionId === target.id || !FAILED_APPLIES.has(r.lastApplyStatus))
        return { id: r.id, name: r.name, verdict: 'unchanged', reason: null, from };
      const runs = r.appliedRevision ? `${r.appliedRevision.profile.name}@${r.appliedRevision.number}` : 'nothing';
      const last = `its last apply ${r.lastApplyStatus === 'rolled_back' ? 'rolled back' : 'failed'}`;
      return { id: r.id, name: r.name, verdict: 'retry', reason: `runs ${runs}; ${last}`, from };
    }
    return { id: r.id, name: r.name, verdict: v?.changing ? 'change' : 'revision', reason: null, from };
  });
}

/** The routers a firmware policy selects, each judged against the image as sysupgrade would. */
export async function firmwareReach(
  db: PrismaClient,
  selector: Selector,
  image: { id: string; metadata: unknown },
  options: FitOptions,
): Promise<RouterReach[]> {
  const where = selectorWhere(selector);
  const onItsWay = new Set(
    (
      await db.rolloutTarget.findMany({
        where: { state: { in: [...ON_ITS_WAY] }, rollout: { firmwareImageId: image.id, state: { in: ACTIVE_STATES } } },
        select: { routerId: true },
      })
    ).map((t) => t.routerId),
  );
  const releases = new Map(
    (await db.router.findMany({ where, select: { id: true, openwrtRelease: true } })).map((r) => [
      r.id,
      r.openwrtRelease,
    ]),
  );
  const out: RouterReach[] = [];
  for await (const page of judgeRouters(db, image.metadata as FirmwareMetadata, where, options))
    for (const r of page) {
      const from = releases.get(r.id) ?? null;
      const same = r.verdict.refusals.some((x) => x.code === 'same_release');
      if (r.verdict.fits && onItsWay.has(r.id))
        out.push({ id: r.id, name: r.name, verdict: 'unchanged', reason: null, from });
      else if (r.verdict.fits) out.push({ id: r.id, name: r.name, verdict: 'change', reason: null, from });
      else if (same) out.push({ id: r.id, name: r.name, verdict: 'unchanged', reason: null, from });
      else
        out.push({
          id: r.id,
          name: r.name,
          verdict: 'refused',
          reason: r.verdict.refusals.map((x) => x.reason).join('; '),
          from,
        });
    }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
