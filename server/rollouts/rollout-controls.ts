/**
 * What an operator does to a running rollout: pause, resume, promote, cancel. Each is one
 * conditional move of its state with its audit event (`transition`), so a replica that moved it
 * first wins and the others get a conflict instead of a second event.
 */
import type { PrismaClient } from '../../prisma/generated/client/client.js';
import type { AuditEntry, AuditLog, AuditTransaction } from '../audit/audit-log.js';
import type { FirmwareRollouts } from '../firmware/firmware-rollouts.js';
import type { FleetBus } from '../cluster/fleet-bus.js';
import { releaseUnapplied } from './cancel-release.js';
import type { RolloutState, TargetState } from './rollout-strategy.js';
import type { RolloutView } from './rollout-view.js';

export class RolloutNotFound extends Error {}
export class RolloutStateConflict extends Error {}

type Ctx = { actor: string; requestId?: string };

/** What the operator's controls use of the engine. */
export interface RolloutControlled {
  readonly db: PrismaClient;
  readonly audit: AuditLog;
  readonly bus: FleetBus;
  readonly firmware: Pick<FirmwareRollouts, 'stopTransfers'>;
  kick(rolloutId: string): Promise<void>;
  counts(rolloutId: string): Promise<Record<TargetState, number>>;
  view(rolloutId: string): Promise<RolloutView | null>;
}

export async function pauseRollout(engine: RolloutControlled, rolloutId: string, ctx: Ctx) {
  return transition(engine, rolloutId, ['running', 'scheduled', 'soaking'], 'paused', 'rollout.paused', ctx, {
    extra: { pauseReason: `paused by ${ctx.actor}`, pauseGate: null, soakUntil: null },
  });
}

/**
 * Resuming accepts the failures seen so far (only new ones pause the rollout again) and, when a
 * health gate paused it, that gate's verdict: the rollout goes on without soaking that batch again.
 */
export async function resumeRollout(engine: RolloutControlled, rolloutId: string, ctx: Ctx) {
  const counts = await engine.counts(rolloutId);
  const before = await engine.db.rollout.findUnique({ where: { id: rolloutId } });
  const result = await transition(engine, rolloutId, ['paused'], 'running', 'rollout.resumed', ctx, {
    extra: {
      pauseReason: null,
      pauseGate: null,
      acceptedFailures: counts.failed + counts.rolled_back,
      ...(before?.pauseGate ? { gatesWaivedBatch: before.currentBatch } : {}),
    },
  });
  await engine.kick(rolloutId);
  return result;
}

/** An operator approves what the first batch showed: the next batch goes out. */
export async function promoteRollout(engine: RolloutControlled, rolloutId: string, ctx: Ctx) {
  const result = await transition(engine, rolloutId, ['awaiting_approval'], 'running', 'rollout.promoted', ctx, {
    extra: {},
  });
  await engine.kick(rolloutId);
  return result;
}

export async function cancelRollout(engine: RolloutControlled, rolloutId: string, ctx: Ctx) {
  const finishedAt = new Date();
  let republish: string[] = [];
  const view = await transition(
    engine,
    rolloutId,
    ['running', 'paused', 'scheduled', 'soaking', 'awaiting_approval'],
    'cancelled',
    'rollout.cancelled',
    ctx,
    {
      extra: { finishedAt, pauseReason: null, pauseGate: null, soakUntil: null },
      // Routers not reached yet keep what they run; those reached that did not apply the revision
      // (offline ones included) get back the desired state and assignment they had.
      alongside: async (tx) => {
        const rollout = await tx.rollout.findUniqueOrThrow({
          where: { id: rolloutId },
          include: { revision: { include: { profile: { select: { name: true } } } } },
        });
        if (!rollout.revision) {
          // A firmware rollout set no desired state: it stops the transfers not finished yet.
          const stopped = await engine.firmware.stopTransfers(tx, rolloutId, finishedAt);
          await tx.rolloutTarget.updateMany({
            where: { rolloutId, state: 'queued' },
            data: { state: 'skipped', error: 'rollout cancelled', finishedAt },
          });
          return { after: { stoppedTransfers: stopped }, events: [] };
        }
        const released = await releaseUnapplied(
          tx,
          {
            id: rolloutId,
            profileId: rollout.revision.profileId,
            revisionNumber: rollout.revision.number,
            profile: rollout.revision.profile.name,
          },
          ctx,
        );
        republish = released.republish;
        await tx.rolloutTarget.updateMany({
          where: { rolloutId, state: 'queued' },
          data: { state: 'skipped', error: 'rollout cancelled', finishedAt },
        });
        return { after: { released: released.events.length }, events: released.events };
      },
    },
  );
  if (republish.length) await engine.bus.publishDesired(republish);
  return view;
}

/**
 * Moves a rollout from one of `from` to `to`: the state, whatever goes `alongside` it and
 * the events commit together, or the rollout stays as it was.
 */
async function transition(
  engine: RolloutControlled,
  rolloutId: string,
  from: RolloutState[],
  to: RolloutState,
  action: string,
  ctx: Ctx,
  change: {
    extra: Record<string, unknown>;
    alongside?: (tx: AuditTransaction) => Promise<{ after: Record<string, unknown>; events: AuditEntry[] }>;
  },
) {
  const before = await engine.db.rollout.findUnique({ where: { id: rolloutId } });
  if (!before) throw new RolloutNotFound(`no rollout ${rolloutId}`);
  const moved = await engine.audit.record(async (tx) => {
    const { count } = await tx.rollout.updateMany({
      where: { id: rolloutId, state: { in: from } },
      data: { state: to, ...change.extra },
    });
    if (count === 0) return { result: false, event: null };
    const extra = await change.alongside?.(tx);
    return {
      result: true,
      event: [
        {
          actor: ctx.actor,
          action,
          targetType: 'rollout',
          targetId: rolloutId,
          before: { state: before.state },
          after: { state: to, ...extra?.after },
          requestId: ctx.requestId,
        },
        ...(extra?.events ?? []),
      ],
    };
  });
  if (!moved)
    throw new RolloutStateConflict(
      `rollout is ${before.state}; it can only be ${action.replace('rollout.', '')} from ${from.join(' or ')}`,
    );
  return engine.view(rolloutId);
}
