/**
 * A rollout's targets grouped into its batches, with how many routers of each batch are in
 * each state, for the live progress view.
 */
import { API_ENUMS } from '../../api/api-enums.generated.js';

export const TARGET_STATES = API_ENUMS.RolloutTargetState;
export type TargetState = (typeof TARGET_STATES)[number];

export interface TargetRow {
  routerId: string;
  name: string;
  batch: number;
  state: string;
  error: string | null;
  /** Firmware rollouts: the step the router reported last, what it said, when, bytes on it so far. */
  firmwareStep?: string | null;
  stepDetail?: string | null;
  stepAt?: string | null;
  bytesDone?: number | null;
  flashedAt?: string | null;
}

/** The states only one kind of rollout reaches: a profile's routers apply, a firmware's upgrade. */
const ONLY_PROFILE: readonly TargetState[] = ['applied', 'rolled_back'];
const ONLY_FIRMWARE: readonly TargetState[] = ['upgraded', 'unconfirmed'];

/**
 * The target states worth a column or a count for a rollout of this kind: every state, less
 * those only the other kind reaches, unless some target is in one anyway.
 */
export function statesShown(kind: string, counts: Partial<Record<string, number>> = {}): TargetState[] {
  const other = kind === 'firmware' ? ONLY_PROFILE : ONLY_FIRMWARE;
  return TARGET_STATES.filter((s) => !other.includes(s) || (counts[s] ?? 0) > 0);
}

export interface BatchSummary {
  batch: number;
  label: string;
  total: number;
  counts: Record<TargetState, number>;
  /** waiting (nothing sent), running (some without an outcome), done. */
  phase: 'waiting' | 'running' | 'done';
}

const zero = () => Object.fromEntries(TARGET_STATES.map((s) => [s, 0])) as Record<TargetState, number>;

export function batchesOf(targets: readonly TargetRow[], batchCount: number, canary: number): BatchSummary[] {
  const batches: BatchSummary[] = Array.from({ length: batchCount }, (_, batch) => ({
    batch,
    label: batch === 0 && canary > 0 ? 'canary' : `batch ${canary > 0 ? batch : batch + 1}`,
    total: 0,
    counts: zero(),
    phase: 'waiting',
  }));
  for (const t of targets) {
    const b = batches[t.batch];
    if (!b) continue;
    b.total += 1;
    if ((TARGET_STATES as readonly string[]).includes(t.state)) b.counts[t.state as TargetState] += 1;
  }
  for (const b of batches) {
    const open = b.counts.queued + b.counts.sent;
    b.phase = b.total > 0 && open === 0 ? 'done' : b.counts.queued === b.total ? 'waiting' : 'running';
  }
  return batches;
}
