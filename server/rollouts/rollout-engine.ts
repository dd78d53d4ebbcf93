import { finishTargets, recoverMissedResults } from './target-outcomes.js';
import { claimBatch, claimRedeliveries, onlyWaitingForResults } from './rollout-targets.js';
import { rerunCoalescer } from '../../core/rerun-coalescer.js';
import type { Logger } from 'pino';
import type { PrismaClient } from '../../prisma/generated/client/client.js';
import type { AuditLog } from '../audit/audit-log.js';
import type { FleetBus } from '../cluster/fleet-bus.js';
import type { TaskQueue } from '../cluster/task-queue.js';
import { cancelRollout, pauseRollout, promoteRollout, resumeRollout } from './rollout-controls.js';
import {
  DEFAULT_STRATEGY,
  failureCount,
  holdsAfter,
  successCount,
  UNFINISHED,
  type Strategy,
  type TargetState,
} from './rollout-strategy.js';
import { firmwareOptionsOf, msUntilWindow } from '../firmware/firmware-options.js';
import type { FirmwareRollouts } from '../firmware/firmware-rollouts.js';
import { createFirmwareRollout, type FirmwareRolloutRequest } from '../firmware/firmware-rollout-create.js';
import { createRollout, type RolloutRequest } from './rollout-create.js';
import { endSoak, startSoak } from './rollout-soak.js';
import { rolloutCounts, rolloutView } from './rollout-view.js';

export type { RolloutView } from './rollout-view.js';

export { RolloutRefused, type RolloutRequest } from './rollout-create.js';
export { RolloutNotFound, RolloutStateConflict } from './rollout-controls.js';

type Ctx = { actor: string; requestId?: string };

export const ADVANCE_TASK = 'rollout.advance';
export const SWEEP_TASK = 'rollout.sweep';

/**
 * Rollouts: a profile revision pushed to the routers a selector matched, canary first, then
 * batch by batch, pausing by itself when failures pass the threshold. Every transition is a
 * conditional UPDATE on the state it expects, so any number of replicas may run `advance`
 * for the same rollout at once and exactly one of them wins each step; all progress is in
 * the database, so a controller killed mid-rollout resumes where it stopped.
 */
export class RolloutEngine {
  constructor(
    readonly db: PrismaClient,
    readonly audit: AuditLog,
    private readonly tasks: TaskQueue,
    readonly bus: FleetBus,
    readonly log: Logger,
    /** The steps of rollouts that carry a firmware image (server/firmware/). */
    readonly firmware: FirmwareRollouts,
  ) {
    tasks.register(ADVANCE_TASK, async (data) => this.advance(String(data.rolloutId)));
    tasks.register(SWEEP_TASK, async () => this.sweep());
  }

  /** A new rollout, its targets and its event, stored together; then its first step is queued. */
  async create(request: RolloutRequest, ctx: Ctx) {
    return createRollout(this, request, ctx);
  }

  /** A new rollout of a firmware image (server/firmware/firmware-rollout-create.ts). */
  async createFirmware(request: FirmwareRolloutRequest, ctx: Ctx) {
    return createFirmwareRollout(this, request, ctx);
  }

  async kick(rolloutId: string, delayMs?: number, coalesceKey = rolloutId): Promise<void> {
    await this.tasks.enqueue(ADVANCE_TASK, { rolloutId }, { coalesceKey, delayMs });
  }

  /** Safety net for lost jobs and timeouts: every active rollout is advanced periodically. */
  async sweep(): Promise<void> {
    const active = await this.db.rollout.findMany({
      where: {
        OR: [
          { state: 'running' },
          { state: 'scheduled', startAt: { lte: new Date() } },
          { state: 'soaking', soakUntil: { lte: new Date() } },
        ],
      },
      select: { id: true },
    });
    for (const r of active) await this.advance(r.id, { recoverMissedResults: true });
  }

  /**
   * One idempotent step (or several) of a rollout's state machine. The sweep also recovers
   * results stored but never passed on (recoverMissedResults); a kick after a burst of results
   * does not, since that burst's own targets are being finished at that very moment.
   *
   * On one replica one advance of a rollout runs at a time; those asked for meanwhile become
   * one more run after it. Side by side, each would read the batch's pending targets and all
   * but one would wait on the claim for nothing (the job queue runs 8 jobs at once).
   */
  advance(rolloutId: string, options: { recoverMissedResults?: boolean } = {}): Promise<void> {
    return this.advancing(rolloutId, options);
  }

  private readonly advancing = rerunCoalescer<{ recoverMissedResults?: boolean }>(
    (rolloutId, options) => this.step(rolloutId, options),
    (a, b) => ({ recoverMissedResults: Boolean(a.recoverMissedResults || b.recoverMissedResults) }),
  );

  private async step(rolloutId: string, options: { recoverMissedResults?: boolean }): Promise<void> {
    // Most advances come after a burst of results while the batch still waits for others.
    if (!options.recoverMissedResults && (await onlyWaitingForResults(this.db, rolloutId, Date.now()))) return;
    for (let guard = 0; guard < 10_000; guard++) {
      const rollout = await this.db.rollout.findUnique({
        where: { id: rolloutId },
        include: { revision: { include: { profile: true } } },
      });
      if (!rollout) return;
      if (rollout.state === 'scheduled') {
        if (rollout.startAt.getTime() > Date.now()) return;
        await this.db.rollout.updateMany({ where: { id: rolloutId, state: 'scheduled' }, data: { state: 'running' } });
        continue;
      }
      const strategy = { ...DEFAULT_STRATEGY, ...(rollout.strategy as Partial<Strategy>) };
      const batch = rollout.currentBatch;
      if (rollout.state === 'soaking') {
        if (rollout.soakUntil && rollout.soakUntil.getTime() > Date.now()) return;
        if (await endSoak(this, rollout, strategy)) continue;
        return;
      }
      if (rollout.state !== 'running') return;

      const firmware = rollout.firmwareImageId ? firmwareOptionsOf(rollout.firmwareOptions) : null;
      if (firmware) await this.firmware.expire(rolloutId, firmware);
      else if (rollout.revision) {
        if (options.recoverMissedResults) {
          await recoverMissedResults(this.db, rolloutId, rollout.revision.id);
          await this.redeliver(rolloutId, strategy);
        }
        // Routers that never answered count as failed.
        const cutoff = new Date(Date.now() - strategy.resultTimeoutSeconds * 1000);
        await this.db.rolloutTarget.updateMany({
          where: { rolloutId, state: 'sent', sentAt: { lt: cutoff } },
          data: {
            state: 'failed',
            error: `no apply result within ${strategy.resultTimeoutSeconds} s`,
            finishedAt: new Date(),
          },
        });
      }

      const pending = await this.db.rolloutTarget.findMany({
        where: { rolloutId, batch, state: 'queued' },
        include: { router: { select: { id: true, status: true, decommissionedAt: true } } },
      });
      if (pending.length > 0) {
        const routers = pending.map((p) => p.router);
        if (firmware) {
          // An upgrade starts only inside the maintenance window: outside it, wake when it opens.
          const opensInMs = msUntilWindow(firmware.window, new Date());
          if (opensInMs > 0) return this.kick(rolloutId, opensInMs, `${rolloutId}:window`);
          const sent = await this.firmware.dispatch(rolloutId, routers);
          if (sent === 0) await this.kick(rolloutId);
          return;
        }
        if (rollout.revision)
          await this.dispatch(
            rollout.id,
            rollout.revision.id,
            rollout.revision.profileId,
            rollout.revision.number,
            routers,
          );
        return;
      }
      const inFlight = await this.db.rolloutTarget.count({ where: { rolloutId, batch, state: 'sent' } });
      if (inFlight > 0) return;

      // The batch is finished: judge it before going on.
      const counts = await this.counts(rolloutId);
      const failures = failureCount(counts);
      const finished = successCount(counts) + failures;
      const newFailures = failures - rollout.acceptedFailures;
      if (newFailures > 0 && finished > 0 && failures / finished > strategy.maxFailureRatio) {
        const what = firmware ? 'failed or were not confirmed' : 'failed or rolled back';
        const reason = `${failures} of ${finished} routers ${what} after batch ${batch} (threshold ${strategy.maxFailureRatio})`;
        const paused = await this.pauseAutomatically(rolloutId, 'running', batch, reason);
        if (paused) this.log.warn({ rolloutId, reason }, 'rollout paused automatically');
        return;
      }
      // The next batch is the lowest one with a target still unfinished. An earlier batch than
      // this one would be a batch never dispatched: going back to it beats completing without it.
      const next = await this.db.rolloutTarget.findFirst({
        where: { rolloutId, state: { in: UNFINISHED } },
        orderBy: { batch: 'asc' },
        select: { batch: true },
      });
      // Both updates re-check in the same statement that no target of this batch (or of the
      // rollout) is unfinished, so no race can move a rollout past a target without an outcome.
      if (next) {
        if (next.batch < batch)
          this.log.warn({ rolloutId, batch, next: next.batch }, 'rollout going back to a batch never sent');
        // Before a later batch: soak, gates, maybe a promote, unless an operator waived them.
        if (next.batch > batch && holdsAfter(batch, strategy) && rollout.gatesWaivedBatch !== batch) {
          if (await startSoak(this, rolloutId, batch, strategy)) continue;
          return;
        }
        await this.db.rollout.updateMany({
          where: {
            id: rolloutId,
            state: 'running',
            currentBatch: batch,
            targets: { none: { batch, state: { in: UNFINISHED } } },
          },
          data: { currentBatch: next.batch },
        });
        continue;
      }
      const completed = await this.audit.record(async (tx) => {
        const { count } = await tx.rollout.updateMany({
          where: {
            id: rolloutId,
            state: 'running',
            currentBatch: batch,
            targets: { none: { state: { in: UNFINISHED } } },
          },
          data: { state: 'completed', finishedAt: new Date() },
        });
        if (count === 0) return { result: false, event: null };
        return {
          result: true,
          event: {
            actor: 'system',
            action: 'rollout.completed',
            targetType: 'rollout',
            targetId: rolloutId,
            after: counts,
          },
        };
      });
      if (completed) this.log.info({ rolloutId, ...counts }, 'rollout completed');
      return;
    }
  }

  private async dispatch(
    rolloutId: string,
    revisionId: string,
    profileId: string,
    revisionNumber: number,
    routers: { id: string; status: string; decommissionedAt: Date | null }[],
  ) {
    const { sent, skipped } = await claimBatch(this.db, { rolloutId, revisionId, profileId, revisionNumber, routers });
    // Another advance dispatched this batch already.
    if (sent.length === 0 && skipped.length === 0) return;
    await this.bus.publishDesired(sent.map((t) => t.routerId));
    this.log.info({ rolloutId, sent: sent.length, skipped: skipped.length }, 'rollout batch dispatched');
    // If everything was skipped the batch is already finished: take the next step now.
    if (sent.length === 0) await this.kick(rolloutId);
  }

  /**
   * Publishes the desired state once more to sent routers silent for a third of the result
   * timeout. An agent that has the revision already answers "applied, unchanged" without
   * touching the router; one still applying queues it behind the apply. So a lost publish
   * costs a third of the timeout, not a failed target and a paused rollout.
   */
  private async redeliver(rolloutId: string, strategy: Strategy): Promise<void> {
    const olderThan = new Date(Date.now() - (strategy.resultTimeoutSeconds * 1000) / 3);
    const routerIds = await claimRedeliveries(this.db, rolloutId, olderThan);
    if (routerIds.length === 0) return;
    await this.bus.publishDesired(routerIds);
    this.log.warn(
      { rolloutId, routers: routerIds.length },
      'desired state published again to routers without a result (a lost publish, or a slow apply)',
    );
  }

  /** An agent reported the result of applying a revision. */
  async onApplyResult(
    routerId: string,
    revisionId: string | null,
    status: 'applied' | 'failed' | 'rolled_back',
    error: string | null,
  ): Promise<void> {
    await this.onApplyResults([{ routerId, revisionId, status, error }]);
  }

  /**
   * A burst of apply results: the targets they finish are found in one query and moved in one
   * UPDATE per outcome, and each rollout they belong to is advanced once.
   */
  async onApplyResults(
    results: {
      routerId: string;
      revisionId: string | null;
      status: 'applied' | 'failed' | 'rolled_back';
      error: string | null;
    }[],
  ): Promise<void> {
    const rollouts = await finishTargets(this.db, results);
    // Not awaited: this runs in the agents' message queues, which must not wait for Redis (their
    // heartbeats would look silent); a kick that never arrives is the sweep's to make up.
    for (const rolloutId of rollouts)
      this.kick(rolloutId).catch((err: unknown) =>
        this.log.warn({ err, rolloutId }, 'could not queue the next rollout step; the sweep will'),
      );
  }

  async pause(rolloutId: string, ctx: Ctx) {
    return pauseRollout(this, rolloutId, ctx);
  }

  async resume(rolloutId: string, ctx: Ctx) {
    return resumeRollout(this, rolloutId, ctx);
  }

  async promote(rolloutId: string, ctx: Ctx) {
    return promoteRollout(this, rolloutId, ctx);
  }

  async cancel(rolloutId: string, ctx: Ctx) {
    return cancelRollout(this, rolloutId, ctx);
  }

  /**
   * The system's own pause (the failure threshold, a health gate), audited: only while the rollout
   * is still in `from` at `batch`, so a pause or cancel by an operator meanwhile stands. False when it moved on.
   */
  async pauseAutomatically(
    rolloutId: string,
    from: 'running' | 'soaking',
    batch: number,
    reason: string,
    gate?: string,
  ): Promise<boolean> {
    return this.audit.record(async (tx) => {
      const { count } = await tx.rollout.updateMany({
        where: { id: rolloutId, state: from, currentBatch: batch },
        data: {
          state: 'paused',
          pauseReason: reason,
          ...(gate !== undefined ? { pauseGate: gate } : {}),
          ...(from === 'soaking' ? { soakUntil: null } : {}),
        },
      });
      if (count === 0) return { result: false, event: null };
      return {
        result: true,
        event: {
          actor: 'system',
          action: 'rollout.paused',
          targetType: 'rollout',
          targetId: rolloutId,
          after: { reason, batch, ...(gate !== undefined ? { gate } : {}) },
        },
      };
    });
  }

  counts(rolloutId: string): Promise<Record<TargetState, number>> {
    return rolloutCounts(this.db, rolloutId);
  }

  view(rolloutId: string) {
    return rolloutView(this.db, rolloutId);
  }
}
