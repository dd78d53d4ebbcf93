import type { Redis } from 'ioredis';
import type { Logger } from 'pino';

/**
 * Watches one Redis connection so the operator reads in the log when Redis went away and when
 * it came back (once each, not once per retry), and so its owner can restore, on return, what a
 * Redis restarted without persistence no longer holds.
 */
export class RedisAvailability {
  private away = false;
  private readonly backListeners: (() => Promise<void>)[] = [];

  /** `meanwhile`: what stops while Redis is away, for the log line. */
  constructor(
    client: Redis,
    private readonly log: Logger,
    private readonly meanwhile: string,
  ) {
    client.on('error', (err: Error) => this.lost(err.message));
    // Emitted only when a reconnect is scheduled, never for our own disconnect at shutdown.
    client.on('reconnecting', () => this.lost('connection lost'));
    client.on('ready', () => this.returned());
  }

  /** True from the first failure until the connection is ready again. */
  get isAway(): boolean {
    return this.away;
  }

  /** Runs `listener` each time Redis is back after being away (errors are logged). */
  onBack(listener: () => Promise<void>): void {
    this.backListeners.push(listener);
  }

  private lost(reason: string): void {
    if (this.away) return;
    this.away = true;
    this.log.warn({ reason }, `Redis unavailable; ${this.meanwhile} until it returns`);
  }

  private returned(): void {
    if (!this.away) return;
    this.away = false;
    this.log.info('Redis is back');
    for (const listener of this.backListeners)
      listener().catch((err: unknown) => this.log.error({ err }, 'restoring state after Redis returned failed'));
  }
}
