/**
 * The telemetry job, on the TaskQueue every minute: the fleet's minute points from the
 * routers' minute rows, hour rows from minute rows once an hour has closed, and retention
 * (older points deleted). Safe with several replicas: one run at a time holds an advisory
 * lock (the others skip), and every step recomputes what it writes (INSERT ... ON CONFLICT
 * DO UPDATE from the rows below it), so a run repeated or cut off midway leaves nothing wrong.
 * Rows written below what a pass already covered (a late flush, a backfill) lower its mark,
 * and the next pass rolls that period up again (TelemetryWriter).
 */
import type { Logger } from 'pino';
import type { PrismaClient } from '../../prisma/generated/client/client.js';
import type { TelemetryConfig } from '../config.js';
import { COUNTER_COLUMNS, HOUR_MS, hourOf, MINUTE_MS, minuteOf, RATE_COLUMNS } from './series-layout.js';

export const ROLLUP_TASK = 'telemetry.rollup';

/** "wrtftelm": held by the run in progress, across replicas. */
const ROLLUP_LOCK = 0x77_72_74_66_74_65_6c_6dn;

/**
 * A minute is rolled up once it ended this long ago: samples are buffered for a few seconds
 * before they are written (TelemetryWriter), so the last ones of a minute land after it.
 */
export const ROLLUP_GRACE_MS = 2 * MINUTE_MS;

export interface RollupReport {
  fleetMinutes: { from: number; to: number };
  hours: { from: number; to: number };
  deleted: { minutes: number; hours: number; fleetMinutes: number; fleetHours: number };
  ms: number;
}

const cols = (names: string[]) => names.map((c) => `"${c}"`).join(', ');

/** Per router and hour: sums of the deltas and coverage, means of the gauges, the last minute's mode. */
const ROLL_HOURS = `
  INSERT INTO "TelemetryHour" ("routerKey", "hour", "coveredMs", ${cols(COUNTER_COLUMNS)},
                               "flowsSoftware", "flowsHardware", "agentRssKib", "mode", "programs")
  SELECT "routerKey", "minute" / 60, LEAST(2147483647, sum("coveredMs")),
         ${COUNTER_COLUMNS.map((c) => `sum("${c}")`).join(', ')},
         round(avg("flowsSoftware")), round(avg("flowsHardware")), round(avg("agentRssKib")),
         (array_agg("mode" ORDER BY "minute" DESC))[1], bit_or("programs")
    FROM "TelemetryMinute"
   WHERE "minute" >= $1::int4 * 60 AND "minute" < $2::int4 * 60
   GROUP BY "routerKey", "minute" / 60
  ON CONFLICT ("routerKey", "hour") DO UPDATE SET
    ${['coveredMs', ...COUNTER_COLUMNS, 'flowsSoftware', 'flowsHardware', 'agentRssKib', 'mode', 'programs']
      .map((c) => `"${c}" = EXCLUDED."${c}"`)
      .join(', ')}`;

/** The fleet per bucket and mode: the sum of each router's rate (delta / covered time). */
const fleetRollup = (target: string, source: string, bucket: string) => `
  INSERT INTO "${target}" ("${bucket}", "mode", "routers", ${cols(RATE_COLUMNS)}, "flowsSoftware", "flowsHardware", "programs")
  SELECT "${bucket}", "mode", count(*)::int4,
         ${COUNTER_COLUMNS.map((c) => `COALESCE(sum("${c}" * 1000.0 / NULLIF("coveredMs", 0)), 0)`).join(', ')},
         sum("flowsSoftware"), sum("flowsHardware"), bit_or("programs")
    FROM "${source}"
   WHERE "${bucket}" >= $1::int4 AND "${bucket}" < $2::int4
   GROUP BY "${bucket}", "mode"
  ON CONFLICT ("${bucket}", "mode") DO UPDATE SET
    ${['routers', ...RATE_COLUMNS, 'flowsSoftware', 'flowsHardware', 'programs'].map((c) => `"${c}" = EXCLUDED."${c}"`).join(', ')}`;

const ROLL_FLEET_MINUTES = fleetRollup('FleetTelemetryMinute', 'TelemetryMinute', 'minute');
const ROLL_FLEET_HOURS = fleetRollup('FleetTelemetryHour', 'TelemetryHour', 'hour');

/**
 * Moves a mark to where this pass got, unless a flush lowered it meanwhile (it wrote rows
 * below the mark, which this pass's snapshot may not hold): then the next pass starts there.
 */
const ADVANCE_MARK = `
  INSERT INTO "TelemetryRollupMark" (name, through) VALUES ($1, $2::int4)
  ON CONFLICT (name) DO UPDATE SET through = CASE
    WHEN "TelemetryRollupMark".through IS NOT DISTINCT FROM $3::int4 THEN EXCLUDED.through
    ELSE "TelemetryRollupMark".through END`;

export class TelemetryRollup {
  constructor(
    private readonly db: PrismaClient,
    private readonly config: TelemetryConfig,
    private readonly log: Logger,
  ) {}

  get minuteRetentionMs(): number {
    return this.config.minuteRetentionHours * HOUR_MS;
  }

  get hourRetentionMs(): number {
    return this.config.hourRetentionDays * 24 * HOUR_MS;
  }

  /** One pass at `now`; null when another replica's pass holds the lock. */
  async run(now: number = Date.now()): Promise<RollupReport | null> {
    const started = performance.now();
    const closedMinute = minuteOf(now - ROLLUP_GRACE_MS);
    const closedHour = hourOf(now - ROLLUP_GRACE_MS);
    // Nothing older than the minute retention is rolled up on a first pass: it is pruned below.
    const earliestMinute = minuteOf(now - this.minuteRetentionMs);
    const report = await this.db.$transaction(
      async (tx) => {
        const [lock] = await tx.$queryRaw<
          { locked: boolean }[]
        >`SELECT pg_try_advisory_xact_lock(${ROLLUP_LOCK}) AS locked`;
        if (!lock?.locked) return null;
        const marks = new Map((await tx.telemetryRollupMark.findMany()).map((m) => [m.name, m.through] as const));
        const fleetFrom = Math.max(earliestMinute, marks.get('fleet_minute') ?? earliestMinute);
        if (fleetFrom < closedMinute) await tx.$executeRawUnsafe(ROLL_FLEET_MINUTES, fleetFrom, closedMinute);
        const hourFrom = Math.max(hourOf(earliestMinute * MINUTE_MS), marks.get('hour') ?? 0);
        if (hourFrom < closedHour) {
          await tx.$executeRawUnsafe(ROLL_HOURS, hourFrom, closedHour);
          await tx.$executeRawUnsafe(ROLL_FLEET_HOURS, hourFrom, closedHour);
        }
        for (const [name, through] of [
          ['fleet_minute', Math.max(fleetFrom, closedMinute)],
          ['hour', Math.max(hourFrom, closedHour)],
        ] as const) {
          await tx.$executeRawUnsafe(ADVANCE_MARK, name, through, marks.get(name) ?? null);
        }
        const minuteCutoff = minuteOf(now - this.minuteRetentionMs);
        const hourCutoff = hourOf(now - this.hourRetentionMs);
        const deleted = {
          minutes: await tx.$executeRaw`DELETE FROM "TelemetryMinute" WHERE "minute" < ${minuteCutoff}::int4`,
          hours: await tx.$executeRaw`DELETE FROM "TelemetryHour" WHERE "hour" < ${hourCutoff}::int4`,
          fleetMinutes: await tx.$executeRaw`DELETE FROM "FleetTelemetryMinute" WHERE "minute" < ${minuteCutoff}::int4`,
          fleetHours: await tx.$executeRaw`DELETE FROM "FleetTelemetryHour" WHERE "hour" < ${hourCutoff}::int4`,
        };
        return {
          fleetMinutes: { from: fleetFrom, to: Math.max(fleetFrom, closedMinute) },
          hours: { from: hourFrom, to: Math.max(hourFrom, closedHour) },
          deleted,
          ms: 0,
        };
      },
      { timeout: 300_000, maxWait: 30_000 },
    );
    if (!report) return null;
    report.ms = performance.now() - started;
    this.log.debug({ ...report }, 'telemetry rolled up');
    return report;
  }
}
