/**
 * Telemetry history as the controller composes it: the batch writer the agent streams feed,
 * the rollup and retention job, and the series reads the API serves.
 */
import type { Logger } from 'pino';
import type { PrismaClient } from '../../prisma/generated/client/client.js';
import { DEFAULT_TELEMETRY, type TelemetryConfig } from '../config.js';
import type { TaskQueue } from '../cluster/task-queue.js';
import { resolveWindow, type SeriesWindow, type WindowQuery } from './series-window.js';
import { ROLLUP_TASK, TelemetryRollup } from './telemetry-rollup.js';
import { TelemetrySeries } from './telemetry-series.js';
import { TelemetryWriter } from './telemetry-writer.js';

export class TelemetryHistory {
  /**
   * The clock of the history (ms): it stamps each sample's arrival, which decides its minute,
   * ends the series windows and is the rollup's "now". Tests replace it to reach a minute's
   * end without waiting for the wall clock.
   */
  now: () => number = () => Date.now();
  readonly config: TelemetryConfig;
  readonly writer: TelemetryWriter;
  readonly rollup: TelemetryRollup;
  readonly series: TelemetrySeries;

  constructor(db: PrismaClient, log: Logger, config: Partial<TelemetryConfig> = {}) {
    this.config = { ...DEFAULT_TELEMETRY, ...config };
    this.writer = new TelemetryWriter(db, log, {
      flushMs: this.config.flushSeconds * 1000,
      now: () => this.now(),
    });
    this.rollup = new TelemetryRollup(db, this.config, log);
    this.series = new TelemetrySeries(db);
  }

  /** Registers the rollup job and its schedule (once across replicas with BullMQ; locked otherwise). */
  async schedule(tasks: TaskQueue): Promise<void> {
    tasks.register(ROLLUP_TASK, async () => {
      await this.rollup.run(this.now());
    });
    await tasks.every(ROLLUP_TASK, this.config.rollupEverySeconds * 1000);
  }

  /** The window of a series request; throws WindowError naming the field. */
  window(query: WindowQuery, now: number = this.now()): SeriesWindow {
    return resolveWindow(query, now, {
      minuteRetentionMs: this.rollup.minuteRetentionMs,
      hourRetentionMs: this.rollup.hourRetentionMs,
    });
  }

  close(): Promise<void> {
    return this.writer.close();
  }
}
