/**
 * The re-apply entry points: the router changed under the applied plan by itself, and the
 * plan is put back whatever the drift policy, reported as an ApplyResult of the applied
 * revision. A reboot (agent/apply/reboot.ts) lost the kernel's datapath; a WAN change
 * (agent/apply/wan-watch.ts) moved the set of interfaces the datapath covers.
 */
import { ApplyResult_Status } from '../../proto/gen/wrtfleet/agent/v1/agent.js';
import type { ApplyContext } from './apply-context.js';
import { reapplyAfterReboot } from './reboot.js';
import type { AppliedRecord, Reapplied } from './transaction.js';
import type { WanFollower } from './wan-follow.js';
import { followsWan } from './wan-watch.js';

export class Reapplier {
  constructor(
    private readonly ctx: ApplyContext,
    /** Absent: WAN changes are not followed. */
    private readonly wan: WanFollower | undefined,
    /** Rolls back an open confirm window (agent/apply/confirm-window.ts). */
    private readonly rollbackPending: (reason: string) => Promise<void>,
  ) {}

  /**
   * At start and before every drift check (a proxy agent keeps running while its router
   * reboots): a boot id other than the recorded one means the router rebooted since the
   * applied state was recorded, and the kernel lost the datapath. An unconfirmed revision
   * is rolled back at once (the last confirmed one is what the router should run; the
   * confirm timer then finds nothing pending); otherwise the applied plan is put back,
   * whatever the drift policy. Same boot id (an agent restart) or none to compare: nothing.
   * True when it handled a reboot.
   */
  async checkReboot(): Promise<boolean> {
    const { ctx } = this;
    const st = ctx.state();
    const applied = st.applied;
    if (ctx.stopped() || !applied) return false;
    const now = await ctx.bootId();
    const recorded = st.bootId;
    if (now === null || now === recorded) return false;
    if (recorded === null) {
      ctx.log(
        `no boot id recorded with ${applied.profile}@${applied.revision} (state from an older agent, or unreadable then): whether the router rebooted since cannot be told; recording this boot (${now})`,
      );
      st.bootId = now;
      await ctx.save();
      return false;
    }
    const rebooted = `the router rebooted (boot id ${recorded} -> ${now})`;
    if (st.pending) {
      ctx.log(`${rebooted} inside the confirm window of ${st.pending.profile}@${st.pending.revision}: rolling back`);
      await this.rollbackPending(`${rebooted} before ConfirmApply`);
      return true;
    }
    ctx.log(`${rebooted} since ${applied.profile}@${applied.revision} was applied: re-applying it`);
    const startedAt = ctx.now();
    const outcome = await ctx.followingWan(() => reapplyAfterReboot(ctx.datapath, applied, { recorded, now }));
    // A failure keeps the old boot id: the next start tries again.
    if (outcome.ok) st.bootId = now;
    await this.report(applied, outcome, startedAt);
    return true;
  }

  /**
   * The watch saw the eligible set change: bring the applied plan's datapath (only it) to the
   * new set and report it. Regardless of the drift policy: which interfaces the datapath
   * covers is the plan's own scope, not a hand edit. A failure is reported as FAILED and
   * changes nothing else (no rollback; the set is taken as handled, drift checks keep
   * reporting what is missing).
   */
  async followWan(): Promise<void> {
    const wan = this.wan!;
    const applied = this.ctx.state().applied;
    if (this.ctx.stopped() || !applied || !followsWan(applied.plan)) return;
    const followed = await wan.follow(applied);
    if (followed) await this.report(applied, followed.outcome, followed.startedAt);
  }

  /** A re-applied record (WAN change, reboot) as an ApplyResult of the applied revision. */
  private async report(applied: AppliedRecord, outcome: Reapplied, startedAt: number): Promise<void> {
    this.ctx.log(`${applied.profile}@${applied.revision}: ${outcome.ok ? outcome.summary : outcome.error}`);
    await this.ctx.result(outcome.ok ? ApplyResult_Status.STATUS_APPLIED : ApplyResult_Status.STATUS_FAILED, {
      profile: applied.profile,
      revision: applied.revision,
      planHash: applied.planHash,
      error: outcome.error,
      evidence: outcome.evidence,
      startedAt,
    });
  }
}
