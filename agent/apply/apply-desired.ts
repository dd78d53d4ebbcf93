/**
 * One DesiredState applied, inside the ApplyManager's queue: refused when the spec is invalid
 * or the plan cannot be met here (nothing touched), reported unchanged when the same revision
 * already runs and verifies, else a transaction through the router's datapath, and on success
 * the commit-confirm window opened (agent/apply/confirm-window.ts).
 */
import { ApplyResult_Status, type DesiredState } from '../../proto/gen/wrtfleet/agent/v1/agent.js';
import type { ApplyContext } from './apply-context.js';
import { restoreIncomplete, type ApplyResultValue } from './apply-result.js';
import { confirmWindowSeconds, openWindow, type ConfirmWindow } from './confirm-window.js';
import type { planDesired } from './desired-plan.js';
import { requiresHardware, type AppliedRecord } from './transaction.js';
import { isoTime } from '../iso-time.js';

export interface ApplyDesiredOptions {
  /** Re-applies even when the same revision runs and verifies (REAPPLY, a drift re-apply). */
  force: boolean;
  /** Opens a confirm window (default); a drift re-apply does not. */
  confirm?: boolean;
  /** The validated spec and its plan for this router, or why the spec is refused. */
  plan: () => ReturnType<typeof planDesired>;
  confirmWindow: ConfirmWindow;
}

export async function applyDesired(
  ctx: ApplyContext,
  desired: DesiredState,
  { force, confirm = true, plan: planned, confirmWindow }: ApplyDesiredOptions,
): Promise<ApplyResultValue> {
  const startedAt = ctx.now();
  const id = { profile: desired.profile, revision: desired.revision };
  const resolved = await planned();
  if ('error' in resolved)
    return ctx.result(ApplyResult_Status.STATUS_REFUSED, { ...id, error: resolved.error, startedAt });
  const { plan, spec } = resolved;
  if (!plan.satisfiable) {
    // Nothing is touched: not even a snapshot is taken.
    return ctx.result(ApplyResult_Status.STATUS_REFUSED, {
      ...id,
      planHash: plan.planHash,
      error: `plan not satisfiable on this router: ${plan.refusals.map((r) => `${r.topic}: ${r.reason}`).join('; ')}`,
      evidence: { refusals: plan.refusals, decisions: plan.decisions },
      startedAt,
    });
  }

  const st = ctx.state();
  const requireHardware = requiresHardware(spec);
  const same =
    st.applied &&
    st.applied.profile === desired.profile &&
    st.applied.revision === desired.revision &&
    st.applied.planHash === plan.planHash;
  if (same && !force) {
    const verified = await ctx.datapath.verify(plan, { requireHardware });
    if (verified.differences.length === 0) {
      ctx.log(`${desired.profile}@${desired.revision} already applied and verified: no change`);
      return ctx.result(ApplyResult_Status.STATUS_APPLIED, {
        ...id,
        planHash: plan.planHash,
        evidence: {
          unchanged: true,
          pendingConfirm: st.pending !== null,
          datapath: verified.datapath,
          eligible: verified.eligible,
        },
        startedAt,
      });
    }
    ctx.log(
      `${desired.profile}@${desired.revision} already applied but the router differs (${verified.differences.length}): re-applying`,
    );
  }

  const outcome = await ctx.followingWan(() => ctx.datapath.transaction(plan, st.applied, { requireHardware }));
  if (outcome.status === 'failed') {
    ctx.log(`${desired.profile}@${desired.revision} failed: ${outcome.error}`);
    return ctx.result(ApplyResult_Status.STATUS_FAILED, {
      ...id,
      planHash: plan.planHash,
      error: outcome.restore.ok
        ? `${outcome.error} (previous state restored and verified)`
        : `${outcome.error}; ${restoreIncomplete(outcome.restore, { shout: true })}`,
      evidence: outcome.evidence,
      startedAt,
    });
  }

  const record: AppliedRecord = {
    profile: desired.profile,
    revision: desired.revision,
    planHash: plan.planHash,
    spec,
    plan,
    appliedAt: isoTime(new Date(ctx.now())),
  };
  const windowSeconds = confirmWindowSeconds(desired, plan);
  if (confirm) st.pending = openWindow(st, record, outcome.snapshot!, windowSeconds, ctx.now());
  st.applied = record;
  st.bootId = await ctx.bootId();
  await ctx.save();
  if (confirm) confirmWindow.arm();
  ctx.log(
    `${desired.profile}@${desired.revision} applied${confirm ? `; waiting ${windowSeconds} s for ConfirmApply` : ''}`,
  );
  return ctx.result(ApplyResult_Status.STATUS_APPLIED, {
    ...id,
    planHash: plan.planHash,
    evidence: {
      ...outcome.evidence,
      changed: outcome.changed,
      confirmWindowSeconds: confirm ? windowSeconds : 0,
      decisions: plan.decisions,
      warnings: plan.warnings,
    },
    startedAt,
  });
}
