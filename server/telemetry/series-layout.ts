/**
 * How telemetry history is laid out in the database: one column pair (seen, rewritten) per
 * program in PROGRAM_NAMES order, and the datapath mode as a small code. The writer, the
 * rollup and the series queries all build their SQL from these lists, so a column name is
 * spelled once.
 */
import { PROGRAM_NAMES, type ProgramName } from '../../core/programs.js';

/** Column stem of each program: "set_ip_ttl" -> "setIpTtl" (columns setIpTtlSeen, setIpTtlRewritten). */
export const PROGRAM_COLUMNS: Record<ProgramName, string> = Object.fromEntries(
  PROGRAM_NAMES.map((name) => [name, name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())]),
) as Record<ProgramName, string>;

/** The counter columns in slot order: [program 0 seen, program 0 rewritten, program 1 seen, ...]. */
export const COUNTER_COLUMNS: string[] = PROGRAM_NAMES.flatMap((p) => [
  `${PROGRAM_COLUMNS[p]}Seen`,
  `${PROGRAM_COLUMNS[p]}Rewritten`,
]);

/** The fleet tables' rate columns, in the same order. */
export const RATE_COLUMNS: string[] = COUNTER_COLUMNS.map((c) => `${c}Rate`);

/** Slot of a program, or undefined for a name that is not one of the four. */
export function programSlot(program: string): number | undefined {
  const i = (PROGRAM_NAMES as readonly string[]).indexOf(program);
  return i >= 0 ? i : undefined;
}

/**
 * Which of the four rewrites a telemetry key counts. Agents name counters "<ifname>/<program>"
 * (one per WAN interface) or "nftables/<program>"; a router with two WANs has two keys per
 * program, which the history adds up.
 */
export function programOfKey(key: string): ProgramName | undefined {
  const name = key.slice(key.lastIndexOf('/') + 1);
  const slot = programSlot(name);
  return slot === undefined ? undefined : PROGRAM_NAMES[slot];
}

/**
 * Datapath modes as the API spells them (the attach mode for eBPF, as the plan and the live
 * state say); the index is the code stored in the `mode` columns. `unknown`: the router has
 * not said what it runs (no live state in its Hello, no applied result with evidence).
 */
export const DATAPATH_MODES = ['unknown', 'none', 'tcx', 'cls_bpf', 'nftables', 'iptables'] as const;
export type DatapathModeName = (typeof DATAPATH_MODES)[number];

export function modeCode(mode: DatapathModeName): number {
  return DATAPATH_MODES.indexOf(mode);
}

export function modeName(code: number): DatapathModeName {
  return DATAPATH_MODES[code] ?? 'unknown';
}

/** Minute and hour buckets are counted from the Unix epoch, in UTC. */
export const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;

export const minuteOf = (at: Date | number) => Math.floor(Number(at) / MINUTE_MS);
export const hourOf = (at: Date | number) => Math.floor(Number(at) / HOUR_MS);

/** The largest value of an int4 column: a minute's delta never exceeds it (counter-deltas.ts). */
export const INT4_MAX = 2_147_483_647;
