/**
 * Commit-confirmed: after an apply the controller must answer ConfirmApply within the window,
 * or the agent restores the snapshot by itself and reports ROLLED_BACK (on reconnect if
 * needed). The open window (AgentState.pending) is saved before any result is sent, so a
 * crash or restart never forgets it: on start, an expired window rolls back at once, an open
 * one gets a timer for what is left. A confirm keeps the snapshot one level deep
 * (AgentState.rollback), for a ROLLBACK command later.
 */
import { ApplyResult_Status, type ConfirmApply, type DesiredState } from '../../proto/gen/wrtfleet/agent/v1/agent.js';
import type { Plan } from '../../core/plan.js';
import type { ApplyContext } from './apply-context.js';
import { restoreIncomplete, type ApplyResultFields } from './apply-result.js';
import type { AgentState, PendingConfirm } from './state-store.js';
import type { AppliedRecord, RestoreReport, Snapshot } from './transaction.js';

/** The window the DesiredState asks for, else the plan's own. */
export function confirmWindowSeconds(desired: DesiredState, plan: Plan): number {
  return desired.confirmWindowSeconds > 0 ? desired.confirmWindowSeconds : plan.commitConfirm.windowSeconds;
}

/** The window an apply of `record` opens, `snapshot` being the state just before that apply. */
export function openWindow(
  st: AgentState,
  record: AppliedRecord,
  snapshot: Snapshot,
  windowSeconds: number,
  now: number,
): PendingConfirm {
  const wasPending = st.pending;
  return {
    profile: record.profile,
    revision: record.revision,
    planHash: record.planHash,
    deadline: now + windowSeconds * 1000,
    windowSeconds,
    // An unconfirmed apply on top of an unconfirmed apply still rolls back to the last confirmed state.
    snapshot: wasPending ? wasPending.snapshot : snapshot,
    previous: wasPending ? wasPending.previous : st.applied,
  };
}

/** The ROLLED_BACK result of an unconfirmed revision: why, and what the router runs now. */
export function rolledBackResult(
  p: PendingConfirm,
  reason: string,
  restore: RestoreReport,
  datapath?: Record<string, unknown>,
): Omit<ApplyResultFields, 'startedAt'> {
  const to = p.previous ? `${p.previous.profile}@${p.previous.revision}` : 'the state before wrtfleet applied anything';
  return {
    profile: p.profile,
    revision: p.revision,
    planHash: p.planHash,
    error: `${reason}: rolled back to ${to}${restore.ok ? '' : `; ${restoreIncomplete(restore, { shout: true })}`}`,
    evidence: {
      restore,
      rolledBackTo: p.previous
        ? { profile: p.previous.profile, revision: p.previous.revision, planHash: p.previous.planHash }
        : null,
      snapshotTakenAt: p.snapshot.takenAt,
      ...(datapath ? { datapath } : {}),
    },
  };
}

/**
 * What runs after a rollback, read back as an apply does: the controller's live state (the
 * router page's programs) follows it. A read that fails leaves the evidence without it.
 */
async function datapathAfterRestore(ctx: ApplyContext): Promise<Record<string, unknown> | undefined> {
  try {
    return await ctx.datapath.summary();
  } catch (err) {
    ctx.log(`reading the datapath after the rollback failed: ${(err as Error).message}`);
    return undefined;
  }
}

export interface ConfirmWindowOptions {
  /** Runs a step in the manager's queue (the rollback at the deadline). */
  enqueue: (step: () => Promise<void>) => Promise<void>;
  emit: (event: 'confirmed' | 'rolledBack', value: unknown) => void;
}

/** The open window's timer, ConfirmApply, and the two rollbacks (of an unconfirmed revision, and ROLLBACK after a confirm). */
export class ConfirmWindow {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly ctx: ApplyContext,
    private readonly options: ConfirmWindowOptions,
  ) {}

  /** Times the open window: its rollback at the deadline (at once when that has passed). Replaces any earlier timer. */
  arm(): void {
    this.clear();
    const p = this.ctx.state().pending;
    if (!p || this.ctx.stopped()) return;
    const delay = Math.max(0, p.deadline - this.ctx.now());
    this.timer = setTimeout(() => {
      void this.options
        .enqueue(() => this.rollbackPending(`no ConfirmApply from the controller within ${p.windowSeconds} s`))
        .catch((err: unknown) => this.ctx.log(`rollback failed: ${(err as Error).message}`));
    }, delay);
  }

  clear(): void {
    clearTimeout(this.timer);
  }

  /** The controller confirmed: the window closes, and ROLLBACK now goes back to what ran before it. */
  async confirm(confirm: ConfirmApply): Promise<void> {
    const st = this.ctx.state();
    const p = st.pending;
    if (!p || p.profile !== confirm.profile || p.revision !== confirm.revision) {
      this.ctx.log(
        `ConfirmApply for ${confirm.profile}@${confirm.revision} ignored: ${p ? `pending is ${p.profile}@${p.revision}` : 'nothing pending'}`,
      );
      return;
    }
    st.rollback = { snapshot: p.snapshot, previous: p.previous };
    st.pending = null;
    this.clear();
    await this.ctx.save();
    this.ctx.log(`${confirm.profile}@${confirm.revision} confirmed`);
    this.options.emit('confirmed', confirm);
  }

  /** Restores the open window's snapshot and reports the unconfirmed revision ROLLED_BACK (nothing when none is open). */
  async rollbackPending(reason: string): Promise<void> {
    const { ctx } = this;
    const st = ctx.state();
    const p = st.pending;
    if (!p) return;
    const startedAt = ctx.now();
    const restore = await ctx.followingWan(() => ctx.datapath.restore(p.snapshot));
    st.applied = p.previous;
    st.pending = null;
    st.bootId = await ctx.bootId();
    await ctx.save();
    ctx.log(`${p.profile}@${p.revision} rolled back: ${reason}${restore.ok ? '' : ` (${restoreIncomplete(restore)})`}`);
    this.options.emit('rolledBack', { profile: p.profile, revision: p.revision, reason, restore });
    const datapath = await datapathAfterRestore(ctx);
    await ctx.result(ApplyResult_Status.STATUS_ROLLED_BACK, {
      ...rolledBackResult(p, reason, restore, datapath),
      startedAt,
    });
  }

  /** ROLLBACK of a confirmed revision: one level back, to what ran before it. '' on success, else the error text. */
  async rollbackConfirmed(): Promise<string> {
    const { ctx } = this;
    const st = ctx.state();
    if (!st.applied || !st.rollback) return 'nothing to roll back';
    const startedAt = ctx.now();
    const { profile, revision, planHash } = st.applied;
    const rollback = st.rollback;
    const to = rollback.previous;
    const restore = await ctx.followingWan(() => ctx.datapath.restore(rollback.snapshot));
    st.applied = st.rollback.previous;
    st.rollback = null;
    st.bootId = await ctx.bootId();
    await ctx.save();
    const datapath = await datapathAfterRestore(ctx);
    await ctx.result(ApplyResult_Status.STATUS_ROLLED_BACK, {
      profile,
      revision,
      planHash,
      error: `rollback requested by the controller: rolled back to ${to ? `${to.profile}@${to.revision}` : 'the state before wrtfleet applied anything'}`,
      // As the unconfirmed rollback's evidence: the controller sets what the router runs from `rolledBackTo`.
      evidence: {
        restore,
        rolledBackTo: to ? { profile: to.profile, revision: to.revision, planHash: to.planHash } : null,
        ...(datapath ? { datapath } : {}),
      },
      startedAt,
    });
    return restoreIncomplete(restore);
  }
}
