/**
 * The kernel side of a router as the ApplyManager changes and reads it: the transaction that
 * attaches programs, writes nftables or iptables and sets offload, the restore of a snapshot,
 * the read-back that verifies a plan or finds drift, and the kernel's boot id. Everything
 * else of the apply protocol (the queue, the confirm window, the outbox, the results) is the
 * manager's own and runs the same whatever is behind this seam.
 *
 * The agent's is HostDatapath (agent/apply/host-datapath.ts), through its RouterHost; a
 * simulated router's (agent/sim/simulated-datapath.ts) keeps what the plan would put in the
 * kernel, since none runs there.
 */
import type { DriftReport } from '../../proto/gen/wrtfleet/agent/v1/agent.js';
import type { Plan } from '../../core/plan.js';
import type { SectionSource } from '../commands/section-source.js';
import type { ApplyOutcome, AppliedRecord, Difference, RestoreReport, Snapshot } from './transaction.js';

/** The boot id of the router's kernel, or why it cannot be had. */
export type BootIdReading = { id: string } | { id: null; reason: string };

/** A plan compared with what runs: the differences, and what runs in an apply's evidence shape. */
export interface Verified {
  differences: Difference[];
  datapath: Record<string, unknown>;
  eligible: string[];
}

export interface RouterDatapath {
  /** Snapshot, apply, read back, verify; on any failure the snapshot is restored (agent/apply/transaction.ts). */
  transaction(
    plan: Plan,
    previous: AppliedRecord | null,
    options: { requireHardware: boolean },
  ): Promise<ApplyOutcome & { snapshot: Snapshot | null }>;
  /** Reads the router back and compares it with `plan`. */
  verify(plan: Plan, options: { requireHardware: boolean }): Promise<Verified>;
  /** Brings the router back to a snapshot and checks it. Never throws: the report says what failed. */
  restore(snapshot: Snapshot): Promise<RestoreReport>;
  /** What runs now, in an apply's evidence shape (summarizeDatapath). */
  summary(): Promise<Record<string, unknown>>;
  /** Puts an applied plan back without a transaction (a reboot lost it). Never throws. */
  reapply(
    applied: AppliedRecord,
    options: { offload: boolean },
  ): Promise<{ error?: string; evidence: Record<string, unknown> }>;
  /** Removes every datapath piece of ours. */
  detachAll(): Promise<void>;
  /** The router compared with the applied plan (with none: anything of ours is a difference). */
  drift(applied: AppliedRecord | null): Promise<DriftReport>;
  bootId(): Promise<BootIdReading>;
  /** The BPF section of a diagnostic bundle. */
  bpfStatus(): Promise<SectionSource>;
}
