/**
 * Telemetry history at fleet scale, on PostgreSQL:
 *  1. a simulated day of 10,000 routers sending one sample a minute, through the real
 *     ingestion path (TelemetryWriter: buffered, one transaction per 5 s of samples as in
 *     production), written faster than real time; the rollup job run as it would (every
 *     minute in the last hour, once an hour before);
 *  2. what it costs: write load per real-time second (rows, statements, ms per transaction,
 *     controller CPU, PostgreSQL CPU of our backends) and bytes per router per day
 *     (pg_total_relation_size, indexes included, after VACUUM) of minute points and hour points;
 *  3. the same day in two straightforward layouts for comparison (a row per program and minute,
 *     a JSONB sample per minute), and the latency of the series reads after the day.
 *
 * Run: npm run -s bench:telemetry   (knobs: WF_BENCH_ROUTERS (10000), WF_BENCH_MINUTES (1440),
 *                                    WF_BENCH_NAIVE_ROUTERS (1000))
 */
import { readFileSync } from 'node:fs';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { pino } from 'pino';
import { PrismaClient } from '../../prisma/generated/client/client.js';
import type { Telemetry } from '../../proto/gen/wrtfleet/agent/v1/agent.js';
import { PROGRAM_NAMES } from '../../core/programs.js';
import { DEFAULT_TELEMETRY } from '../../server/config.js';
import { openDatabase } from '../../server/storage/index.js';
import { resolveWindow } from '../../server/telemetry/series-window.js';
import { ROLLUP_GRACE_MS, TelemetryRollup } from '../../server/telemetry/telemetry-rollup.js';
import { TelemetrySeries } from '../../server/telemetry/telemetry-series.js';
import { TelemetryWriter } from '../../server/telemetry/telemetry-writer.js';
import { createPostgresDatabase } from '../../test/support/databases.js';
import { median, nearestRankPercentile } from '../statistics.js';

const ROUTERS = Number(process.env.WF_BENCH_ROUTERS ?? 10_000);
const MINUTES = Number(process.env.WF_BENCH_MINUTES ?? 1_440);
const NAIVE_ROUTERS = Number(process.env.WF_BENCH_NAIVE_ROUTERS ?? 1_000);
const FLUSH_SECONDS = DEFAULT_TELEMETRY.flushSeconds;
const MINUTE = 60_000;
const HOUR = 3_600_000;
const silent = pino({ level: 'silent' });
/** Datapath modes of the simulated fleet (liveState.datapath.mode, the proto enum): TCX, cls_bpf, nftables. */
const MODES = [2, 2, 2, 2, 2, 2, 3, 3, 3, 4];
const SHARE = [0.9, 0.9, 0.01, 0.01];

/** CPU seconds of a process, from /proc/<pid>/stat (utime + stime). */
function cpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;
const kb = (bytes: number) => Math.round((bytes / 1024) * 10) / 10;

async function relationSizes(client: pg.Pool, tables: string[]) {
  const out: Record<string, { total: number; heap: number; indexes: number; rows: number }> = {};
  for (const t of tables) {
    const { rows } = await client.query(
      `SELECT pg_total_relation_size($1::regclass) AS total, pg_relation_size($1::regclass) AS heap,
              pg_indexes_size($1::regclass) AS indexes, (SELECT count(*) FROM ${t}) AS rows`,
      [t],
    );
    const r = rows[0] as Record<string, string>;
    out[t] = { total: Number(r.total), heap: Number(r.heap), indexes: Number(r.indexes), rows: Number(r.rows) };
  }
  return out;
}

/** One router's simulated datapath: a steady rate that follows the day, a reboot for one router in a hundred. */
function simulator(i: number) {
  const mode = MODES[i % MODES.length]!;
  const base = 200 + (i % 50) * 40;
  const rebootMinute = i % 100 === 0 ? (i * 7919) % MINUTES : -1;
  const seen = [0, 0, 0, 0];
  const rewritten = [0, 0, 0, 0];
  const prefix = mode === 4 ? 'nftables' : 'wan';
  return (minute: number): Telemetry => {
    const pps = base * (1 + 0.5 * Math.sin((2 * Math.PI * minute) / 1440));
    for (let p = 0; p < 4; p++) {
      if (minute === rebootMinute) {
        seen[p] = Math.round(pps * 30);
        rewritten[p] = Math.round(pps * 30 * SHARE[p]!);
      } else {
        seen[p]! += Math.round(pps * 60);
        rewritten[p]! += Math.round(pps * 60 * SHARE[p]!);
      }
    }
    return {
      programs: PROGRAM_NAMES.map((program, p) => ({
        program: `${prefix}/${program}`,
        packetsSeen: mode === 4 ? 0 : seen[p]!,
        packetsRewritten: rewritten[p]!,
      })),
      offload: undefined,
      offloadedFlowsSoftware: mode === 4 ? 0 : 20 + (i % 40),
      offloadedFlowsHardware: 0,
      agentRssBytes: (20 + (i % 10)) * 1024 * 1024,
    };
  };
}

async function main() {
  const database = await createPostgresDatabase();
  // Migrations as the controller applies them; then a pool that keeps its connections, so the
  // CPU of our PostgreSQL backends (the writer's work is sequential: mostly one) can be read
  // from /proc at the end.
  await (await openDatabase({ databaseUrl: database.databaseUrl })).close();
  const pool = new pg.Pool({ connectionString: database.databaseUrl, max: 10, idleTimeoutMillis: 0 });
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
  try {
    console.error(`bench:telemetry: ${ROUTERS} routers, ${MINUTES} simulated minutes`);
    const dayStart = Math.floor(Date.now() / HOUR) * HOUR - 26 * HOUR;
    for (let i = 0; i < ROUTERS; i += 1_000) {
      await prisma.router.createMany({
        data: Array.from({ length: Math.min(1_000, ROUTERS - i) }, (_, k) => ({
          identity: `bench:${i + k}`,
          name: `bench-${i + k}`,
          status: 'online' as const,
          liveState: { datapath: { mode: MODES[(i + k) % MODES.length], interfaces: ['wan'], programs: [] } },
        })),
      });
    }
    const routers = await prisma.router.findMany({
      select: { id: true, seriesKey: true },
      orderBy: { seriesKey: 'asc' },
    });
    const sims = routers.map((_, i) => simulator(i));
    const routerBefore = await relationSizes(pool, ['"Router"']);

    const writer = new TelemetryWriter(prisma, silent, { flushMs: 3_600_000, maxPending: 10 * ROUTERS });
    const rollup = new TelemetryRollup(prisma, DEFAULT_TELEMETRY, silent);
    const perFlush = Math.round((ROUTERS * FLUSH_SECONDS) / 60);
    const spacing = MINUTE / ROUTERS;
    let writerCpuUs = 0;
    const rollupMs: { hourly: number[]; minutely: number[] } = { hourly: [], minutely: [] };
    const wallStart = performance.now();
    let batch: { id: string; telemetry: Telemetry; at: Date }[] = [];
    /** Writes a batch the way the agent streams hand it over; the controller's CPU is measured here only. */
    const write = async () => {
      const cpu = process.cpuUsage();
      for (const s of batch) writer.record(s.id, s.telemetry, s.at);
      await writer.flush();
      const used = process.cpuUsage(cpu);
      writerCpuUs += used.user + used.system;
      batch = [];
    };
    for (let m = 0; m < MINUTES; m++) {
      for (let i = 0; i < routers.length; i++) {
        batch.push({ id: routers[i]!.id, telemetry: sims[i]!(m), at: new Date(dayStart + m * MINUTE + i * spacing) });
        if (batch.length >= perFlush) await write();
      }
      const simulatedNow = dayStart + (m + 1) * MINUTE + ROLLUP_GRACE_MS;
      // The job as it runs: every minute. Measured each minute in the last hour; before it, once
      // an hour (the same work, fewer passes: a day in minutes would take the benchmark long).
      const lastHour = m >= MINUTES - 60;
      if (lastHour || (m + 1) % 60 === 0) {
        await write();
        const t = performance.now();
        await rollup.run(simulatedNow);
        (lastHour && (m + 1) % 60 !== 0 ? rollupMs.minutely : rollupMs.hourly).push(performance.now() - t);
      }
      if ((m + 1) % 60 === 0)
        console.error(
          `  ${(m + 1) / 60} h simulated, ${Math.round((performance.now() - wallStart) / 1000)} s, ${writer.stats.minuteRows} rows`,
        );
    }
    await write();
    await writer.close();
    await rollup.run(dayStart + MINUTES * MINUTE + ROLLUP_GRACE_MS + HOUR);
    const wallS = (performance.now() - wallStart) / 1000;
    const { rows: backends } = await pool.query('SELECT pid FROM pg_stat_activity WHERE datname = current_database()');
    const pgCpuS = (backends as { pid: number }[]).reduce((n, b) => n + cpuSeconds(b.pid), 0);

    await pool.query('VACUUM ANALYZE');
    const tables = [
      '"TelemetryMinute"',
      '"TelemetryHour"',
      '"FleetTelemetryMinute"',
      '"FleetTelemetryHour"',
      '"FleetTelemetryTotal"',
    ];
    const sizes = await relationSizes(pool, tables);
    const routerAfter = await relationSizes(pool, ['"Router"', '"TelemetryBaseline"']);

    // The same minutes in two straightforward layouts, for NAIVE_ROUTERS routers (SQL-generated).
    await pool.query(`CREATE TABLE naive_program_minute (
        "routerId" text, at timestamptz(3), program text, seen bigint, rewritten bigint, "coveredMs" int,
        PRIMARY KEY ("routerId", at, program))`);
    await pool.query(
      `INSERT INTO naive_program_minute
        SELECT r.id, to_timestamp($1::float8 / 1000) + m * interval '1 minute', p, 60000 + m, 54000 + m, 60000
          FROM (SELECT gen_random_uuid()::text AS id FROM generate_series(1, $2::int)) r,
               generate_series(0, $3::int - 1) m, unnest($4::text[]) p`,
      [dayStart, NAIVE_ROUTERS, MINUTES, PROGRAM_NAMES],
    );
    await pool.query(`CREATE TABLE naive_sample_minute (
        "routerId" text, at timestamptz(3), sample jsonb, PRIMARY KEY ("routerId", at))`);
    await pool.query(
      `INSERT INTO naive_sample_minute
        SELECT r.id, to_timestamp($1::float8 / 1000) + m * interval '1 minute',
               jsonb_build_object('coveredMs', 60000, 'programs',
                 (SELECT jsonb_agg(jsonb_build_object('program', 'wan/' || p, 'seen', 60000 + m, 'rewritten', 54000 + m))
                    FROM unnest($4::text[]) p),
                 'offloadedFlowsSoftware', 40, 'offloadedFlowsHardware', 0, 'agentRssBytes', 25165824)
          FROM (SELECT gen_random_uuid()::text AS id FROM generate_series(1, $2::int)) r, generate_series(0, $3::int - 1) m`,
      [dayStart, NAIVE_ROUTERS, MINUTES, PROGRAM_NAMES],
    );
    await pool.query('VACUUM ANALYZE naive_program_minute');
    await pool.query('VACUUM ANALYZE naive_sample_minute');
    const naive = await relationSizes(pool, ['naive_program_minute', 'naive_sample_minute']);

    // Reads after the day: one router's 24 h in 5-minute steps, the fleet's the same.
    const series = new TelemetrySeries(prisma);
    const endOfDay = dayStart + MINUTES * MINUTE;
    const retention = { minuteRetentionMs: 25 * HOUR, hourRetentionMs: 30 * 24 * HOUR };
    const window = resolveWindow(
      { from: new Date(dayStart).toISOString(), to: new Date(endOfDay).toISOString(), step: 300 },
      endOfDay,
      retention,
    );
    const hourWindow = { ...window, stepMs: HOUR, resolution: 'hour' as const };
    const time = async (fn: () => Promise<unknown>) => {
      const xs: number[] = [];
      for (let i = 0; i < 20; i++) {
        const t = performance.now();
        await fn();
        xs.push(performance.now() - t);
      }
      return Math.round(median(xs) * 10) / 10;
    };
    const key = routers[Math.floor(routers.length / 2)]!.seriesKey;
    const reads = {
      routerDayIn5MinMs: await time(() => series.routerSeries(key, window)),
      routerDayInHoursMs: await time(() => series.routerSeries(key, hourWindow)),
      fleetDayIn5MinMs: await time(() => series.fleetSeries(window)),
      fleetDayInHoursMs: await time(() => series.fleetSeries(hourWindow)),
    };

    const days = MINUTES / 1440;
    const simulatedS = MINUTES * 60;
    const perRouterDay = (bytes: number) => bytes / ROUTERS / days;
    const minuteBytes = sizes['"TelemetryMinute"']!.total + sizes['"FleetTelemetryMinute"']!.total;
    const hourBytes = sizes['"TelemetryHour"']!.total + sizes['"FleetTelemetryHour"']!.total;
    const txMs = [...writer.stats.transactionMs].sort((a, b) => a - b);
    const result = {
      routers: ROUTERS,
      simulatedMinutes: MINUTES,
      wallSeconds: Math.round(wallS),
      speedup: Math.round((simulatedS / wallS) * 10) / 10,
      writeLoadPerRealSecond: {
        samples: Math.round((writer.stats.samples / simulatedS) * 10) / 10,
        minuteRows: Math.round((writer.stats.minuteRows / simulatedS) * 10) / 10,
        transactions: Math.round((writer.stats.transactions / simulatedS) * 100) / 100,
        statements: Math.round((writer.stats.statements / simulatedS) * 100) / 100,
        statementsWithBeginCommit:
          Math.round(((writer.stats.statements + 2 * writer.stats.transactions) / simulatedS) * 100) / 100,
        samplesPerTransaction: Math.round(writer.stats.samples / writer.stats.transactions),
      },
      transactionMs: {
        p50: Math.round(nearestRankPercentile(txMs, 50) * 10) / 10,
        p90: Math.round(nearestRankPercentile(txMs, 90) * 10) / 10,
        p99: Math.round(nearestRankPercentile(txMs, 99) * 10) / 10,
        max: Math.round(txMs[txMs.length - 1]! * 10) / 10,
      },
      cpu: {
        controllerCoreShare: Math.round((writerCpuUs / 1e6 / simulatedS) * 10_000) / 100 + ' %',
        controllerMsPerSample: Math.round((writerCpuUs / 1000 / writer.stats.samples) * 1000) / 1000,
        postgresCoreShare: Math.round((pgCpuS / simulatedS) * 10_000) / 100 + ' %',
      },
      rollupPassMs: {
        hourly: Math.round(median(rollupMs.hourly)),
        hourlyMax: Math.round(Math.max(...rollupMs.hourly)),
        minutely: rollupMs.minutely.length ? Math.round(median(rollupMs.minutely)) : null,
      },
      writer: { ...writer.stats, transactionMs: undefined },
      sizes: Object.fromEntries(Object.entries(sizes).map(([t, s]) => [t, { ...s, totalMB: mb(s.total) }])),
      bytesPerRouterPerDay: {
        minutePoints: Math.round(perRouterDay(minuteBytes)),
        hourPoints: Math.round(perRouterDay(hourBytes)),
        total: Math.round(perRouterDay(minuteBytes + hourBytes)),
        perMinuteRow: Math.round(sizes['"TelemetryMinute"']!.total / sizes['"TelemetryMinute"']!.rows),
      },
      steadyState: {
        minutePointsKept24hMB: mb(minuteBytes / days),
        hourPoints30DaysMB: mb((hourBytes / days) * 30),
        perRouterKB: kb((minuteBytes + hourBytes * 30) / days / ROUTERS),
      },
      routerTable: { beforeMB: mb(routerBefore['"Router"']!.total), afterMB: mb(routerAfter['"Router"']!.total) },
      // One row per router, rewritten by every sample: a fixed cost per router, not per day.
      baselinesPerRouterBytes: Math.round(routerAfter['"TelemetryBaseline"']!.total / ROUTERS),
      naiveLayouts: {
        rowPerProgramAndMinute: Math.round(naive.naive_program_minute!.total / NAIVE_ROUTERS / days),
        jsonbSamplePerMinute: Math.round(naive.naive_sample_minute!.total / NAIVE_ROUTERS / days),
      },
      readsMedianMs: reads,
    };
    console.log(JSON.stringify(result, null, 2));
  } finally {
    await prisma.$disconnect();
    await pool.end();
    await database.drop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
