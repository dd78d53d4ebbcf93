/**
 * What the ApplyManager does to a router's datapath and offload settings, and reads back from
 * them: the one seam between the agent's protocol (queue, transaction outcome, confirm window,
 * outbox) and the kernel. A real router's is `kernelDatapath` (the programs, nftables table,
 * iptables chains and uci settings, through its RouterHost); the simulated fleet's keeps the
 * plan it runs in memory (agent/sim/simulated-datapath.ts), so its routers run the same
 * protocol code as a shipped agent.
 */
import type { RouterHost } from '../../core/host/router-host.js';
import type { Plan } from '../../core/plan.js';
import type { SectionSource } from '../commands/diagnostics.js';
import { readLive, type DatapathPaths, type LiveState } from './live.js';
import { comparePlanToLive, type Difference } from './plan-verify.js';
import {
  applyTransaction,
  detachAll,
  reapplyRecord,
  restoreSnapshot,
  type AppliedRecord,
  type ApplyOutcome,
  type RestoreReport,
  type Snapshot,
  type TransactionOptions,
} from './transaction.js';

export interface RouterDatapath {
  /** What runs now. */
  readLive(): Promise<LiveState>;
  /** What runs now compared with `plan` (agent/apply/plan-verify.ts): an apply's read-back and a drift check. */
  verify(plan: Plan, options: { requireHardware: boolean }): Promise<{ live: LiveState; differences: Difference[] }>;
  /** Snapshot, apply, read back, verify; on any failure the snapshot restored (agent/apply/transaction.ts). */
  transaction(
    plan: Plan,
    previous: AppliedRecord | null,
    options: { requireHardware: boolean },
  ): Promise<ApplyOutcome & { snapshot: Snapshot | null }>;
  /** Puts the router back to `snapshot` and says whether it matches it again. */
  restore(snapshot: Snapshot): Promise<RestoreReport>;
  /** Puts an applied plan back (after a reboot) without a transaction; never throws. */
  reapply(
    applied: AppliedRecord,
    options: { offload: boolean },
  ): Promise<{ error?: string; evidence: Record<string, unknown> }>;
  /** Removes every datapath piece of ours (DETACH). */
  detachAll(): Promise<void>;
  /** The BPF section of a diagnostic bundle. */
  bpfStatus(): Promise<SectionSource>;
}

/** The datapath of a real router, on the kernel through its RouterHost. */
export function kernelDatapath(
  host: RouterHost,
  paths: DatapathPaths,
  hooks: Pick<TransactionOptions, 'afterDatapath'> = {},
): RouterDatapath {
  return {
    readLive: () => readLive(host, paths),
    verify: async (plan, options) => {
      const live = await readLive(host, paths);
      return { live, differences: comparePlanToLive(plan, live, options) };
    },
    transaction: (plan, previous, { requireHardware }) =>
      applyTransaction(host, plan, previous, { paths, requireHardware, ...hooks }),
    restore: (snapshot) => restoreSnapshot(host, paths, snapshot),
    reapply: (applied, options) => reapplyRecord(host, paths, applied, options),
    detachAll: () => detachAll(host, paths),
    // The diagnostics section of the bundle, loaded when a bundle is asked for: off an idle agent's heap.
    bpfStatus: async () => (await import('../commands/diagnostics.js')).bpfStatus(host, paths),
  };
}
