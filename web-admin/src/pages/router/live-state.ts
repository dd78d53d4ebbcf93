/**
 * A router's live state (GET /v1/routers/{id}, `liveState`) in words. The agent sends it as
 * protobuf JSON, so modes arrive as the enum numbers of agent.proto (DatapathState.Mode,
 * OffloadState.Mode); names are also accepted. Pure, unit-tested.
 */

const DATAPATH_MODES = ['unknown', 'none', 'tcx', 'cls_bpf', 'nftables', 'iptables'];
const OFFLOAD_MODES = ['unknown', 'off', 'software', 'hardware', 'unsupported'];

function modeName(names: readonly string[], value: unknown): string {
  if (typeof value === 'number') return names[value] ?? 'unknown';
  if (typeof value === 'string' && value !== '') return value.replace(/^MODE_/, '').toLowerCase();
  return 'unknown';
}

export interface LiveDatapath {
  mode: string;
  interfaces: string[];
  programs: string[];
}

export interface LiveOffload {
  mode: string;
  reason: string | null;
}

const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];

export function liveDatapath(live: unknown): LiveDatapath | null {
  const datapath = (live as { datapath?: Record<string, unknown> } | null)?.datapath;
  if (!datapath || typeof datapath !== 'object') return null;
  return {
    mode: modeName(DATAPATH_MODES, datapath.mode),
    interfaces: strings(datapath.interfaces),
    programs: strings(datapath.programs),
  };
}

export function liveOffload(live: unknown): LiveOffload | null {
  const offload = (live as { offload?: Record<string, unknown> } | null)?.offload;
  if (!offload || typeof offload !== 'object') return null;
  return {
    mode: modeName(OFFLOAD_MODES, offload.mode),
    reason: typeof offload.reason === 'string' && offload.reason !== '' ? offload.reason : null,
  };
}

/** The capability names in the order the page lists them, with what an operator calls them. */
export const CAPABILITIES = [
  ['hardwareOffload', 'Hardware offload'],
  ['softwareOffload', 'Software offload'],
  ['ebpf', 'eBPF'],
  ['tcx', 'TCX attach'],
] as const;

export interface CapabilityRow {
  key: string;
  label: string;
  predicted: { value: boolean; reason: string } | null;
  probed: { value: boolean; reason: string } | null;
  /** The probe said otherwise than the table predicted: the device wins, and the page says so. */
  disagrees: boolean;
}

function capability(set: unknown, key: string): { value: boolean; reason: string } | null {
  const c = (set as Record<string, { value?: unknown; reason?: unknown }> | null | undefined)?.[key];
  if (!c || typeof c.value !== 'boolean') return null;
  return { value: c.value, reason: typeof c.reason === 'string' ? c.reason : '' };
}

/** The stored { predicted, probed } document as one row per capability. */
export function capabilityRows(capabilities: unknown): CapabilityRow[] {
  const doc = (capabilities ?? {}) as { predicted?: unknown; probed?: unknown };
  return CAPABILITIES.map(([key, label]) => {
    const predicted = capability(doc.predicted, key);
    const probed = capability(doc.probed, key);
    return { key, label, predicted, probed, disagrees: !!predicted && !!probed && predicted.value !== probed.value };
  });
}
