/**
 * Which datapath a router runs, as telemetry history groups it: from the live state its
 * agent last described (Router.liveState.datapath, the proto DatapathState as JSON), which
 * the Hello sets and every applied result refreshes from its evidence (what the agent read
 * back after applying: eBPF interfaces with their attach mode, our nftables table or our iptables chains).
 */
import { DatapathState_Mode } from '../../proto/gen/wrtfleet/agent/v1/agent.js';
import { modeCode, type DatapathModeName } from './series-layout.js';

const MODE_NAMES: Partial<Record<number, DatapathModeName>> = {
  [DatapathState_Mode.MODE_NONE]: 'none',
  [DatapathState_Mode.MODE_TCX]: 'tcx',
  [DatapathState_Mode.MODE_CLS_BPF]: 'cls_bpf',
  [DatapathState_Mode.MODE_NFTABLES]: 'nftables',
  [DatapathState_Mode.MODE_IPTABLES]: 'iptables',
};

/** The mode code (series-layout.ts) of a stored live state; `unknown` when it says nothing. */
export function modeOfLiveState(live: unknown): number {
  const mode = (live as { datapath?: { mode?: unknown } } | null)?.datapath?.mode;
  return modeCode((typeof mode === 'number' && MODE_NAMES[mode]) || 'unknown');
}

interface EvidenceDatapath {
  ebpf?: { ifname?: unknown; mode?: unknown; programs?: { program?: unknown }[] }[];
  nftables?: { interfaces?: unknown } | null;
  iptables?: { interfaces?: unknown } | null;
}

/**
 * The DatapathState an applied result's evidence shows (agent/apply/transaction.ts,
 * summarizeDatapath), in the shape a Hello's live state has; null when the evidence does not
 * show the datapath (an unchanged re-apply, a refusal).
 */
export function datapathStateOfEvidence(
  evidence: unknown,
): { mode: DatapathState_Mode; interfaces: string[]; programs: string[] } | null {
  const datapath = (evidence as { datapath?: unknown } | null)?.datapath;
  if (!datapath || typeof datapath !== 'object') return null;
  const { ebpf, nftables, iptables } = datapath as EvidenceDatapath;
  const interfaces = Array.isArray(ebpf) ? ebpf : [];
  const strings = (values: unknown[]) => values.filter((v): v is string => typeof v === 'string');
  if (interfaces.length > 0) {
    return {
      mode: interfaces[0]!.mode === 'tcx' ? DatapathState_Mode.MODE_TCX : DatapathState_Mode.MODE_CLS_BPF,
      interfaces: strings(interfaces.map((i) => i.ifname)),
      programs: [...new Set(strings(interfaces.flatMap((i) => (i.programs ?? []).map((p) => p.program))))],
    };
  }
  if (nftables && typeof nftables === 'object') {
    const on = (nftables as { interfaces?: unknown }).interfaces;
    return { mode: DatapathState_Mode.MODE_NFTABLES, interfaces: Array.isArray(on) ? strings(on) : [], programs: [] };
  }
  if (iptables && typeof iptables === 'object') {
    const on = (iptables as { interfaces?: unknown }).interfaces;
    return { mode: DatapathState_Mode.MODE_IPTABLES, interfaces: Array.isArray(on) ? strings(on) : [], programs: [] };
  }
  if (!Array.isArray(ebpf)) return null;
  return { mode: DatapathState_Mode.MODE_NONE, interfaces: [], programs: [] };
}
