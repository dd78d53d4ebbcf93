/**
 * resolvePlan: profile spec + router (facts, predicted and probed capabilities) -> the concrete
 * plan for that router. ONE pure function: the server calls it for previews, the agent calls it
 * as the authority before applying. No I/O, no clock, no randomness: same input, same plan, same
 * planHash.
 *
 * How the plan decides (every step leaves a decision with its reason):
 * 1. Capabilities: a probed value, when present, wins over the predicted one (the device wins
 *    over our tables, docs/DOMAIN.md). TCX implies eBPF; hardware offload implies software.
 * 2. Programs: straight from the spec's l3Rewrite switches, in the fixed order of
 *    REWRITE_PROGRAMS (they touch disjoint fields, so the order is for stable plans only).
 * 3. Datapath: eBPF when `ebpf` is on/auto and eBPF is usable (kernel capability, known byte
 *    order to pick bpfel/bpfeb, attach tooling); `on` refuses when it is not, `auto` falls back
 *    to the in-kernel nftables rules, `off` always uses nftables. No rewrite at all -> `none`.
 * 4. Offload: the requested mode is matched to the router; what happens when it is not there
 *    follows the conflict policy (see resolveOffloadCapability).
 * 5. Conflicts (docs/DOMAIN.md, Flow offloading), resolved by the policy:
 *    (a) hardware offload vs per-packet rewrites (TTL, IP-ID, hop limit): PPE-bound flows never
 *        reach the CPU. prefer-rewrite -> software offload (TC egress still sees those packets);
 *        prefer-offload -> keep hardware, warn.
 *    (b) nftables per-packet rewrites vs any offload: offloaded flows skip netfilter after
 *        ingress. prefer-rewrite -> offload off; prefer-offload -> keep, warn.
 *        SYN-only rewrites are in neither conflict: a flow is only offloaded once conntrack has
 *        seen traffic both ways, so the first SYN always takes the full path.
 *    (c) offloaded flows bypass SQM/qdisc shaping: informational.
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
import { FW4_MIN_OPENWRT, predictCapabilities, type CapabilityFlags, type CapabilityInput } from './capabilities.js';
import {
  DEFAULT_REWRITE,
  PROGRAM_NAMES,
  type AttachMode,
  type BpfEndian,
  type ProgramName,
  type RewriteConfig,
} from './programs.js';
import { openWrtAtLeast } from './facts/release.js';
import type { Endian } from './facts/types.js';
import type { ConflictPolicy, DriftPolicy, FlowOffloadMode, ProfileSpec } from './profile-spec.js';
import { canonicalJson } from './canonical-json.js';

export const PLAN_VERSION = 1 as const;

/** The four TC egress programs (docs/DOMAIN.md, The four rewrites), in plan order: the datapath's list. */
export const REWRITE_PROGRAMS = PROGRAM_NAMES;
export type RewriteProgramName = ProgramName;

/** Which packets a program touches; this alone decides which offload conflicts it is part of. */
export type ProgramScope = 'every-packet' | 'first-syn';
export const PROGRAM_SCOPE: Readonly<Record<RewriteProgramName, ProgramScope>> = Object.freeze({
  set_ip_id_zero: 'every-packet',
  set_ip_ttl: 'every-packet',
  set_tcp_syn_window: 'first-syn',
  clear_tcp_syn_ts: 'first-syn',
});

export type PlannedProgram =
  | { name: 'set_ip_id_zero'; scope: 'every-packet'; config: Record<string, never> }
  | { name: 'set_ip_ttl'; scope: 'every-packet'; config: { ttl: number; ipv6HopLimit: boolean } }
  | { name: 'set_tcp_syn_window'; scope: 'first-syn'; config: { window: number } }
  | { name: 'clear_tcp_syn_ts'; scope: 'first-syn'; config: Record<string, never> };

export type DatapathMode = 'ebpf' | 'nftables' | 'none';
export type BpfObjectEndian = BpfEndian;
export type OffloadMode = 'off' | 'software' | 'hardware';
export type CapabilityName = keyof CapabilityFlags;

/** The facts resolvePlan reads: what predictCapabilities reads, plus the CPU byte order. */
export type PlanFacts = CapabilityInput & { endian?: Endian | null };

/** Flags with optional reasons; the server passes stored predictions, the agent its own. */
export type CapabilityReport = Partial<CapabilityFlags> & { reasons?: Partial<Record<CapabilityName, string>> };

export interface PlanRouter {
  facts: PlanFacts;
  capabilities?: {
    /** Missing flags are predicted from `facts` with predictCapabilities (the one table). */
    predicted?: CapabilityReport | null;
    /** Results of the on-device probe; a present flag wins over the prediction. */
    probed?: CapabilityReport | null;
  };
}

export interface EffectiveCapability {
  value: boolean;
  source: 'probed' | 'predicted';
  reason: string;
}

export const UCI_FLOW_OFFLOADING = 'firewall.@defaults[0].flow_offloading';
export const UCI_FLOW_OFFLOADING_HW = 'firewall.@defaults[0].flow_offloading_hw';
export interface UciOffloadSettings {
  [UCI_FLOW_OFFLOADING]: '0' | '1';
  [UCI_FLOW_OFFLOADING_HW]: '0' | '1';
}

export type ConflictId =
  'hardware-offload-vs-per-packet-rewrite' | 'nftables-rewrite-vs-offload' | 'offload-bypasses-sqm';
export type ConflictResolution = 'offload-downgraded' | 'offload-disabled' | 'rewrite-partial' | 'informational';

export interface PlanConflict {
  id: ConflictId;
  /** The policy that resolved it (informational conflicts are not policy-driven: null). */
  policy: ConflictPolicy | null;
  resolution: ConflictResolution;
  /** Programs whose effect the conflict touches. */
  programs: RewriteProgramName[];
  offload: { before: OffloadMode; after: OffloadMode };
  detail: string;
}

export interface PlanDecision {
  topic: string;
  choice: string;
  reason: string;
}

export interface PlanRefusal {
  topic: string;
  reason: string;
}

export interface PlanPrerequisite {
  /** OpenWrt package that must be installed before applying. */
  package: string;
  reason: string;
}

export interface Plan {
  planVersion: typeof PLAN_VERSION;
  satisfiable: boolean;
  refusals: PlanRefusal[];
  capabilities: Record<CapabilityName, EffectiveCapability>;
  datapath: {
    mode: DatapathMode;
    /** How programs attach (eBPF only): TCX bpf_link where the kernel has it, else clsact + cls_bpf. */
    attach: AttachMode | null;
    /** Which build of the BPF objects to upload (eBPF only). */
    bpfObject: BpfObjectEndian | null;
    /** Rewrites in order; in nftables mode the same names identify the equivalent nft rules. */
    programs: PlannedProgram[];
  };
  offload: {
    requested: FlowOffloadMode;
    mode: OffloadMode;
    /** Options to write under `uci set` (then `uci commit firewall`); null where there is no uci. */
    uci: UciOffloadSettings | null;
  };
  prerequisites: PlanPrerequisite[];
  commitConfirm: { windowSeconds: number };
  drift: { policy: DriftPolicy; intervalSeconds: number };
  conflicts: PlanConflict[];
  decisions: PlanDecision[];
  warnings: string[];
  /** sha256 (hex) of the canonical JSON of the actionable parts (see planHashInput). */
  planHash: string;
}

const CAPABILITY_NAMES: readonly CapabilityName[] = ['ebpf', 'tcx', 'softwareOffload', 'hardwareOffload'];

export function resolvePlan(spec: ProfileSpec, router: PlanRouter): Plan {
  const decisions: PlanDecision[] = [];
  const refusals: PlanRefusal[] = [];
  const warnings: string[] = [];
  const prerequisites: PlanPrerequisite[] = [];
  const decide = (topic: string, choice: string, reason: string) => decisions.push({ topic, choice, reason });
  const policy = spec.conflictPolicy;

  const capabilities = effectiveCapabilities(router);

  // 2. Programs.
  const programs = plannedPrograms(spec, decide);
  const perPacket = programs.filter((p) => p.scope === 'every-packet').map((p) => p.name);
  const synOnly = programs.filter((p) => p.scope === 'first-syn').map((p) => p.name);

  // 3. Datapath.
  const datapath = resolveDatapath(spec, router.facts, capabilities, programs, {
    decide,
    refusals,
    warnings,
    prerequisites,
  });

  // 4. Offload against the router.
  const offloadForRouter = resolveOffloadCapability(spec.flowOffload.mode, policy, capabilities, { decide, refusals });
  let offload = offloadForRouter;

  // 5. Conflicts.
  const conflicts: PlanConflict[] = [];
  const hwTopic = 'conflict.hardware-offload-vs-per-packet-rewrite';
  if (offload === 'hardware' && perPacket.length > 0) {
    const lost = perPacket.map(describeProgramEffect).join(' and ');
    if (policy === 'prefer-rewrite') {
      const detail =
        datapath.mode === 'ebpf'
          ? `hardware-offloaded flows are forwarded by the PPE and never reach the CPU, so ${lost} would stop once a flow is bound; prefer-rewrite downgrades to software offload, whose flows still leave through dev_queue_xmit and so still pass the TC egress programs`
          : `hardware-offloaded flows never reach the CPU, so ${lost} would stop once a flow is bound; prefer-rewrite downgrades to software offload (see the nftables conflict for what software offload means to nft rules)`;
      conflicts.push({
        id: 'hardware-offload-vs-per-packet-rewrite',
        policy,
        resolution: 'offload-downgraded',
        programs: perPacket,
        offload: { before: 'hardware', after: 'software' },
        detail,
      });
      decide(hwTopic, 'offload-downgraded', detail);
      offload = 'software';
    } else {
      const detail = `prefer-offload keeps hardware offload: ${lost} apply only to packets the CPU still sees, i.e. the first packets of each flow before the PPE binds it; ${synOnly.length > 0 ? `${synOnly.join(', ')} ${synOnly.length > 1 ? 'are' : 'is'} unaffected (the first SYN always passes the CPU)` : 'no SYN-only program is enabled'}`;
      conflicts.push({
        id: 'hardware-offload-vs-per-packet-rewrite',
        policy,
        resolution: 'rewrite-partial',
        programs: perPacket,
        offload: { before: 'hardware', after: 'hardware' },
        detail,
      });
      decide(hwTopic, 'rewrite-partial', detail);
      warnings.push(`hardware offload kept: ${lost} stop for each flow once it is bound in the PPE`);
    }
  } else if (offload === 'hardware') {
    decide(
      hwTopic,
      'none',
      synOnly.length > 0
        ? `only first-SYN rewrites are enabled (${synOnly.join(', ')}); the first SYN always passes the CPU before a flow can be offloaded, so hardware offload does not affect them`
        : 'no rewrite is enabled, so hardware offload takes nothing away',
    );
  } else {
    decide(hwTopic, 'none', `offload is ${offload}, not hardware: nothing bypasses the CPU`);
  }

  const nftTopic = 'conflict.nftables-rewrite-vs-offload';
  if (datapath.mode === 'nftables' && offload !== 'off' && perPacket.length > 0) {
    const lost = perPacket.map(describeProgramEffect).join(' and ');
    if (policy === 'prefer-rewrite') {
      const detail = `${offload}-offloaded flows skip every netfilter hook after ingress, so the nftables rules for ${lost} would stop once a flow is offloaded; prefer-rewrite turns offloading off (eBPF would have allowed software offload, but this plan runs on nftables)`;
      conflicts.push({
        id: 'nftables-rewrite-vs-offload',
        policy,
        resolution: 'offload-disabled',
        programs: perPacket,
        offload: { before: offload, after: 'off' },
        detail,
      });
      decide(nftTopic, 'offload-disabled', detail);
      offload = 'off';
    } else {
      const detail = `prefer-offload keeps ${offload} offload: the nftables rules for ${lost} apply only until conntrack sees the flow both ways and offloads it, i.e. to the first packets of each flow`;
      conflicts.push({
        id: 'nftables-rewrite-vs-offload',
        policy,
        resolution: 'rewrite-partial',
        programs: perPacket,
        offload: { before: offload, after: offload },
        detail,
      });
      decide(nftTopic, 'rewrite-partial', detail);
      warnings.push(`${offload} offload kept with nftables rewriting: ${lost} stop for each flow once it is offloaded`);
    }
  } else if (datapath.mode === 'nftables' && offload !== 'off') {
    decide(
      nftTopic,
      'none',
      `only first-SYN rewrites run in nftables (${synOnly.join(', ')}); flows are offloaded only after conntrack has seen traffic both ways, so the first SYN always traverses the netfilter hooks`,
    );
  } else if (datapath.mode === 'ebpf' && offload === 'software') {
    decide(
      nftTopic,
      'none',
      'rewrites run as TC egress eBPF, which software-offloaded flows still pass (dev_queue_xmit): rewriting and software offload coexist',
    );
  } else {
    decide(
      nftTopic,
      'none',
      datapath.mode === 'nftables'
        ? 'offload is off: every packet traverses the nftables rules'
        : `datapath is ${datapath.mode}: no nftables rewrite to bypass`,
    );
  }

  const sqmTopic = 'conflict.offload-bypasses-sqm';
  if (offload !== 'off') {
    const detail = `${offload}-offloaded flows bypass SQM/qdisc shaping (CAKE, fq_codel) on the forwarding path; if this router shapes traffic, use offload off`;
    conflicts.push({
      id: 'offload-bypasses-sqm',
      policy: null,
      resolution: 'informational',
      programs: [],
      offload: { before: offload, after: offload },
      detail,
    });
    decide(sqmTopic, 'informational', detail);
  } else {
    decide(sqmTopic, 'none', 'offload is off: SQM/qdisc shaping sees every packet');
  }

  const changedBy = conflicts
    .filter((c) => c.offload.before !== c.offload.after)
    .map((c) => `${c.id}: ${c.offload.before} -> ${c.offload.after}`);
  decide(
    'offload.mode',
    offload,
    changedBy.length > 0
      ? `the router allows ${offloadForRouter}; the ${policy} policy changed it (${changedBy.join('; ')})`
      : `${offload}, as matched to the router (offload.capability); no conflict changed it`,
  );

  // Offload settings to write.
  const uci = uciSettings(offload, router.facts);
  decide(
    'offload.uci',
    uci ? `flow_offloading=${uci[UCI_FLOW_OFFLOADING]} flow_offloading_hw=${uci[UCI_FLOW_OFFLOADING_HW]}` : 'none',
    uci
      ? offload === 'off'
        ? 'offloading off: both firewall defaults are written as 0, explicitly, so the applied state is checkable and an earlier setting does not linger'
        : `firewall defaults for ${offload} offload (flow_offloading_hw only acts with flow_offloading=1), then uci commit firewall and a firewall reload`
      : 'not OpenWrt: no uci/fw4, so offloading is not managed on this router',
  );
  if (offload !== 'off' && router.facts.packages?.nftOffload === false) {
    prerequisites.push({
      package: 'kmod-nft-offload',
      reason: 'fw4 flowtables need nft_flow_offload, and kmod-nft-offload is not installed',
    });
  }

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
    datapath: plan.datapath,
    offload: { mode: plan.offload.mode, uci: plan.offload.uci },
    prerequisites: plan.prerequisites.map((p) => p.package),
    commitConfirm: plan.commitConfirm,
    drift: plan.drift,
  };
}

export function computePlanHash(plan: Omit<Plan, 'planHash'>): string {
  return createHash('sha256')
    .update(canonicalJson(planHashInput(plan)))
    .digest('hex');
}

// --- 1. capabilities ---------------------------------------------------------------------

function effectiveCapabilities(router: PlanRouter): Record<CapabilityName, EffectiveCapability> {
  const given = router.capabilities?.predicted;
  const needsPrediction = !given || CAPABILITY_NAMES.some((name) => typeof given[name] !== 'boolean');
  const computed = needsPrediction ? predictCapabilities(router.facts) : null;
  const probed = router.capabilities?.probed;

  const pick = (name: CapabilityName): EffectiveCapability => {
    const probedValue = probed?.[name];
    const predictedValue = typeof given?.[name] === 'boolean' ? (given[name] as boolean) : (computed?.[name] ?? false);
    const predictedReason =
      (typeof given?.[name] === 'boolean' ? given.reasons?.[name] : computed?.reasons[name]) ??
      `predicted ${predictedValue} (no reason supplied)`;
    if (typeof probedValue === 'boolean') {
      const overrides =
        probedValue !== predictedValue
          ? `, overriding the prediction (${predictedValue}: ${predictedReason})`
          : ', confirming the prediction';
      return {
        value: probedValue,
        source: 'probed',
        reason: `${probed?.reasons?.[name] ?? `probed ${probedValue} on the device`}${overrides}`,
      };
    }
    return { value: predictedValue, source: 'predicted', reason: predictedReason };
  };

  const result = Object.fromEntries(CAPABILITY_NAMES.map((name) => [name, pick(name)])) as Record<
    CapabilityName,
    EffectiveCapability
  >;
  // Dependent flags: TCX is an eBPF attach method; flow_offloading_hw does nothing without flow_offloading.
  if (result.tcx.value && !result.ebpf.value)
    result.tcx = {
      value: false,
      source: result.ebpf.source,
      reason: `eBPF unavailable (${result.ebpf.reason}), so no TCX`,
    };
  if (result.hardwareOffload.value && !result.softwareOffload.value) {
    result.hardwareOffload = {
      value: false,
      source: result.softwareOffload.source,
      reason: `flow_offloading_hw needs fw4 software offloading, which is unavailable (${result.softwareOffload.reason})`,
    };
  }
  return result;
}

// --- 2. programs -------------------------------------------------------------------------

type Decide = (topic: string, choice: string, reason: string) => void;

function plannedPrograms(spec: ProfileSpec, decide: Decide): PlannedProgram[] {
  const r = spec.l3Rewrite;
  const programs: PlannedProgram[] = [];
  if (r.ipid) programs.push({ name: 'set_ip_id_zero', scope: 'every-packet', config: {} });
  decide(
    'program.set_ip_id_zero',
    r.ipid ? 'enabled' : 'disabled',
    r.ipid ? 'l3Rewrite.ipid is on: the IPv4 ID of every packet is set to 0' : 'l3Rewrite.ipid is off',
  );

  // IPv6 hop limit rides on set_ip_ttl; validateProfileSpec refuses it without TTL, this guards unvalidated callers.
  const hopLimit = r.ttl.enabled && r.ipv6HopLimit;
  if (r.ttl.enabled)
    programs.push({ name: 'set_ip_ttl', scope: 'every-packet', config: { ttl: r.ttl.value, ipv6HopLimit: hopLimit } });
  decide(
    'program.set_ip_ttl',
    r.ttl.enabled ? `enabled ttl=${r.ttl.value}${hopLimit ? ' +ipv6' : ''}` : 'disabled',
    r.ttl.enabled
      ? `l3Rewrite.ttl is on: the TTL of every IPv4 packet is set to ${r.ttl.value}${hopLimit ? `, and the IPv6 hop limit too (l3Rewrite.ipv6HopLimit)` : '; IPv6 is left untouched (l3Rewrite.ipv6HopLimit is off)'}`
      : `l3Rewrite.ttl is off${r.ipv6HopLimit ? '; ipv6HopLimit is ignored because it rides on set_ip_ttl' : ''}`,
  );

  if (r.tcpwin.enabled)
    programs.push({ name: 'set_tcp_syn_window', scope: 'first-syn', config: { window: r.tcpwin.value } });
  decide(
    'program.set_tcp_syn_window',
    r.tcpwin.enabled ? `enabled window=${r.tcpwin.value}` : 'disabled',
    r.tcpwin.enabled
      ? `l3Rewrite.tcpwin is on: the window of first TCP SYNs is set to ${r.tcpwin.value}`
      : 'l3Rewrite.tcpwin is off',
  );

  if (r.tcpts) programs.push({ name: 'clear_tcp_syn_ts', scope: 'first-syn', config: {} });
  decide(
    'program.clear_tcp_syn_ts',
    r.tcpts ? 'enabled' : 'disabled',
    r.tcpts
      ? 'l3Rewrite.tcpts is on: the timestamp option of first TCP SYNs is overwritten with NOPs'
      : 'l3Rewrite.tcpts is off',
  );
  // Plan order is the datapath's order, whatever order the switches were read in.
  return programs.sort((a, b) => PROGRAM_NAMES.indexOf(a.name) - PROGRAM_NAMES.indexOf(b.name));
}

/**
 * The datapath's view of a plan's programs (agent/datapath/programs.ts): what the loader patches
 * into each object's .rodata. Values of programs that are not enabled keep the datapath defaults.
 */
export function rewriteConfigOf(plan: Pick<Plan, 'datapath'>): RewriteConfig {
  const config: RewriteConfig = { ...DEFAULT_REWRITE, programs: plan.datapath.programs.map((p) => p.name) };
  for (const program of plan.datapath.programs) {
    if (program.name === 'set_ip_ttl') {
      config.ttl = program.config.ttl;
      config.ipv6HopLimit = program.config.ipv6HopLimit;
    }
    if (program.name === 'set_tcp_syn_window') config.synWindow = program.config.window;
  }
  return config;
}

function describeProgramEffect(name: RewriteProgramName): string {
  switch (name) {
    case 'set_ip_id_zero':
      return 'IP-ID zeroing';
    case 'set_ip_ttl':
      return 'TTL rewriting';
    case 'set_tcp_syn_window':
      return 'SYN window rewriting';
    case 'clear_tcp_syn_ts':
      return 'SYN timestamp clearing';
  }
}

// --- 3. datapath -------------------------------------------------------------------------

interface Sinks {
  decide: Decide;
  refusals: PlanRefusal[];
  warnings: string[];
  prerequisites: PlanPrerequisite[];
}

function resolveDatapath(
  spec: ProfileSpec,
  facts: PlanFacts,
  capabilities: Record<CapabilityName, EffectiveCapability>,
  programs: PlannedProgram[],
  { decide, refusals, warnings, prerequisites }: Sinks,
): Plan['datapath'] {
  const ebpfMode = spec.l3Rewrite.ebpf;
  if (programs.length === 0) {
    decide(
      'datapath.mode',
      'none',
      `no rewrite is enabled, so no programs or rules are needed (ebpf: ${ebpfMode} has nothing to require)`,
    );
    return { mode: 'none', attach: null, bpfObject: null, programs };
  }

  const attach: AttachMode = capabilities.tcx.value ? 'tcx' : 'cls_bpf';
  const bpfObject: BpfObjectEndian | null =
    facts.endian === 'little' ? 'bpfel' : facts.endian === 'big' ? 'bpfeb' : null;

  // What stops eBPF outright (cannot be fixed by installing a package).
  const blockers: { topic: string; reason: string }[] = [];
  if (!capabilities.ebpf.value)
    blockers.push({ topic: 'capability.ebpf', reason: `eBPF unavailable: ${capabilities.ebpf.reason}` });
  if (!bpfObject)
    blockers.push({
      topic: 'datapath.bpfObject',
      reason: 'CPU byte order unknown: cannot choose the bpfel or bpfeb build of the programs',
    });
  // What stops cls_bpf attach until packages are installed (TCX uses bpf_link and needs neither).
  const missingTooling: PlanPrerequisite[] = [];
  if (attach === 'cls_bpf' && facts.packages?.tcBpf === false) {
    missingTooling.push({
      package: 'tc-bpf',
      reason: `attaching with cls_bpf needs a tc that loads BPF objects; ${facts.packages.tc ?? 'no tc'} is installed (tc-full works too)`,
    });
  }
  if (attach === 'cls_bpf' && facts.packages?.clsBpf === false) {
    missingTooling.push({
      package: 'kmod-sched-bpf',
      reason: 'attaching with cls_bpf needs the cls_bpf classifier (kmod-sched-bpf), which is not installed',
    });
  }

  if (ebpfMode === 'off') {
    decide('datapath.mode', 'nftables', 'l3Rewrite.ebpf is off: the rewrites run as in-kernel nftables rules');
  } else if (blockers.length > 0) {
    const why = blockers.map((b) => b.reason).join('; ');
    if (ebpfMode === 'on') {
      for (const b of blockers)
        refusals.push({ topic: b.topic, reason: `l3Rewrite.ebpf is on (eBPF required): ${b.reason}` });
      decide(
        'datapath.mode',
        'ebpf (refused)',
        `l3Rewrite.ebpf is on, which requires eBPF, but ${why}; nothing is applied`,
      );
      return { mode: 'ebpf', attach: capabilities.ebpf.value ? attach : null, bpfObject, programs };
    }
    decide(
      'datapath.mode',
      'nftables',
      `l3Rewrite.ebpf is auto and ${why}: falling back to the in-kernel nftables rules`,
    );
  } else if (ebpfMode === 'auto' && missingTooling.length > 0) {
    decide(
      'datapath.mode',
      'nftables',
      `l3Rewrite.ebpf is auto; eBPF works in this kernel but cannot be attached until ${missingTooling.map((p) => p.package).join(' and ')} ${missingTooling.length > 1 ? 'are' : 'is'} installed: falling back to the in-kernel nftables rules (install them and set ebpf to on to use eBPF)`,
    );
  } else {
    const confirm =
      capabilities.ebpf.source === 'predicted'
        ? ' (predicted; the on-device probe decides before anything is applied)'
        : ' (probed on the device)';
    decide(
      'datapath.mode',
      'ebpf',
      `l3Rewrite.ebpf is ${ebpfMode} and eBPF is available${confirm}: TC egress programs on the WAN interfaces`,
    );
    decide(
      'datapath.attach',
      attach,
      attach === 'tcx'
        ? `TCX available (${capabilities.tcx.reason}): programs chain through bpf_link`
        : `no TCX (${capabilities.tcx.reason}): clsact qdisc + cls_bpf direct-action filters`,
    );
    decide(
      'datapath.bpfObject',
      String(bpfObject),
      `the CPU is ${facts.endian}-endian, so the ${bpfObject} build of the programs is uploaded`,
    );
    if (ebpfMode === 'on' && missingTooling.length > 0) {
      // eBPF is required and the kernel can do it: the packages are the way there, not a reason to refuse.
      prerequisites.push(...missingTooling);
      warnings.push(
        `install ${missingTooling.map((p) => p.package).join(' and ')} before applying: cls_bpf attach needs them`,
      );
    }
    return { mode: 'ebpf', attach, bpfObject, programs };
  }

  // nftables from here on.
  const fw3 =
    facts.packages?.firewall === 'firewall' ||
    (facts.packages?.firewall !== 'firewall4' && openWrtAtLeast(facts.openwrt?.version, FW4_MIN_OPENWRT) === false);
  if (fw3) {
    warnings.push(
      'nftables rewriting on a pre-fw4 (fw3/iptables) release: nft is not part of these images and older nft/kernels may lack some statements (reset tcp option); the agent checks the ruleset with `nft -c` before applying',
    );
    prerequisites.push({ package: 'nftables', reason: 'fw3 releases do not ship nft; the fallback rules need it' });
  }
  return { mode: 'nftables', attach: null, bpfObject: null, programs };
}

// --- 4. offload vs the router ------------------------------------------------------------

function resolveOffloadCapability(
  requested: FlowOffloadMode,
  policy: ConflictPolicy,
  capabilities: Record<CapabilityName, EffectiveCapability>,
  { decide, refusals }: Pick<Sinks, 'decide' | 'refusals'>,
): OffloadMode {
  const hw = capabilities.hardwareOffload;
  const sw = capabilities.softwareOffload;
  const topic = 'offload.capability';
  switch (requested) {
    case 'off':
      decide(topic, 'off', 'flowOffload.mode is off');
      return 'off';
    case 'auto': {
      const best: OffloadMode = hw.value ? 'hardware' : sw.value ? 'software' : 'off';
      decide(
        topic,
        best,
        best === 'hardware'
          ? `flowOffload.mode is auto and the router offloads in hardware (${hw.reason})`
          : best === 'software'
            ? `flowOffload.mode is auto; no hardware offload (${hw.reason}), software offload is available (${sw.reason})`
            : `flowOffload.mode is auto and no offloading is available (${sw.reason})`,
      );
      return best;
    }
    case 'software':
      if (sw.value) {
        decide(topic, 'software', `flowOffload.mode is software and fw4 offers it (${sw.reason})`);
        return 'software';
      }
      return unavailable(
        'software',
        policy === 'prefer-rewrite' ? 'off' : null,
        `software offload unavailable: ${sw.reason}`,
      );
    case 'hardware':
      if (hw.value) {
        decide(topic, 'hardware', `flowOffload.mode is hardware and the SoC has a flow-offload engine (${hw.reason})`);
        return 'hardware';
      }
      return unavailable(
        'hardware',
        policy === 'prefer-rewrite' ? (sw.value ? 'software' : 'off') : null,
        `hardware offload unavailable: ${hw.reason}${sw.value ? '' : `; software offload unavailable too: ${sw.reason}`}`,
      );
  }

  /** prefer-rewrite degrades to `fallback`; prefer-offload (fallback null) refuses and keeps the request as intent. */
  function unavailable(wanted: OffloadMode, fallback: OffloadMode | null, why: string): OffloadMode {
    if (fallback !== null) {
      decide(
        topic,
        fallback,
        `flowOffload.mode is ${wanted} but ${why}; prefer-rewrite treats offloading as best effort, so it degrades to ${fallback} (as fw4 itself falls back from hardware to software)`,
      );
      return fallback;
    }
    refusals.push({
      topic: 'offload.capability',
      reason: `flowOffload.mode is ${wanted} and conflictPolicy is prefer-offload (offloading required), but ${why}; use flowOffload.mode auto for the best available`,
    });
    decide(
      topic,
      `${wanted} (refused)`,
      `prefer-offload makes the requested ${wanted} offload a requirement, and ${why}; nothing is applied`,
    );
    return wanted;
  }
}

function uciSettings(offload: OffloadMode, facts: PlanFacts): UciOffloadSettings | null {
  if (!facts.openwrt) return null;
  return {
    [UCI_FLOW_OFFLOADING]: offload === 'off' ? '0' : '1',
    [UCI_FLOW_OFFLOADING_HW]: offload === 'hardware' ? '1' : '0',
  };
}
