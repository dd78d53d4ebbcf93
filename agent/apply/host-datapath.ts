/**
 * The agent's RouterDatapath (agent/apply/router-datapath.ts): every step through the
 * RouterHost, on the router itself or over SSH, with the datapath locations the agent shares
 * with it (a proxy fills in the helper it installs after this is made).
 */
import type { RouterHost } from '../../core/host/router-host.js';
import type { Plan } from '../../core/plan.js';
import { driftReport } from './drift-report.js';
import { readLive, type DatapathPaths } from './live.js';
import { readBootId } from './reboot.js';
import type { RouterDatapath, Verified } from './router-datapath.js';
import {
  applyTransaction,
  comparePlanToLive,
  detachAll,
  reapplyRecord,
  restoreSnapshot,
  summarizeDatapath,
  type AppliedRecord,
  type Snapshot,
  type TransactionOptions,
} from './transaction.js';

export class HostDatapath implements RouterDatapath {
  constructor(
    private readonly host: RouterHost,
    private readonly paths: DatapathPaths,
    /** Test hooks passed to every transaction. */
    private readonly hooks: Pick<TransactionOptions, 'afterDatapath'> = {},
  ) {}

  transaction(plan: Plan, previous: AppliedRecord | null, { requireHardware }: { requireHardware: boolean }) {
    return applyTransaction(this.host, plan, previous, { paths: this.paths, requireHardware, ...this.hooks });
  }

  async verify(plan: Plan, { requireHardware }: { requireHardware: boolean }): Promise<Verified> {
    const live = await readLive(this.host, this.paths);
    return {
      differences: comparePlanToLive(plan, live, { requireHardware }),
      datapath: summarizeDatapath(live),
      eligible: live.eligible,
    };
  }

  restore(snapshot: Snapshot) {
    return restoreSnapshot(this.host, this.paths, snapshot);
  }

  async summary() {
    return summarizeDatapath(await readLive(this.host, this.paths));
  }

  reapply(applied: AppliedRecord, options: { offload: boolean }) {
    return reapplyRecord(this.host, this.paths, applied, options);
  }

  detachAll() {
    return detachAll(this.host, this.paths);
  }

  drift(applied: AppliedRecord | null) {
    return driftReport(this.host, this.paths, applied);
  }

  bootId() {
    return readBootId(this.host);
  }

  async bpfStatus() {
    // Through the diagnostics section of the bundle: loaded only when a bundle is asked for.
    const { bpfStatus } = await import('../commands/diagnostics.js');
    return bpfStatus(this.host, this.paths);
  }
}
