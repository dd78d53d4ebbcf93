/**
 * The ingestion path of telemetry history: samples from every agent stream of this replica
 * are buffered and written together, one transaction per flush with a handful of statements
 * for hundreds of routers (a fleet of 10,000 sends ~170 samples a second; one INSERT each
 * would be as many round trips and commits). Each flush locks the baselines of the routers
 * it writes (TelemetryBaseline) and reads them there, so two replicas (a router that moved)
 * never turn the same interval into two deltas.
 */
import type { Logger } from 'pino';
import type { PrismaClient } from '../../prisma/generated/client/client.js';
import type { Telemetry } from '../../proto/gen/wrtfleet/agent/v1/agent.js';
import { intervalDelta, parseBaseline, type CounterBaseline } from './counter-deltas.js';
import { COUNTER_COLUMNS, hourOf, INT4_MAX, minuteOf } from './series-layout.js';
import { modeOfLiveState } from './datapath-mode.js';

export interface TelemetryWriterOptions {
  flushMs: number;
  /** Routers per transaction; a larger backlog is written in several. */
  maxBatchRouters?: number;
  /** Samples held at most; past it the oldest are dropped (the database is not keeping up). */
  maxPending?: number;
  /** The clock that stamps a sample's arrival (ms); default Date.now. */
  now?: () => number;
}

/** What the writer did since it started (the bench reads it; so could /metrics). */
export interface TelemetryWriterStats {
  samples: number;
  flushes: number;
  transactions: number;
  statements: number;
  minuteRows: number;
  gaps: number;
  resets: number;
  stale: number;
  dropped: number;
  failedFlushes: number;
  /** Wall time of each transaction, ms (the last 10,000). */
  transactionMs: number[];
}

interface PendingSample {
  routerId: string;
  at: number;
  telemetry: Telemetry;
  attempts: number;
}

interface MinuteRow {
  routerKey: number;
  minute: number;
  coveredMs: number;
  counters: number[];
  flowsSoftware: number;
  flowsHardware: number;
  agentRssKib: number;
  mode: number;
  programs: number;
}

const MAX_ATTEMPTS = 3;

/** A PostgreSQL array literal of integers, for `$n::int4[]`: one parameter per column. */
const intArray = (values: number[]) => `{${values.join(',')}}`;
const gauge = (n: number) => Math.min(INT4_MAX, Math.max(0, Math.round(Number.isFinite(n) ? n : 0)));

const MINUTE_COLUMNS = [
  'routerKey',
  'minute',
  'coveredMs',
  ...COUNTER_COLUMNS,
  'flowsSoftware',
  'flowsHardware',
  'agentRssKib',
  'mode',
  'programs',
];

/** Several samples in one minute (or a minute written by two flushes) add up; gauges keep the latest. */
const INSERT_MINUTES = `
  INSERT INTO "TelemetryMinute" (${MINUTE_COLUMNS.map((c) => `"${c}"`).join(', ')})
  SELECT * FROM unnest(${MINUTE_COLUMNS.map((c, i) => `$${i + 1}::${c === 'mode' || c === 'programs' ? 'int2' : 'int4'}[]`).join(', ')})
  ON CONFLICT ("routerKey", "minute") DO UPDATE SET
    "coveredMs" = LEAST(${INT4_MAX}, "TelemetryMinute"."coveredMs"::int8 + EXCLUDED."coveredMs"),
    ${COUNTER_COLUMNS.map((c) => `"${c}" = LEAST(${INT4_MAX}, "TelemetryMinute"."${c}"::int8 + EXCLUDED."${c}")`).join(',\n    ')},
    "flowsSoftware" = EXCLUDED."flowsSoftware",
    "flowsHardware" = EXCLUDED."flowsHardware",
    "agentRssKib" = EXCLUDED."agentRssKib",
    "mode" = EXCLUDED."mode",
    "programs" = "TelemetryMinute"."programs" | EXCLUDED."programs"`;

const ROUTERS = `SELECT id, "seriesKey", "liveState"->'datapath' AS datapath FROM "Router" WHERE id = ANY($1::text[])`;

/** Locked in key order: two replicas flushing overlapping routers cannot deadlock on them. */
const LOCK_BASELINES = `
  SELECT "routerKey", round(extract(epoch FROM at) * 1000)::int8 AS at, counters
    FROM "TelemetryBaseline" WHERE "routerKey" = ANY($1::int4[]) ORDER BY "routerKey" FOR UPDATE`;

/** A router without a baseline row gets one (two replicas racing for it both saw a gap: no delta doubles). */
const STORE_BASELINES = `
  INSERT INTO "TelemetryBaseline" ("routerKey", at, counters, latest)
  SELECT "routerKey", at, counters, latest
    FROM json_to_recordset($1::json) AS v("routerKey" int4, at timestamptz, counters jsonb, latest jsonb)
  ON CONFLICT ("routerKey") DO UPDATE SET at = EXCLUDED.at, counters = EXCLUDED.counters, latest = EXCLUDED.latest`;

const ADD_TOTALS = `
  INSERT INTO "FleetTelemetryTotal" ("mode", ${COUNTER_COLUMNS.map((c) => `"${c}"`).join(', ')})
  SELECT * FROM unnest($1::int2[], ${COUNTER_COLUMNS.map((_, i) => `$${i + 2}::int8[]`).join(', ')})
  ON CONFLICT ("mode") DO UPDATE SET
    ${COUNTER_COLUMNS.map((c) => `"${c}" = "FleetTelemetryTotal"."${c}" + EXCLUDED."${c}"`).join(',\n    ')}`;

/** Minutes or hours written below what the rollup already covered are rolled up again. */
const LOWER_MARKS = `
  UPDATE "TelemetryRollupMark"
     SET through = CASE name WHEN 'hour' THEN $1::int4 ELSE $2::int4 END
   WHERE (name = 'hour' AND through > $1::int4) OR (name = 'fleet_minute' AND through > $2::int4)`;

export class TelemetryWriter {
  readonly stats: TelemetryWriterStats = {
    samples: 0,
    flushes: 0,
    transactions: 0,
    statements: 0,
    minuteRows: 0,
    gaps: 0,
    resets: 0,
    stale: 0,
    dropped: 0,
    failedFlushes: 0,
    transactionMs: [],
  };
  private pending: PendingSample[] = [];
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  private closed = false;
  private readonly maxBatchRouters: number;
  private readonly maxPending: number;

  constructor(
    private readonly db: PrismaClient,
    private readonly log: Logger,
    private readonly options: TelemetryWriterOptions,
  ) {
    this.maxBatchRouters = options.maxBatchRouters ?? 2_000;
    this.maxPending = options.maxPending ?? 100_000;
  }

  /** Buffers one sample, stamped with its arrival (or `at`: the bench writes a simulated day). */
  record(routerId: string, telemetry: Telemetry, at: Date = new Date((this.options.now ?? Date.now)())): void {
    if (this.closed) return;
    this.stats.samples++;
    this.pending.push({ routerId, at: at.getTime(), telemetry, attempts: 0 });
    if (this.pending.length > this.maxPending) {
      const excess = this.pending.length - this.maxPending;
      this.pending.splice(0, excess);
      this.stats.dropped += excess;
      this.log.warn({ dropped: excess }, 'telemetry backlog full: dropped the oldest samples');
    }
    if (this.pending.length >= this.maxBatchRouters) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), this.options.flushMs);
  }

  /** Writes everything buffered so far (waits for a flush already running, then runs another). */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    this.flushing = this.write(batch).finally(() => (this.flushing = undefined));
    await this.flushing;
    if (this.pending.length > 0 && !this.closed)
      this.timer ??= setTimeout(() => void this.flush(), this.options.flushMs);
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.flush();
    clearTimeout(this.timer);
  }

  private async write(batch: PendingSample[]): Promise<void> {
    this.stats.flushes++;
    const byRouter = new Map<string, PendingSample[]>();
    for (const s of batch) {
      const list = byRouter.get(s.routerId);
      if (list) list.push(s);
      else byRouter.set(s.routerId, [s]);
    }
    const ids = [...byRouter.keys()].sort();
    for (let i = 0; i < ids.length; i += this.maxBatchRouters) {
      const chunk = ids.slice(i, i + this.maxBatchRouters);
      try {
        await this.writeRouters(chunk, byRouter);
      } catch (err) {
        this.stats.failedFlushes++;
        const retry = chunk.flatMap((id) => byRouter.get(id)!).filter((s) => ++s.attempts < MAX_ATTEMPTS);
        this.stats.dropped += chunk.reduce((n, id) => n + byRouter.get(id)!.length, 0) - retry.length;
        this.log.warn({ err, routers: chunk.length, retrying: retry.length }, 'could not write telemetry');
        // Kept in arrival order ahead of newer samples, so the next flush sees them first.
        this.pending = [...retry, ...this.pending];
      }
    }
  }

  private async writeRouters(ids: string[], byRouter: Map<string, PendingSample[]>): Promise<void> {
    const started = performance.now();
    let statements = 0;
    const minutes = new Map<string, MinuteRow>();
    const totals = new Map<number, number[]>();
    const updates: { routerKey: number; at: string; counters: CounterBaseline['counters']; latest: unknown }[] = [];
    let resets = 0;
    let gaps = 0;
    let stale = 0;
    await this.db.$transaction(
      async (tx) => {
        const routers = await tx.$queryRawUnsafe<{ id: string; seriesKey: number; datapath: unknown }[]>(
          ROUTERS,
          `{${ids.map((id) => `"${id.replace(/["\\]/g, '\\$&')}"`).join(',')}}`,
        );
        const locked = await tx.$queryRawUnsafe<{ routerKey: number; at: bigint; counters: unknown }[]>(
          LOCK_BASELINES,
          intArray(routers.map((r) => r.seriesKey)),
        );
        statements += 2;
        const baselines = new Map(
          locked.map((b) => [b.routerKey, parseBaseline({ at: Number(b.at), counters: b.counters })] as const),
        );
        for (const router of routers) {
          let baseline = baselines.get(router.seriesKey) ?? null;
          const mode = modeOfLiveState({ datapath: router.datapath });
          let latest: PendingSample | undefined;
          for (const sample of byRouter.get(router.id)!.sort((a, b) => a.at - b.at)) {
            const outcome = intervalDelta(baseline, { at: sample.at, programs: sample.telemetry.programs });
            if (outcome.kind === 'stale') {
              stale++;
              continue;
            }
            latest = sample;
            baseline = outcome.baseline;
            if (outcome.kind === 'gap') {
              gaps++;
              continue;
            }
            const { delta } = outcome;
            resets += delta.resets.length;
            const minute = minuteOf(delta.at);
            const key = `${router.seriesKey}:${minute}`;
            const row = minutes.get(key) ?? {
              routerKey: router.seriesKey,
              minute,
              coveredMs: 0,
              counters: new Array<number>(COUNTER_COLUMNS.length).fill(0),
              flowsSoftware: 0,
              flowsHardware: 0,
              agentRssKib: 0,
              mode,
              programs: 0,
            };
            row.coveredMs = Math.min(INT4_MAX, row.coveredMs + delta.coveredMs);
            delta.counters.forEach((c, i) => (row.counters[i] = Math.min(INT4_MAX, row.counters[i]! + c)));
            row.programs |= delta.programs;
            row.flowsSoftware = gauge(sample.telemetry.offloadedFlowsSoftware);
            row.flowsHardware = gauge(sample.telemetry.offloadedFlowsHardware);
            row.agentRssKib = gauge(sample.telemetry.agentRssBytes / 1024);
            minutes.set(key, row);
            const total = totals.get(mode) ?? new Array<number>(COUNTER_COLUMNS.length).fill(0);
            delta.counters.forEach((c, i) => (total[i]! += c));
            totals.set(mode, total);
          }
          if (latest && baseline)
            updates.push({
              routerKey: router.seriesKey,
              at: new Date(baseline.at).toISOString(),
              counters: baseline.counters,
              latest: latest.telemetry,
            });
        }
        if (minutes.size > 0) {
          const rows = [...minutes.values()];
          await tx.$executeRawUnsafe(
            INSERT_MINUTES,
            intArray(rows.map((r) => r.routerKey)),
            intArray(rows.map((r) => r.minute)),
            intArray(rows.map((r) => r.coveredMs)),
            ...COUNTER_COLUMNS.map((_, i) => intArray(rows.map((r) => r.counters[i]!))),
            intArray(rows.map((r) => r.flowsSoftware)),
            intArray(rows.map((r) => r.flowsHardware)),
            intArray(rows.map((r) => r.agentRssKib)),
            intArray(rows.map((r) => r.mode)),
            intArray(rows.map((r) => r.programs)),
          );
          const earliest = Math.min(...rows.map((r) => r.minute));
          await tx.$executeRawUnsafe(LOWER_MARKS, hourOf(earliest * 60_000), earliest);
          const modes = [...totals.keys()];
          await tx.$executeRawUnsafe(
            ADD_TOTALS,
            intArray(modes),
            ...COUNTER_COLUMNS.map((_, i) => intArray(modes.map((m) => totals.get(m)![i]!))),
          );
          statements += 3;
        }
        if (updates.length > 0) {
          await tx.$executeRawUnsafe(STORE_BASELINES, JSON.stringify(updates));
          statements++;
        }
      },
      { timeout: 60_000, maxWait: 30_000 },
    );
    // Counted once committed: a transaction that failed and is retried would count twice.
    this.stats.transactions++;
    this.stats.statements += statements;
    this.stats.minuteRows += minutes.size;
    this.stats.resets += resets;
    this.stats.gaps += gaps;
    this.stats.stale += stale;
    this.stats.transactionMs.push(performance.now() - started);
    if (this.stats.transactionMs.length > 10_000) this.stats.transactionMs.splice(0, 5_000);
  }
}
