/**
 * resolvePlan: profile spec + router (facts, predicted and probed capabilities) -> the concrete
 * plan for that router. ONE pure function: the server calls it for previews, the agent calls it
 * as the authority before applying. No I/O, no clock, no randomness: same input, same plan, same
 * planHash.
 *
 * How the plan decides (every step leaves a decision with its reason; one module per step):
 * 1. Capabilities (plan/capabilities.ts): a probed value, when present, wins over the predicted
 *    one (the device wins over our tables, docs/DOMAIN.md). TCX implies eBPF; hardware offload
 *    implies software.
 * 2. Programs (plan/programs.ts): straight from the spec's l3Rewrite switches, in the fixed order
 *    of PROGRAM_NAMES (they touch disjoint fields, so the order is for stable plans only).
 * 3. Datapath (plan/datapath.ts): eBPF when `ebpf` is on/auto and eBPF is usable (kernel
 *    capability, known byte order to pick bpfel/bpfeb, attach tooling); `on` refuses when it is
 *    not, `auto` falls back to in-kernel rules, `off` always uses them: nftables, or on fw3
 *    routers without nft the iptables targets that exist, naming the rewrites that then cannot
 *    run (plan/netfilter-fallback.ts). No rewrite at all -> `none`.
 * 4. Offload (plan/offload.ts): the requested mode is matched to the router; what happens when
 *    it is not there follows the conflict policy (see resolveOffloadCapability).
 * 5. Conflicts (plan/conflicts.ts; docs/DOMAIN.md, Flow offloading), resolved by the policy:
 *    hardware offload vs per-packet rewrites, netfilter (nftables or iptables) rewrites vs any offload, and offload vs
 *    SQM shaping (informational). SYN-only rewrites are in neither of the first two.
 *
 * The conflict policy names the HARD half of a profile. prefer-rewrite: the rewrites are the
 * contract and offloading is best effort, so an unavailable offload mode degrades (hardware ->
 * software -> off). prefer-offload: the offload mode is the contract, so an explicit mode the
 * router lacks refuses the plan (use `auto` for "best available"), and rewrites degrade instead.
 * `ebpf: on` is the rewrite side's own "required" switch and refuses independently.
 *
 * A plan with satisfiable=false still shows what the profile would have meant (datapath,
 * offload) for previews; the agent applies NOTHING from it.
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json.js';
import type { ProfileSpec } from './profile-spec.js';
import { effectiveCapabilities } from './plan/capabilities.js';
import { resolveConflicts } from './plan/conflicts.js';
import { resolveDatapath } from './plan/datapath.js';
import { offloadSettings, resolveOffloadCapability } from './plan/offload.js';
import { plannedPrograms } from './plan/programs.js';
import {
  PLAN_VERSION,
  type Decide,
  type Plan,
  type PlanDecision,
  type PlanPrerequisite,
  type PlanRefusal,
  type PlanRouter,
  type Sinks,
} from './plan/types.js';

export { rewriteConfigOf } from './plan/programs.js';
export {
  PLAN_VERSION,
  UCI_FLOW_OFFLOADING,
  UCI_FLOW_OFFLOADING_HW,
  type CapabilityName,
  type CapabilityReport,
  type ConflictId,
  type ConflictResolution,
  type DatapathMode,
  type EffectiveCapability,
  type OffloadMode,
  type Plan,
  type PlanConflict,
  type PlanDecision,
  type PlanFacts,
  type PlannedProgram,
  type PlanPrerequisite,
  type PlanRefusal,
  type PlanRouter,
  type UciOffloadSettings,
  type UnavailableRewrite,
} from './plan/types.js';

export function resolvePlan(spec: ProfileSpec, router: PlanRouter): Plan {
  const decisions: PlanDecision[] = [];
  const refusals: PlanRefusal[] = [];
  const warnings: string[] = [];
  const prerequisites: PlanPrerequisite[] = [];
  const decide: Decide = (topic, choice, reason) => decisions.push({ topic, choice, reason });
  const sinks: Sinks = { decide, refusals, warnings, prerequisites };
  const policy = spec.conflictPolicy;

  const capabilities = effectiveCapabilities(router);
  const programs = plannedPrograms(spec, decide);
  const datapath = resolveDatapath(spec, router.facts, capabilities, programs, sinks);
  const offloadForRouter = resolveOffloadCapability(spec.flowOffload.mode, policy, capabilities, sinks);
  // The rewrites that run: the iptables fallback drops those it has no target for, and what does not run cannot conflict.
  const { offload, conflicts } = resolveConflicts(policy, datapath.mode, datapath.programs, offloadForRouter, sinks);
  const uci = offloadSettings(offload, router.facts, sinks);

  decide(
    'commitConfirm.windowSeconds',
    String(spec.commitConfirm.windowSeconds),
    'from the profile: the agent rolls back by itself unless the controller confirms the apply within this window',
  );
  decide(
    'drift',
    `${spec.drift.policy} every ${spec.drift.intervalSeconds}s`,
    spec.drift.policy === 'reapply'
      ? 'from the profile: differences from this plan are reported and the revision is re-applied'
      : 'from the profile: differences from this plan are reported, nothing is re-applied automatically',
  );

  const plan: Omit<Plan, 'planHash'> = {
    planVersion: PLAN_VERSION,
    satisfiable: refusals.length === 0,
    refusals,
    capabilities,
    datapath,
    offload: { requested: spec.flowOffload.mode, mode: offload, uci },
    prerequisites,
    commitConfirm: { windowSeconds: spec.commitConfirm.windowSeconds },
    drift: { policy: spec.drift.policy, intervalSeconds: spec.drift.intervalSeconds },
    conflicts,
    decisions,
    warnings,
  };
  return { ...plan, planHash: computePlanHash(plan) };
}

/**
 * The parts of a plan the agent acts on. Reasons, decisions, warnings and the capability
 * evidence are left out on purpose: rewording an explanation must not look like a change.
 * `offload.requested` is left out too: two profiles that lead to the same actions are the same plan.
 */
export function planHashInput(plan: Omit<Plan, 'planHash'>): unknown {
  return {
    planVersion: plan.planVersion,
    satisfiable: plan.satisfiable,
    datapath: datapathHashInput(plan.datapath),
    offload: { mode: plan.offload.mode, uci: plan.offload.uci },
    prerequisites: plan.prerequisites.map((p) => p.package),
    commitConfirm: plan.commitConfirm,
    drift: plan.drift,
  };
}

/** The datapath without the reasons for unavailable rewrites (absent altogether when none are, as before they existed). */
function datapathHashInput({ unavailable, ...datapath }: Plan['datapath']): unknown {
  return unavailable ? { ...datapath, unavailable: unavailable.map((u) => u.program) } : datapath;
}

export function computePlanHash(plan: Omit<Plan, 'planHash'>): string {
  return createHash('sha256')
    .update(canonicalJson(planHashInput(plan)))
    .digest('hex');
}
