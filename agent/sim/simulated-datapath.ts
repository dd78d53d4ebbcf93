/**
 * A simulated router's RouterDatapath (agent/apply/router-datapath.ts): no kernel runs here,
 * so it keeps the plan whose datapath and offload the router would run, and says what that
 * puts on the router in the real agent's evidence shape. The ApplyManager runs over it as over
 * a real router: its transaction, restore, read-back and drift check see this plan. A
 * scripted failure (SimulatedRouterOptions.outcome 'fail') makes the next transaction fail
 * with the earlier plan still running, as a real one restores it.
 */
import { randomUUID } from 'node:crypto';
import type { Plan } from '../../core/plan/types.js';
import type { AppliedRevision, DriftReport } from '../../proto/gen/wrtfleet/agent/v1/agent.js';
import type { SectionSource } from '../commands/section-source.js';
import type { RouterDatapath, Verified } from '../apply/router-datapath.js';
import type { AppliedRecord, ApplyOutcome, Difference, Snapshot } from '../apply/transaction.js';
import { isoTime } from '../iso-time.js';
import type { SimulatedCounters } from './simulated-counters.js';
import { datapathEvidence } from './simulated-plans.js';

export interface SimulatedDatapathOptions {
  /** The WAN interface the datapath is put on (from the router's facts). */
  wan: () => string;
  /** Its telemetry counters: attached to what runs. */
  counters: SimulatedCounters;
  /** What the agent says is applied (the BPF section of diagnostics names it). */
  applied: () => AppliedRevision | undefined;
}

const named = (a: AppliedRevision | undefined) => (a ? `${a.profile}@${a.revision}` : 'nothing of wrtfleet');

export class SimulatedDatapath implements RouterDatapath {
  /** The plan whose datapath and offload run (undefined: nothing of wrtfleet). */
  running: Plan | undefined;
  /** Scripted: the next transaction fails (the plan running before stays). */
  failNext = false;
  /**
   * The router's boot. A reboot command keeps it and what runs (only the link goes away); a
   * firmware upgrade boots anew (boot()).
   */
  private bootIdNow = randomUUID();

  constructor(private readonly options: SimulatedDatapathOptions) {}

  private run(plan: Plan | undefined): void {
    this.running = plan;
    this.options.counters.attach(
      plan?.datapath.mode ?? 'none',
      this.options.wan(),
      plan?.datapath.programs.map((p) => p.name) ?? [],
    );
  }

  private differences(plan: Plan | undefined): Difference[] {
    if (this.running?.planHash === plan?.planHash) return [];
    const mode = (p: Plan | undefined) => (p ? `${p.datapath.mode} (plan ${p.planHash.slice(0, 12)})` : 'nothing');
    return [{ path: 'datapath', expected: mode(plan), actual: mode(this.running) }];
  }

  async transaction(plan: Plan, previous: AppliedRecord | null): Promise<ApplyOutcome & { snapshot: Snapshot }> {
    const snapshot: Snapshot = {
      takenAt: isoTime(),
      normalized: { planHash: this.running?.planHash ?? null },
      uci: null,
      nftRuleset: null,
      iptables: null,
      previous,
    };
    if (this.failNext) {
      this.failNext = false;
      return {
        status: 'failed',
        error: 'simulated failure of the apply',
        evidence: { simulated: true, planHash: plan.planHash },
        restore: { ok: true, problems: [] },
        snapshot,
      };
    }
    const changed = this.running?.planHash !== plan.planHash;
    this.run(plan);
    return {
      status: 'applied',
      evidence: {
        simulated: true,
        planHash: plan.planHash,
        datapathMode: plan.datapath.mode,
        datapath: datapathEvidence(this.options.wan(), plan),
        offload: plan.offload.mode,
        eligible: [this.options.wan()],
      },
      changed,
      snapshot,
    };
  }

  async verify(plan: Plan): Promise<Verified> {
    return {
      differences: this.differences(plan),
      datapath: await this.summary(),
      eligible: [this.options.wan()],
    };
  }

  async restore(snapshot: Snapshot) {
    this.run(snapshot.previous?.plan);
    return { ok: true, problems: [] };
  }

  async summary(): Promise<Record<string, unknown>> {
    return datapathEvidence(this.options.wan(), this.running);
  }

  async reapply(applied: AppliedRecord) {
    this.run(applied.plan);
    return { evidence: { simulated: true, datapathMode: applied.plan.datapath.mode, datapath: await this.summary() } };
  }

  async detachAll(): Promise<void> {
    this.run(undefined);
  }

  async drift(applied: AppliedRecord | null): Promise<DriftReport> {
    return {
      profile: applied?.profile ?? '',
      revision: applied?.revision ?? 0,
      differences: this.differences(applied?.plan),
    };
  }

  async bootId() {
    return { id: this.bootIdNow };
  }

  /** A new boot (after a flash): another boot id, and nothing of wrtfleet in the kernel. */
  boot(): void {
    this.bootIdNow = randomUUID();
    this.run(undefined);
  }

  async bpfStatus(): Promise<SectionSource> {
    const applied = this.options.applied();
    const d = this.running?.datapath;
    const lines = [
      'simulated router: no kernel runs here; this is what the applied plan puts on the router',
      `applied: ${named(applied)}${applied?.pendingConfirm ? ' (not yet confirmed)' : ''}`,
      `datapath: ${d ? `${d.mode}${d.attach ? ` via ${d.attach}` : ''}` : 'none'}`,
      `programs: ${d?.programs.map((p) => p.name).join(', ') || 'none'}`,
      `offload: ${this.running?.offload.mode ?? 'off'}`,
    ];
    return { command: 'simulated: the applied plan', text: `${lines.join('\n')}\n`, error: '' };
  }
}
