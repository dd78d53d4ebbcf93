/**
 * Counts failed authentications per client IP in fixed one-minute windows. Once an IP
 * reaches the limit, every failing request from it is answered 429 until its window ends
 * (the auth plugin still lets a valid token through), so a guesser is slowed and told
 * nothing about why a guess failed. Memory is bounded: expired entries are
 * dropped as the map is touched, and past `maxEntries` the oldest entries go first (an
 * attacker spraying source addresses can reset counters, but cannot exhaust memory).
 *
 * Per replica: N replicas allow N times the limit, which is still far below what guessing
 * a 256-bit token needs.
 */
export class FailureLimiter {
  private readonly entries = new Map<string, { count: number; resetAt: number }>();

  constructor(
    readonly limit: number,
    private readonly windowMs = 60_000,
    private readonly maxEntries = 50_000,
  ) {}

  /** Seconds the client must wait, or 0 when it may try. */
  retryAfterSeconds(client: string, now = Date.now()): number {
    const entry = this.entries.get(client);
    if (!entry) return 0;
    if (entry.resetAt <= now) {
      this.entries.delete(client);
      return 0;
    }
    return entry.count >= this.limit ? Math.max(1, Math.ceil((entry.resetAt - now) / 1000)) : 0;
  }

  recordFailure(client: string, now = Date.now()): void {
    let entry = this.entries.get(client);
    if (!entry || entry.resetAt <= now) {
      this.entries.delete(client);
      entry = { count: 0, resetAt: now + this.windowMs };
      this.entries.set(client, entry);
      if (this.entries.size > this.maxEntries) this.evict();
    }
    entry.count += 1;
  }

  /** Maps iterate in insertion order: the first keys are the oldest windows. */
  private evict(): void {
    for (const key of this.entries.keys()) {
      if (this.entries.size <= this.maxEntries * 0.9) break;
      this.entries.delete(key);
    }
  }
}
