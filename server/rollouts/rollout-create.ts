import type { PrismaClient } from '../../prisma/generated/client/client.js';
import type { AuditEntry, AuditLog, AuditTransaction } from '../audit/audit-log.js';
import { canonicalSelector, selectorWhere, type Selector } from '../fleet/selector.js';
import { planVerdicts } from './plan-verdicts.js';
import { insertTargets } from './rollout-targets.js';
import { batchCountFor, batchOf, DEFAULT_STRATEGY, type Strategy } from './rollout-strategy.js';

export class RolloutRefused extends Error {}

export interface RolloutRequest {
  profile: string;
  revision?: number;
  selector: Selector;
  strategy?: Partial<Strategy>;
  startAt?: Date;
  /** Leave out the routers the plan preview refuses: `skipped` targets with the reason, never sent. */
  skipRefused?: boolean;
}

/** What creating a rollout uses of the engine. */
export interface RolloutStore {
  db: PrismaClient;
  audit: AuditLog;
  kick(rolloutId: string, delayMs?: number): Promise<void>;
}

/**
 * A new rollout: the revision, the routers the selector matches (less those the plan refuses,
 * when asked), split into batches and stored with the rollout and its event in one transaction.
 */
export async function createRollout(
  engine: RolloutStore,
  request: RolloutRequest,
  ctx: { actor: string; requestId?: string },
) {
  const strategy: Strategy = { ...DEFAULT_STRATEGY, ...request.strategy };
  const selector = canonicalSelector(request.selector);
  const profile = await engine.db.profile.findUnique({ where: { name: request.profile } });
  if (!profile) throw new RolloutRefused(`no profile named ${request.profile}`);
  const number = request.revision ?? profile.latestRevision;
  const revision = await engine.db.profileRevision.findUnique({
    where: { profileId_number: { profileId: profile.id, number } },
  });
  if (!revision) throw new RolloutRefused(`profile ${request.profile} has no revision ${number}`);
  const where = selectorWhere(selector);
  const matched = await engine.db.router.findMany({
    where,
    select: { id: true },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
  });
  if (matched.length === 0)
    throw new RolloutRefused('the selector matches no router (decommissioned routers are never targeted)');
  // The refused routers by the plan preview's own rule, judged now: a router whose facts change
  // later is judged by its agent, as any other.
  const refused = new Map<string, string>();
  if (request.skipRefused)
    for (const v of await planVerdicts(engine.db, revision, where, profile.name))
      if (v.refused !== null) refused.set(v.routerId, v.refused);
  const routers = matched.filter((r) => !refused.has(r.id));
  const leftOut = matched.filter((r) => refused.has(r.id)).map((r) => ({ routerId: r.id, reason: refused.get(r.id)! }));
  if (routers.length === 0)
    throw new RolloutRefused(
      `the plan refuses every router the selector matches (${matched.length}): nothing to roll out`,
    );
  return storeRollout(engine, {
    carries: { revisionId: revision.id },
    selector,
    strategy,
    routers,
    leftOut,
    startAt: request.startAt,
    ctx,
    after: {
      profile: request.profile,
      revision: number,
      selector: selector,
      strategy,
      targets: routers.length,
      ...(request.skipRefused ? { skipRefused: true, leftOut: leftOut.length } : {}),
    },
  });
}

/** What a new rollout is stored with, whatever it carries (a profile revision, or a firmware image). */
export interface RolloutToStore {
  carries: { revisionId: string } | { firmwareImageId: string; firmwareOptions: object };
  selector: Selector;
  strategy: Strategy;
  /** The routers to target, in batch order. */
  routers: { id: string }[];
  /** Routers left out from the start (skipped in batch -1), with why. */
  leftOut: { routerId: string; reason: string }[];
  /** Why routers are left out, before each one's reason (insertTargets). */
  leftOutBecause?: string;
  startAt?: Date;
  ctx: { actor: string; requestId?: string };
  /** The rollout.created event's `after`, less `startAt`. */
  after: Record<string, unknown>;
}

/**
 * Stores a rollout, its targets and its rollout.created event together, then queues its first
 * step (at its start time when scheduled): a sweep that saw the rollout before all its targets
 * were stored would find early batches empty and move past them.
 */
export async function storeRollout(engine: RolloutStore, r: RolloutToStore) {
  const rollout = await engine.audit.record(async (tx) => {
    const { rollout: created, event } = await insertRollout(tx, r);
    return { result: created, event };
  });
  await kickRollout(engine, rollout);
  return rollout;
}

/**
 * Writes a rollout and its targets through the caller's transaction and returns the event that
 * records it, for a change that starts rollouts among its other writes (an intent apply); the
 * caller queues each with kickRollout once committed.
 */
export async function insertRollout(tx: AuditTransaction, r: RolloutToStore) {
  const startAt = r.startAt ?? new Date();
  const scheduled = startAt.getTime() > Date.now();
  const created = await tx.rollout.create({
    data: {
      ...r.carries,
      selector: r.selector as object,
      strategy: r.strategy as object,
      state: scheduled ? 'scheduled' : 'running',
      batchCount: batchCountFor(r.routers.length, r.strategy),
      startAt,
      createdBy: r.ctx.actor,
    },
  });
  await insertTargets(
    tx,
    created.id,
    r.routers.map((router, i) => ({ routerId: router.id, batch: batchOf(i, r.strategy) })),
    r.leftOut,
    r.leftOutBecause,
  );
  const event: AuditEntry = {
    actor: r.ctx.actor,
    action: 'rollout.created',
    targetType: 'rollout',
    targetId: created.id,
    after: { ...r.after, startAt },
    requestId: r.ctx.requestId,
  };
  return { rollout: created, event };
}

/** Queues a stored rollout's first step: now, or at its start time when scheduled. */
export async function kickRollout(engine: Pick<RolloutStore, 'kick'>, rollout: { id: string; startAt: Date }) {
  const wait = rollout.startAt.getTime() - Date.now();
  await engine.kick(rollout.id, wait > 0 ? wait : undefined);
}
