/**
 * Cumulative counters in, per-interval deltas out. Agents report what their counters read
 * now (BPF maps, nftables rule counters); the history stores what happened between two
 * samples, so a chart shows rates. A counter reads lower than before after a reboot, a
 * program re-attached (new maps) or an nftables table re-created: that is a reset, and the
 * interval counts from zero (the new reading is what was counted since the reset, within
 * this interval), never a negative and never a spike. Where no delta can be trusted the
 * interval is a gap instead: no earlier sample, an interval longer than MAX_INTERVAL_MS, or a
 * delta too large for a minute row. A counter that was not in the previous sample starts its
 * series at this one: when it began counting is unknown, and its whole reading in one
 * interval could be a spike.
 */
import { PROGRAM_NAMES } from '../../core/programs.js';
import { INT4_MAX, programOfKey, programSlot } from './series-layout.js';

/** The last cumulative reading of a router, as TelemetryBaseline stores it. */
export interface CounterBaseline {
  /** When the controller received it (ms since the epoch). */
  at: number;
  /** "<ifname>/<program>" -> [packets seen, packets rewritten], cumulative. */
  counters: Record<string, [number, number]>;
}

export interface ProgramReading {
  program: string;
  packetsSeen: number;
  packetsRewritten: number;
}

/**
 * Samples further apart than this are a gap: the router was unreachable or its agent not
 * running, and one point spread over that long would say little about any minute of it.
 */
export const MAX_INTERVAL_MS = 15 * 60_000;

export interface IntervalDelta {
  /** When the interval ended (the sample's arrival). */
  at: number;
  coveredMs: number;
  /** Per slot, as COUNTER_COLUMNS: [program 0 seen, program 0 rewritten, ...]. */
  counters: number[];
  /** Bit i: program i reported in this sample. */
  programs: number;
  /** Keys whose counters went down (reset) in this interval. */
  resets: string[];
}

export type DeltaOutcome =
  | { kind: 'interval'; delta: IntervalDelta; baseline: CounterBaseline }
  | { kind: 'gap'; reason: 'no_baseline' | 'interval_too_long' | 'delta_too_large'; baseline: CounterBaseline }
  /** Not newer than the baseline (another replica stored a later sample already): ignored. */
  | { kind: 'stale' };

const count = (n: number) => (Number.isFinite(n) && n > 0 ? Math.floor(n) : 0);

/** The readings as a baseline's counter map (keys repeated in one sample: the last wins). */
export function countersOf(programs: ProgramReading[]): Record<string, [number, number]> {
  const out: Record<string, [number, number]> = {};
  for (const p of programs) out[p.program] = [count(p.packetsSeen), count(p.packetsRewritten)];
  return out;
}

export function intervalDelta(
  baseline: CounterBaseline | null,
  sample: { at: number; programs: ProgramReading[] },
): DeltaOutcome {
  const current = countersOf(sample.programs);
  // A sample without any counters is a failed read or nothing attached: the last readings
  // stay the baseline, so counters that come back are compared with them, not counted anew.
  const next: CounterBaseline = {
    at: sample.at,
    counters: Object.keys(current).length === 0 && baseline ? baseline.counters : current,
  };
  if (!baseline) return { kind: 'gap', reason: 'no_baseline', baseline: next };
  const coveredMs = sample.at - baseline.at;
  if (coveredMs <= 0) return { kind: 'stale' };
  if (coveredMs > MAX_INTERVAL_MS) return { kind: 'gap', reason: 'interval_too_long', baseline: next };

  const counters = new Array<number>(PROGRAM_NAMES.length * 2).fill(0);
  const resets: string[] = [];
  let programs = 0;
  for (const [key, [seen, rewritten]] of Object.entries(current)) {
    const program = programOfKey(key);
    const slot = program === undefined ? undefined : programSlot(program);
    const before = baseline.counters[key];
    if (!before) continue;
    const reset = seen < before[0] || rewritten < before[1];
    if (reset) resets.push(key);
    if (slot === undefined) continue;
    programs |= 1 << slot;
    counters[slot * 2]! += reset ? seen : seen - before[0];
    counters[slot * 2 + 1]! += reset ? rewritten : rewritten - before[1];
  }
  if (counters.some((c) => c > INT4_MAX)) return { kind: 'gap', reason: 'delta_too_large', baseline: next };
  return { kind: 'interval', delta: { at: sample.at, coveredMs, counters, programs, resets }, baseline: next };
}

/** A stored baseline read back (JSON from the database), or null when it is not one. */
export function parseBaseline(value: unknown): CounterBaseline | null {
  if (!value || typeof value !== 'object') return null;
  const { at, counters } = value as { at?: unknown; counters?: unknown };
  if (typeof at !== 'number' || !Number.isFinite(at) || !counters || typeof counters !== 'object') return null;
  const out: Record<string, [number, number]> = {};
  for (const [key, pair] of Object.entries(counters as Record<string, unknown>)) {
    if (Array.isArray(pair) && pair.length === 2) out[key] = [count(Number(pair[0])), count(Number(pair[1]))];
  }
  return { at, counters: out };
}
