import { canonicalJson } from '../../core/canonical-json.js';
import { resolvePlan, type PlanRouter } from '../../core/plan.js';
import type { Plan } from '../../core/plan/types.js';
import { validateProfileSpec } from '../../core/profile-spec.js';
import { specRefusal, type planDesired } from '../apply/desired-plan.js';

/**
 * What the simulated routers resolved, by the desired spec's canonical JSON and (for plans) the
 * facts object. Validation and planning are pure, and the routers of one model share their facts:
 * a simulated fleet validates each spec once and resolves each (model, spec) plan once, as it
 * reads each captured tree once. Real routers each do it on their own CPU, in parallel; here
 * every simulated router shares the machine with the controller being measured.
 */
const MEMO_SIZE = 32;
const validatedSpecs = new Map<string, ReturnType<typeof validateProfileSpec>>();
const resolvedPlans = new WeakMap<object, Map<string, Plan>>();

function remember<V>(memo: Map<string, V>, key: string, compute: () => V): V {
  let value = memo.get(key);
  if (value === undefined) {
    value = compute();
    // Oldest first out: a long test run sends many specs, a fleet a few.
    if (memo.size >= MEMO_SIZE) memo.delete(memo.keys().next().value!);
    memo.set(key, value);
  }
  return value;
}

/**
 * The agent's planDesired (agent/apply/desired-plan.ts) for a simulated router, shared as above:
 * the same validation, refusal and plan, computed once per spec and model. The router's facts
 * must be the model's shared object (SimulatedRouterOptions.facts) for plans to be shared.
 */
export const simulatedPlan: typeof planDesired = async (desired, router) => {
  const specKey = canonicalJson(desired.spec ?? {});
  const validation = remember(validatedSpecs, specKey, () => validateProfileSpec(desired.spec ?? {}));
  if (!validation.ok) return { error: specRefusal(validation.errors) };
  const planRouter: PlanRouter = await router();
  let plans = resolvedPlans.get(planRouter.facts);
  if (!plans) resolvedPlans.set(planRouter.facts, (plans = new Map()));
  return { plan: remember(plans, specKey, () => resolvePlan(validation.spec, planRouter)), spec: validation.spec };
};

/** What a plan puts on the router, in the real agent's evidence shape (agent/apply/transaction.ts, summarizeDatapath). */
export function datapathEvidence(wan: string, plan: Pick<Plan, 'datapath'> | undefined) {
  const mode = plan?.datapath.mode ?? 'none';
  return {
    ebpf:
      plan && mode === 'ebpf'
        ? [
            {
              ifname: wan,
              mode: plan.datapath.attach,
              programs: plan.datapath.programs.map((p) => ({ program: p.name })),
            },
          ]
        : [],
    nftables: mode === 'nftables' ? { table: 'inet wrtfleet', interfaces: [wan] } : null,
    iptables: mode === 'iptables' ? { chain: 'mangle wrtfleet_egress', interfaces: [wan] } : null,
  };
}
