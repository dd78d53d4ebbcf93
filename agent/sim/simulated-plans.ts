import type { RouterFacts } from '../../core/facts/index.js';
import type { Plan } from '../../core/plan/types.js';
import type { validateProfileSpec } from '../../core/profile-spec.js';

/**
 * What the simulated routers resolved, by the desired spec's canonical JSON and (for plans) the
 * facts object. Validation and planning are pure, and the routers of one model share their facts:
 * a simulated fleet validates each spec once and resolves each (model, spec) plan once, as it
 * reads each captured tree once. Real routers each do it on their own CPU, in parallel; here
 * every simulated router shares the machine with the controller being measured.
 */
const MEMO_SIZE = 32;
export const validatedSpecs = new Map<string, ReturnType<typeof validateProfileSpec>>();
export const resolvedPlans = new WeakMap<RouterFacts, Map<string, Plan>>();

export function remember<V>(memo: Map<string, V>, key: string, compute: () => V): V {
  let value = memo.get(key);
  if (value === undefined) {
    value = compute();
    // Oldest first out: a long test run sends many specs, a fleet a few.
    if (memo.size >= MEMO_SIZE) memo.delete(memo.keys().next().value!);
    memo.set(key, value);
  }
  return value;
}

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
