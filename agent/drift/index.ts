/**
 * Drift: the live router compared with the applied plan, on a timer and on demand.
 *
 * The comparison itself is `comparePlanToLive` (agent/apply/transaction.ts), the same
 * function that verifies an apply, so "drifted" and "not applied" can never mean two
 * different things. This module only schedules it: the interval comes from the applied
 * plan (profile drift.intervalSeconds), re-read after every check because a new revision
 * may have changed it; the re-apply decision (drift.policy) is the ApplyManager's.
 */
import type { DriftReport } from '../../proto/gen/wrtfleet/agent/v1/agent.js';
import type { ApplyManager } from '../apply/manager.js';

export { comparePlanToLive, type Difference } from '../apply/transaction.js';

export interface DriftWatcherOptions {
  /** Overrides the plan's interval (tests, benchmarks). */
  intervalMs?: number;
  /** Interval while nothing is applied (to notice a revision being applied). */
  idleMs?: number;
  onReport?: (report: DriftReport) => void;
  onError?: (err: Error) => void;
}

export class DriftWatcher {
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly manager: ApplyManager,
    private readonly options: DriftWatcherOptions = {},
  ) {}

  start(): void {
    this.stopped = false;
    this.schedule();
  }

  private schedule(): void {
    if (this.stopped) return;
    const planned = this.manager.driftIntervalMs();
    const delay = this.options.intervalMs ?? planned ?? this.options.idleMs ?? 30_000;
    this.timer = setTimeout(() => void this.tick(), delay);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    try {
      const report = await this.manager.checkDriftAndMaybeReapply();
      if (report && report.differences.length > 0) this.options.onReport?.(report);
    } catch (err) {
      this.options.onError?.(err as Error);
    } finally {
      this.schedule();
    }
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }
}
