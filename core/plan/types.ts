/**
 * The plan document resolvePlan produces, and what it reads. Field names are part of the API
 * and stored with each revision, so they do not change with the code that fills them.
 */
import type { CapabilityFlags, CapabilityInput } from '../capabilities.js';
import type { AttachMode, BpfEndian, ProgramName } from '../programs.js';
import type { Endian } from '../facts/types.js';
import type { ConflictPolicy, DriftPolicy, FlowOffloadMode } from '../profile-spec.js';

export const PLAN_VERSION = 1 as const;

/** `scope` says which packets a program touches; it alone decides which offload conflicts the program is part of. */
export type PlannedProgram =
  | { name: 'set_ip_id_zero'; scope: 'every-packet'; config: Record<string, never> }
  | { name: 'set_ip_ttl'; scope: 'every-packet'; config: { ttl: number; ipv6HopLimit: boolean } }
  | { name: 'set_tcp_syn_window'; scope: 'first-syn'; config: { window: number } }
  | { name: 'clear_tcp_syn_ts'; scope: 'first-syn'; config: Record<string, never> };

/** `iptables`: fw3 routers without nft and without a usable eBPF; only the rewrites iptables has targets for run. */
export type DatapathMode = 'ebpf' | 'nftables' | 'iptables' | 'none';
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
  | 'hardware-offload-vs-per-packet-rewrite'
  | 'nftables-rewrite-vs-offload'
  | 'iptables-rewrite-vs-offload'
  | 'offload-bypasses-sqm';
export type ConflictResolution = 'offload-downgraded' | 'offload-disabled' | 'rewrite-partial' | 'informational';

export interface PlanConflict {
  id: ConflictId;
  /** The policy that resolved it (informational conflicts are not policy-driven: null). */
  policy: ConflictPolicy | null;
  resolution: ConflictResolution;
  /** Programs whose effect the conflict touches. */
  programs: ProgramName[];
  offload: { before: OffloadMode; after: OffloadMode };
  detail: string;
}

export interface UnavailableRewrite {
  program: ProgramName;
  reason: string;
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
    bpfObject: BpfEndian | null;
    /** Rewrites in order; in nftables and iptables mode the same names identify the equivalent rules. */
    programs: PlannedProgram[];
    /**
     * Rewrites the profile enables that this datapath cannot run (the iptables fallback has no
     * target for them), with why; absent when every enabled rewrite runs.
     */
    unavailable?: UnavailableRewrite[];
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

/** Records one decision of a step: its topic, the choice made and why. */
export type Decide = (topic: string, choice: string, reason: string) => void;

/** Where the steps of resolvePlan leave what they found besides their result. */
export interface Sinks {
  decide: Decide;
  refusals: PlanRefusal[];
  warnings: string[];
  prerequisites: PlanPrerequisite[];
}
