/**
 * The ApplyManager's watch on the eligible WAN set (what following a WAN change means:
 * agent/apply/wan-watch.ts). It polls while a plan with an eBPF or nftables datapath is
 * applied; every step that brings the datapath to the set of now (an apply, a restore, a
 * re-apply) runs through `around`, so the set read before it is what the next poll compares
 * with, and a change while the step runs is still seen.
 */
import { EligibleWatch, wanDevices } from './eligible-watch.js';
import type { RouterHost } from '../../core/host/router-host.js';
import type { RouterDatapath } from './router-datapath.js';
import type { AppliedRecord, Reapplied } from './transaction.js';
import { followsWan, reapplyDatapathForWan } from './wan-watch.js';

export interface WanFollowerOptions {
  /** Where the eligible set is read (`ip route`, `ip link`). */
  host: RouterHost;
  /** What brings the datapath to a new set. */
  datapath: RouterDatapath;
  now: () => number;
  /** Poll interval; default 5 s. */
  intervalMs?: number;
  /** The eligible set changed; the watch waits for the returned promise before its next poll. */
  onChange: () => Promise<void>;
  log: (message: string) => void;
}

export class WanFollower {
  private readonly watch: EligibleWatch;
  private lastError = '';

  constructor(private readonly options: WanFollowerOptions) {
    this.watch = new EligibleWatch(options.host, {
      intervalMs: options.intervalMs,
      // After an agent restart the set is taken as the one the datapath was applied to.
      adoptFirst: true,
      onChange: () => options.onChange(),
      // Once per distinct error: an unreachable router (SSH down) would otherwise log every tick.
      onError: (err) => {
        if (err.message !== this.lastError) options.log(`wan watch: ${err.message}`);
        this.lastError = err.message;
      },
    });
  }

  /** Runs the watch iff `applied` (null: nothing applied, or the agent stopped) has a datapath to follow. */
  sync(applied: AppliedRecord | null | undefined): void {
    if (applied && followsWan(applied.plan)) this.watch.start();
    else {
      this.watch.stop();
      this.watch.baseline = null;
    }
  }

  /** Runs `fn`, which brings the datapath to the eligible set of now: the set read before it becomes the baseline. */
  async around<T>(fn: () => Promise<T>): Promise<T> {
    const before = await this.watch.read().catch(() => null);
    try {
      return await fn();
    } finally {
      this.watch.baseline = before ? wanDevices(before) : null;
    }
  }

  /**
   * Brings the datapath of `applied` (only it) to the eligible set of now, if that differs
   * from the baseline: the outcome, and when the re-apply started. Null: nothing to do (an
   * operation queued before this one may have followed the change already; with no baseline
   * the set of now becomes it).
   */
  async follow(applied: AppliedRecord): Promise<{ outcome: Reapplied; startedAt: number } | null> {
    const now = await this.watch.read();
    const before = this.watch.baseline;
    if (!this.watch.differs(now)) return null;
    if (before === null) {
      this.watch.baseline = wanDevices(now);
      return null;
    }
    const startedAt = this.options.now();
    const outcome = await reapplyDatapathForWan(this.options.datapath, applied, before, now);
    this.watch.baseline = wanDevices(now);
    return { outcome, startedAt };
  }

  stop(): void {
    this.watch.stop();
  }
}
