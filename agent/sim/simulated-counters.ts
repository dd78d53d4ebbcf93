/**
 * The datapath counters of a simulated router (no kernel runs its programs): cumulative
 * packets seen and rewritten per attached program, growing at a steady rate with time, keyed
 * the way the real agent keys them ("<wan>/<program>", "nftables/<program>"). A test resets
 * them to simulate a reboot or a re-attach, and may hand one instance to a second simulated
 * router with the same identity to simulate the router moving to another controller replica.
 */
import type { DatapathMode } from '../../core/plan.js';
import type { ProgramName } from '../../core/programs.js';
import type { Telemetry_ProgramCounters } from '../../proto/gen/wrtfleet/agent/v1/agent.js';

/** Share of seen packets each program rewrites: every packet, or the first SYNs only. */
const REWRITE_SHARE: Record<ProgramName, number> = {
  set_ip_id_zero: 0.9,
  set_ip_ttl: 0.9,
  set_tcp_syn_window: 0.01,
  clear_tcp_syn_ts: 0.01,
};

export interface SimulatedCountersOptions {
  /** Packets per second each attached program sees (default 1,000). */
  packetsPerSecond?: number;
  /** Counters start as if they had run this long (default 0): a reset then drops them far. */
  uptimeSeconds?: number;
  /** Clock (ms), for tests; default Date.now. */
  now?: () => number;
}

export class SimulatedCounters {
  readonly packetsPerSecond: number;
  private readonly now: () => number;
  private readonly seen = new Map<string, number>();
  private attached: { key: string; program: ProgramName; countsSeen: boolean }[] = [];
  private last: number;
  private readonly initialSeen: number;

  constructor(options: SimulatedCountersOptions = {}) {
    this.packetsPerSecond = options.packetsPerSecond ?? 1_000;
    this.now = options.now ?? Date.now;
    this.last = this.now();
    this.initialSeen = Math.round((options.uptimeSeconds ?? 0) * this.packetsPerSecond);
  }

  /**
   * The programs a newly applied plan runs. A program already attached keeps counting (the
   * real loader keeps its pins); one newly attached starts from zero, or from the simulated
   * uptime's count on the first attach.
   */
  attach(mode: DatapathMode, wan: string, programs: ProgramName[]): void {
    this.advance();
    const first = this.attached.length === 0 && this.seen.size === 0;
    this.attached =
      mode === 'none'
        ? []
        : programs.map((program) => ({
            key: `${mode === 'ebpf' ? wan : mode}/${program}`,
            program,
            // nftables and iptables count only the packets their rule matched (agent/telemetry).
            countsSeen: mode === 'ebpf',
          }));
    for (const a of this.attached) if (!this.seen.has(a.key)) this.seen.set(a.key, first ? this.initialSeen : 0);
    for (const key of [...this.seen.keys()]) if (!this.attached.some((a) => a.key === key)) this.seen.delete(key);
  }

  /** A simulated reboot or re-attach: every counter back to zero. */
  reset(): void {
    this.advance();
    for (const key of this.seen.keys()) this.seen.set(key, 0);
  }

  read(): Telemetry_ProgramCounters[] {
    this.advance();
    return this.attached.map(({ key, program, countsSeen }) => {
      const seen = this.seen.get(key) ?? 0;
      const rewritten = Math.floor(seen * REWRITE_SHARE[program]);
      return { program: key, packetsSeen: countsSeen ? seen : 0, packetsRewritten: rewritten };
    });
  }

  private advance(): void {
    const now = this.now();
    const grown = Math.round(((now - this.last) / 1000) * this.packetsPerSecond);
    this.last = now;
    for (const a of this.attached) this.seen.set(a.key, (this.seen.get(a.key) ?? 0) + grown);
  }
}
