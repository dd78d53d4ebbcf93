/**
 * The datapath of a simulated router (agent/apply/router-datapath.ts): no kernel runs here,
 * so an apply records the plan as running instead of loading programs, and the live state the
 * agent reads back is what that plan would put on the router's WAN. Everything around it (the
 * transaction's outcome, the confirm window, rollbacks, the outbox) is the shipped agent's.
 * Simulated, and named so: the attached programs (their ids and fingerprints), the nftables
 * table, the iptables chains, the fw4 flowtable, and a scripted failure of an apply.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { iptablesRules } from '../datapath/iptables.js';
import { nftRules } from '../datapath/nft.js';
import type { DatapathEvidence } from '../datapath/index.js';
import { rewriteConfigOf, type Plan } from '../../core/plan.js';
import type { LiveState } from '../apply/live.js';
import { uciTarget, type Difference } from '../apply/plan-verify.js';
import type { RouterDatapath } from '../apply/router-datapath.js';
import { summarizeDatapath, type AppliedRecord, type Snapshot } from '../apply/transaction.js';
import { isoTime } from '../iso-time.js';
import type { SimulatedCounters } from './simulated-counters.js';

export interface SimulatedDatapathOptions {
  /** The WAN interface the datapath covers (the fixture's first WAN, known once its facts are). */
  wan: () => string;
  counters: SimulatedCounters;
  /** Simulated time an apply takes on the router. */
  applyDelayMs?: number;
}

const NO_IPTABLES = { present: false, ipv4: null, ipv6: null, interfaces: [], rules: 0 };

/** What `plan` puts on a router whose one WAN is `wan`, as the agent's reader would see it (nothing: no plan). */
export function simulatedLive(plan: Plan | undefined, wan: string): LiveState {
  const mode = plan?.datapath.mode ?? 'none';
  const eligible = [wan];
  const rewrite = plan && mode !== 'none' ? rewriteConfigOf(plan) : undefined;
  const ebpf: DatapathEvidence = { mode: 'none', interfaces: [], skipped: [], changes: [] };
  if (plan && mode === 'ebpf') {
    const attach = plan.datapath.attach ?? 'cls_bpf';
    ebpf.mode = attach;
    ebpf.interfaces = [
      {
        ifname: wan,
        ifindex: 2,
        l2: 'ethernet',
        mode: attach,
        programs: plan.datapath.programs.map((p, i) => ({
          program: p.name,
          object: p.name,
          // No object is loaded here: the plan's hash stands in for the configured object's.
          fingerprint: `sim-${plan.planHash.slice(0, 8)}`,
          progId: 100 + i,
          pinDir: `/sys/fs/bpf/wrtfleet/${wan}`,
        })),
      },
    ];
  }
  const nftCount = rewrite && mode === 'nftables' ? nftRules(rewrite, eligible).length : 0;
  const ipt = rewrite && mode === 'iptables' ? iptablesRules(rewrite, eligible) : undefined;
  const target = plan ? uciTarget(plan) : null;
  const offload = plan?.offload.mode ?? 'off';
  return {
    ebpf,
    nft:
      mode === 'nftables'
        ? { present: true, ruleset: 'table inet wrtfleet { # simulated }', interfaces: eligible, rules: nftCount }
        : { present: false, ruleset: null, interfaces: [], rules: 0 },
    iptables: ipt
      ? {
          present: true,
          ipv4: ipt.ipv4.length ? { rules: ipt.ipv4, hooked: true } : null,
          ipv6: ipt.ipv6.length ? { rules: ipt.ipv6, hooked: true } : null,
          interfaces: eligible,
          rules: ipt.ipv4.length + ipt.ipv6.length,
        }
      : NO_IPTABLES,
    offload: {
      support: { supported: true, reason: '', firewall: 'fw4' },
      uci: target ?? { flow_offloading: null, flow_offloading_hw: null },
      configured: offload,
      live: offload,
      // A simulated offload engine: hardware offload never falls back to software here.
      flowtables:
        offload === 'off'
          ? []
          : [
              {
                family: 'inet',
                table: 'fw4',
                name: 'ft',
                hook: 'ingress',
                priority: 'filter',
                devices: eligible,
                offloadFlag: offload === 'hardware',
                counter: false,
              },
            ],
      fallback: false,
    },
    eligible,
  };
}

export class SimulatedDatapath implements RouterDatapath {
  /** The plan whose datapath and offload run now (undefined: nothing of wrtfleet). */
  private running: Plan | undefined;
  /** Set by the router for the apply about to run: a scripted failure (tests). */
  failNext = false;

  constructor(private readonly options: SimulatedDatapathOptions) {}

  /** The plan that runs now. */
  get plan(): Plan | undefined {
    return this.running;
  }

  /** A simulated reboot: the kernel's datapath is gone (the flash keeps the agent's state). */
  lose(): void {
    this.run(undefined);
  }

  private run(plan: Plan | undefined): void {
    this.running = plan;
    const names = plan?.datapath.programs.map((p) => p.name) ?? [];
    this.options.counters.attach(plan?.datapath.mode ?? 'none', this.options.wan(), names);
  }

  async readLive(): Promise<LiveState> {
    return simulatedLive(this.running, this.options.wan());
  }

  async verify(plan: Plan): Promise<{ live: LiveState; differences: Difference[] }> {
    const live = simulatedLive(this.running, this.options.wan());
    const runs = this.running?.planHash;
    const differences =
      runs === plan.planHash
        ? []
        : [
            {
              path: 'datapath',
              expected: `plan ${plan.planHash.slice(0, 12)}`,
              actual: runs ? `plan ${runs.slice(0, 12)}` : 'nothing',
            },
          ];
    return { live, differences };
  }

  async transaction(plan: Plan, previous: AppliedRecord | null) {
    if (this.options.applyDelayMs) await sleep(this.options.applyDelayMs);
    const snapshot: Snapshot = {
      takenAt: isoTime(),
      normalized: this.running?.planHash ?? null,
      uci: null,
      nftRuleset: null,
      iptables: null,
      previous,
    };
    if (this.failNext) {
      this.failNext = false;
      const restore = { ok: true, problems: [] };
      return {
        status: 'failed' as const,
        error: 'simulated failure of the datapath',
        evidence: { simulated: true, restore },
        restore,
        snapshot,
      };
    }
    const before = this.running?.planHash;
    this.run(plan);
    const live = simulatedLive(plan, this.options.wan());
    return {
      status: 'applied' as const,
      changed: before !== plan.planHash,
      snapshot,
      evidence: {
        simulated: true,
        planHash: plan.planHash,
        datapathMode: plan.datapath.mode,
        datapath: summarizeDatapath(live),
        offload: { mode: plan.offload.mode },
        eligible: live.eligible,
      },
    };
  }

  async restore(snapshot: Snapshot) {
    this.run(snapshot.previous?.plan);
    return { ok: true, problems: [] };
  }

  async reapply(applied: AppliedRecord) {
    this.run(applied.plan);
    const live = simulatedLive(applied.plan, this.options.wan());
    return {
      evidence: {
        simulated: true,
        datapathMode: applied.plan.datapath.mode,
        datapath: summarizeDatapath(live),
        eligible: live.eligible,
      },
    };
  }

  async detachAll(): Promise<void> {
    this.run(undefined);
  }

  async bpfStatus() {
    const plan = this.running;
    const lines = [
      'simulated router: no kernel runs here; this is what the applied plan puts on the router',
      `datapath: ${plan ? `${plan.datapath.mode}${plan.datapath.attach ? ` via ${plan.datapath.attach}` : ''}` : 'none'}`,
      `programs: ${plan?.datapath.programs.map((p) => p.name).join(', ') || 'none'}`,
      `offload: ${plan?.offload.mode ?? 'off'}`,
    ];
    return { command: 'simulated: the applied plan', text: `${lines.join('\n')}\n`, error: '' };
  }
}
