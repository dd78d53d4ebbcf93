/**
 * What a router can do and what it runs, as the fleet table lists and filters them: the four
 * capabilities of `Router.capabilities` (`{ predicted, probed }`, each flag `{ value, reason }`,
 * server/fleet/hello-columns.ts) and the datapath and offload modes of `Router.liveState` (the
 * proto LiveState as JSON, its modes as numbers: set by each Hello, its datapath refreshed by
 * every applied result). One module writes both the SQL (the listing's items and filters) and
 * the same view for a single router, so the two cannot disagree.
 */
import { DatapathState_Mode, OffloadState_Mode } from '../../proto/gen/wrtfleet/agent/v1/agent.js';
import type { SqlParams } from './sql-params.js';

export const CAPABILITIES = ['hardwareOffload', 'softwareOffload', 'ebpf', 'tcx'] as const;
export type Capability = (typeof CAPABILITIES)[number];

/**
 * A capability filter: `yes` the router has it (by its probe, or by prediction where nothing was
 * probed), `probed` the probe found it, `predicted` predicted and not probed yet, `no` the probe
 * (or, unprobed, the prediction) says it has not, `unknown` its agent never said.
 */
export const CAPABILITY_STATES = ['yes', 'probed', 'predicted', 'no', 'unknown'] as const;
export type CapabilityState = (typeof CAPABILITY_STATES)[number];

/** The running datapath, spelled as telemetry history spells it (series-layout.ts); unknown: never reported. */
export const DATAPATH_MODES = ['tcx', 'cls_bpf', 'nftables', 'iptables', 'none', 'unknown'] as const;
export type DatapathMode = (typeof DATAPATH_MODES)[number];
/** The running flow offload; unknown: never reported. */
export const OFFLOAD_MODES = ['hardware', 'software', 'off', 'unsupported', 'unknown'] as const;
export type OffloadMode = (typeof OFFLOAD_MODES)[number];

const DATAPATH_CODES: Record<Exclude<DatapathMode, 'unknown'>, number> = {
  none: DatapathState_Mode.MODE_NONE,
  tcx: DatapathState_Mode.MODE_TCX,
  cls_bpf: DatapathState_Mode.MODE_CLS_BPF,
  nftables: DatapathState_Mode.MODE_NFTABLES,
  iptables: DatapathState_Mode.MODE_IPTABLES,
};
const OFFLOAD_CODES: Record<Exclude<OffloadMode, 'unknown'>, number> = {
  off: OffloadState_Mode.MODE_OFF,
  software: OffloadState_Mode.MODE_SOFTWARE,
  hardware: OffloadState_Mode.MODE_HARDWARE,
  unsupported: OffloadState_Mode.MODE_UNSUPPORTED,
};

/** The filter fields of this module, as RouterFilter carries them. */
export interface AbilityFilter {
  hardwareOffload?: CapabilityState;
  softwareOffload?: CapabilityState;
  ebpf?: CapabilityState;
  tcx?: CapabilityState;
  datapath?: DatapathMode;
  offload?: OffloadMode;
}

const flagSql = (source: 'predicted' | 'probed', capability: Capability) =>
  `(r.capabilities->'${source}'->'${capability}'->>'value')`;
const modeSql = (part: 'datapath' | 'offload') => `coalesce(r."liveState"->'${part}'->>'mode', '0')`;

function modeCondition<M extends string>(
  part: 'datapath' | 'offload',
  mode: M,
  codes: Record<Exclude<M, 'unknown'>, number>,
  sql: SqlParams,
): string {
  if (mode === 'unknown')
    return `${modeSql(part)} <> ALL(CAST(${sql.param(Object.values(codes).map(String))} AS text[]))`;
  return `${modeSql(part)} = ${sql.param(String(codes[mode as Exclude<M, 'unknown'>]))}`;
}

/** The SQL conditions over `"Router" r` of the ability filters (constant SQL, values bound). */
export function abilityConditions(filter: AbilityFilter, sql: SqlParams): string[] {
  const c: string[] = [];
  for (const capability of CAPABILITIES) {
    const state = filter[capability];
    if (!state) continue;
    const probed = flagSql('probed', capability);
    const predicted = flagSql('predicted', capability);
    const known = `coalesce(${probed}, ${predicted})`;
    if (state === 'yes') c.push(`${known} = 'true'`);
    else if (state === 'no') c.push(`${known} = 'false'`);
    else if (state === 'unknown') c.push(`${known} IS NULL`);
    else if (state === 'probed') c.push(`${probed} = 'true'`);
    else c.push(`(${probed} IS NULL AND ${predicted} = 'true')`);
  }
  if (filter.datapath) c.push(modeCondition('datapath', filter.datapath, DATAPATH_CODES, sql));
  if (filter.offload) c.push(modeCondition('offload', filter.offload, OFFLOAD_CODES, sql));
  return c;
}

const modeNameSql = (part: 'datapath' | 'offload', codes: Record<string, number>) =>
  `CASE ${modeSql(part)} ${Object.entries(codes)
    .map(([name, code]) => `WHEN '${code}' THEN '${name}'`)
    .join(' ')} END`;

/**
 * The listing item's ability columns over `r` (which must carry `capabilities` and
 * `"liveState"`), in abilityView's shape: each capability `{ predicted, probed }` (true, false
 * or null: not said), `datapath` and `offload` as mode names or null.
 */
export const ABILITY_ITEM_SQL = [
  ...CAPABILITIES.map(
    (capability) =>
      `jsonb_build_object('predicted', r.capabilities->'predicted'->'${capability}'->'value',
                          'probed', r.capabilities->'probed'->'${capability}'->'value') AS "${capability}"`,
  ),
  `${modeNameSql('datapath', DATAPATH_CODES)} AS datapath`,
  `${modeNameSql('offload', OFFLOAD_CODES)} AS offload`,
].join(',\n                ');

export interface CapabilityFlag {
  predicted: boolean | null;
  probed: boolean | null;
}

const booleanOrNull = (v: unknown) => (typeof v === 'boolean' ? v : null);
const nameOf = <M extends string>(codes: Record<M, number>, code: unknown): M | null =>
  (Object.entries(codes) as [M, number][]).find(([, c]) => c === code)?.[0] ?? null;

/** The same columns for one router, from its stored documents (GET /v1/routers/{id}). */
export function abilityView(capabilities: unknown, liveState: unknown) {
  const sets = (capabilities ?? {}) as Record<string, Record<string, { value?: unknown } | undefined> | null>;
  const flag = (capability: Capability): CapabilityFlag => ({
    predicted: booleanOrNull(sets.predicted?.[capability]?.value),
    probed: booleanOrNull(sets.probed?.[capability]?.value),
  });
  const live = (liveState ?? {}) as { datapath?: { mode?: unknown }; offload?: { mode?: unknown } };
  return {
    hardwareOffload: flag('hardwareOffload'),
    softwareOffload: flag('softwareOffload'),
    ebpf: flag('ebpf'),
    tcx: flag('tcx'),
    datapath: nameOf(DATAPATH_CODES, live.datapath?.mode),
    offload: nameOf(OFFLOAD_CODES, live.offload?.mode),
  };
}
