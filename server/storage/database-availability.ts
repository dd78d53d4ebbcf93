import type { StorageLogger } from './storage-logger.js';

/** How often a database that went away is asked whether it answers again. */
const PROBE_INTERVAL_MS = 1_000;

/**
 * Says in the log when PostgreSQL went away and when it answers again, once each rather than
 * once per failed query, so the operator reads the outage and its end. The pool's idle
 * connections failing is the first sign (a restart or a lost network ends them all); from
 * then on one probe a second until the server answers.
 */
export class DatabaseAvailability {
  private probeTimer: NodeJS.Timeout | undefined;
  private awaySince = 0;
  private closed = false;

  constructor(
    private readonly probe: () => Promise<unknown>,
    private readonly log: StorageLogger,
    private readonly where: string,
  ) {}

  /** A connection failed: the first report of an outage is logged and probing starts. */
  lost(reason: string): void {
    if (this.closed || this.awaySince) return;
    this.awaySince = Date.now();
    this.log.warn(
      { reason, where: this.where },
      'database unavailable; agent messages wait and work is retried until it returns',
    );
    this.scheduleProbe();
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.probeTimer);
  }

  private scheduleProbe(): void {
    this.probeTimer = setTimeout(() => void this.check(), PROBE_INTERVAL_MS);
    this.probeTimer.unref();
  }

  private async check(): Promise<void> {
    if (this.closed) return;
    try {
      await this.probe();
    } catch {
      if (!this.closed) this.scheduleProbe();
      return;
    }
    this.log.info({ where: this.where, awayMs: Date.now() - this.awaySince }, 'database is back');
    this.awaySince = 0;
  }
}
