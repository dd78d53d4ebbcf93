/** A counted attempt (`FailureLimiter.reserve`); `release` gives it back when it did not fail. */
export interface Reservation {
  /** This attempt took the window's last slot: if it fails, the key is limited from now on. */
  readonly filledWindow: boolean;
  /** Gives the slot back (the attempt succeeded, or was never checked); once, later calls do nothing. */
  release(): void;
}

export type Reserved = ({ ok: true } & Reservation) | { ok: false; retryAfterSeconds: number };

interface Entry {
  count: number;
  resetAt: number;
}

/**
 * Counts failed attempts per key (a client IP, an account name, a token) in fixed windows
 * (one minute by default). Once a key reaches the limit, its attempts are refused until its
 * window ends, so a guesser is slowed and told nothing about why a guess failed. Memory is
 * bounded: expired entries are dropped as the map is touched, and past `maxEntries` the
 * oldest entries go first (an attacker spraying keys can reset counters, but cannot exhaust
 * memory).
 *
 * Two ways to count: `retryAfterSeconds` then `recordFailure` (check, then count after the
 * check failed), for doors that let a valid credential through whatever the count; and
 * `reserve`, which counts the attempt before it is checked and gives it back when it
 * succeeds, so attempts sent at once cannot all pass the check before the first failure is
 * counted.
 *
 * Per replica: N replicas allow N times the limit.
 */
export class FailureLimiter {
  private readonly entries = new Map<string, Entry>();

  constructor(
    readonly limit: number,
    private readonly windowMs = 60_000,
    private readonly maxEntries = 50_000,
  ) {}

  /** Seconds the client must wait, or 0 when it may try. */
  retryAfterSeconds(client: string, now = Date.now()): number {
    const entry = this.current(client, now);
    return entry && entry.count >= this.limit ? this.wait(entry, now) : 0;
  }

  recordFailure(client: string, now = Date.now()): void {
    this.open(client, now).count += 1;
  }

  /**
   * Takes one slot of the key's window now, before the attempt is checked, or says how long
   * to wait when none is left (nothing is counted then). Keep the slot when the attempt
   * fails; release it when it succeeds or is never checked.
   */
  reserve(client: string, now = Date.now()): Reserved {
    const existing = this.current(client, now);
    if (existing && existing.count >= this.limit) return { ok: false, retryAfterSeconds: this.wait(existing, now) };
    const entry = existing ?? this.open(client, now);
    entry.count += 1;
    let held = true;
    return {
      ok: true,
      filledWindow: entry.count >= this.limit,
      release: () => {
        // A window that ended (or was evicted) meanwhile is not this slot's to give back.
        if (held && this.entries.get(client) === entry && entry.count > 0) entry.count -= 1;
        held = false;
      },
    };
  }

  private current(client: string, now: number): Entry | undefined {
    const entry = this.entries.get(client);
    if (entry && entry.resetAt <= now) {
      this.entries.delete(client);
      return undefined;
    }
    return entry;
  }

  private open(client: string, now: number): Entry {
    let entry = this.current(client, now);
    if (!entry) {
      entry = { count: 0, resetAt: now + this.windowMs };
      this.entries.set(client, entry);
      if (this.entries.size > this.maxEntries) this.evict();
    }
    return entry;
  }

  private wait(entry: Entry, now: number): number {
    return Math.max(1, Math.ceil((entry.resetAt - now) / 1000));
  }

  /** Maps iterate in insertion order: the first keys are the oldest windows. */
  private evict(): void {
    for (const key of this.entries.keys()) {
      if (this.entries.size <= this.maxEntries * 0.9) break;
      this.entries.delete(key);
    }
  }
}

/** `reserveAll`'s answer: every slot taken (`filled[i]`: slot i took its window's last one), or which limiter was full. */
export type ReservedAll =
  { ok: true; filled: boolean[]; release(): void } | { ok: false; retryAfterSeconds: number; full: number };

/**
 * Reserves one slot in each of several limiters, all or none: when one is full (`full`, its
 * index) the others give theirs back, and the wait returned is the longest of all (a shorter
 * one would only bring the caller back to another refusal).
 */
export function reserveAll(slots: [FailureLimiter, string][], now = Date.now()): ReservedAll {
  const taken: Reservation[] = [];
  for (const [full, [limiter, key]] of slots.entries()) {
    const reserved = limiter.reserve(key, now);
    if (!reserved.ok) {
      for (const t of taken) t.release();
      const waits = slots.map(([l, k]) => l.retryAfterSeconds(k, now));
      return { ok: false, retryAfterSeconds: Math.max(reserved.retryAfterSeconds, ...waits), full };
    }
    taken.push(reserved);
  }
  return {
    ok: true,
    filled: taken.map((t) => t.filledWindow),
    release: () => taken.forEach((t) => t.release()),
  };
}
