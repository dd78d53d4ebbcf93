/**
 * A DesiredState as the plan for this router, and an applied revision as the DesiredState
 * that would apply it again (REAPPLY, a drift re-apply).
 */
import type { DesiredState } from '../../proto/gen/wrtfleet/agent/v1/agent.js';
import { resolvePlan, type Plan, type PlanRouter } from '../../core/plan.js';
import type { AppliedRecord } from './transaction.js';

/** The validated spec and its plan, or why the spec is refused. */
export async function planDesired(
  desired: Pick<DesiredState, 'spec'>,
  router: () => Promise<PlanRouter>,
): Promise<{ plan: Plan; spec: AppliedRecord['spec'] } | { error: string }> {
  // Loaded for each DesiredState and released after it in the bundle (a transient section, agent/packaging/build.ts): TypeBox stays off an idle agent's heap.
  const { validateProfileSpec } = await import('../../core/profile-spec.js');
  const validation = validateProfileSpec(desired.spec ?? {});
  if (!validation.ok) return { error: specRefusal(validation.errors) };
  const planRouter = await router();
  return { plan: resolvePlan(validation.spec, planRouter), spec: validation.spec };
}

/** Why a spec is refused, every error with its path. */
export function specRefusal(errors: { path: string; message: string }[]): string {
  return `invalid profile spec: ${errors.map((e) => `${e.path || '/'}: ${e.message}`).join('; ')}`;
}

export function desiredOf(a: AppliedRecord): DesiredState {
  return {
    profile: a.profile,
    revision: a.revision,
    spec: a.spec as unknown as DesiredState['spec'],
    confirmWindowSeconds: 0,
    rolloutId: '',
  };
}
