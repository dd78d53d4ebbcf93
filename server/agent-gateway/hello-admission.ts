/**
 * Admission control for Hellos: at most `maxPending` streams are being admitted (certificate
 * checked, router refreshed) at once. A stream beyond that is told at once to come back later,
 * with a time that spreads the waiting agents over how long the backlog takes to drain, instead
 * of queueing until the database pool or the agent's patience gives out.
 */
export const RETRY_AFTER_METADATA = 'wrtfleet-retry-after-ms';

/** Hellos admitted at once unless configured (WRTFLEET_MAX_PENDING_HELLOS). */
export const DEFAULT_MAX_PENDING_HELLOS = 1_000;

/** Bounds of the retry hint: never sooner than a second, never later than a minute. */
const MIN_RETRY_MS = 1_000;
const MAX_RETRY_MS = 60_000;
/** Admissions counted for the drain-rate estimate (the last few seconds). */
const RATE_WINDOW_MS = 5_000;
/** A rate floor for the estimate before any admission finished (per second). */
const MIN_RATE_PER_SECOND = 100;

export type AdmissionTicket = { admitted: true; done(): void } | { admitted: false; retryAfterMs: number };

export class HelloAdmission {
  private pending = 0;
  /** Completion times of recent admissions (ms), oldest first. */
  private readonly finished: number[] = [];
  /** The last retry slot handed out (ms since epoch). */
  private nextSlotAt = 0;

  constructor(
    readonly maxPending: number,
    private readonly random: () => number = Math.random,
    private readonly now: () => number = Date.now,
  ) {}

  get inProgress(): number {
    return this.pending;
  }

  /** Admissions finished per second over the last RATE_WINDOW_MS. */
  ratePerSecond(): number {
    const since = this.now() - RATE_WINDOW_MS;
    while (this.finished.length > 0 && this.finished[0]! < since) this.finished.shift();
    return (this.finished.length * 1000) / RATE_WINDOW_MS;
  }

  tryEnter(): AdmissionTicket {
    if (this.pending >= this.maxPending) return { admitted: false, retryAfterMs: this.retryAfterMs() };
    this.pending += 1;
    let left = false;
    return {
      admitted: true,
      done: () => {
        if (left) return;
        left = true;
        this.pending -= 1;
        this.finished.push(this.now());
      },
    };
  }

  /**
   * How long a refused agent should wait: each refusal is given the next free slot of a
   * schedule that runs at the recent admission rate, after the backlog already admitted, so
   * the refused come back spread out at the pace the controller can take them, not together.
   * A little jitter (±10 %) keeps agents with equal slots from arriving in the same instant.
   */
  retryAfterMs(): number {
    const rate = Math.max(MIN_RATE_PER_SECOND, this.ratePerSecond());
    const now = this.now();
    const backlogEnds = now + (this.pending / rate) * 1000;
    this.nextSlotAt = Math.max(this.nextSlotAt, backlogEnds) + 1000 / rate;
    const wait = (this.nextSlotAt - now) * (0.9 + 0.2 * this.random());
    return Math.round(Math.min(MAX_RETRY_MS, Math.max(MIN_RETRY_MS, wait)));
  }
}
