/**
 * Reading telemetry history back as the series a chart draws: one point per step from the
 * window's start, each with rates (delta / covered time) per program, offloaded flows and
 * agent RSS; a step without data is a point with coveredSeconds 0 and nulls, so a chart
 * shows the gap. Periods the rollup has not reached yet (the current hour, the last minutes
 * of the fleet) are aggregated here from the rows below them.
 */
import type { PrismaClient } from '../../prisma/generated/client/client.js';
import { PROGRAM_NAMES, type ProgramName } from '../../core/programs.js';
import { COUNTER_COLUMNS, HOUR_MS, MINUTE_MS, RATE_COLUMNS, modeName, type DatapathModeName } from './series-layout.js';
import type { SeriesWindow } from './series-window.js';

export interface ProgramRate {
  program: ProgramName;
  seenPerSecond: number;
  rewrittenPerSecond: number;
}

export interface RouterPoint {
  at: string;
  coveredSeconds: number;
  mode: DatapathModeName | null;
  programs: ProgramRate[];
  offloadedFlows: { software: number; hardware: number } | null;
  agentRssBytes: number | null;
}

export interface FleetModePoint {
  mode: DatapathModeName;
  routers: number;
  programs: ProgramRate[];
  offloadedFlows: { software: number; hardware: number };
}

export interface FleetPoint {
  at: string;
  routers: number;
  offloadedFlows: { software: number; hardware: number } | null;
  modes: FleetModePoint[];
}

/** A minute or hour row of one router, as both tables and the on-the-fly hour rollup give it. */
interface RouterRow {
  t: number;
  coveredMs: number;
  counters: number[];
  flowsSoftware: number;
  flowsHardware: number;
  agentRssKib: number;
  mode: number;
  programs: number;
}

/** A minute or hour row of the fleet for one mode. */
interface FleetRow {
  t: number;
  mode: number;
  routers: number;
  rates: number[];
  flowsSoftware: number;
  flowsHardware: number;
  programs: number;
}

/** The fleet's newest minutes are summed from router rows here, at most this far back. */
const LIVE_FLEET_MINUTES = 60;

const round3 = (n: number) => Math.round(n * 1000) / 1000;
const cols = (names: string[]) => names.map((c) => `"${c}"`).join(', ');
const ROUTER_VALUES = `"coveredMs", ${cols(COUNTER_COLUMNS)}, "flowsSoftware", "flowsHardware", "agentRssKib", "mode", "programs"`;
/** Minute rows as hour rows, the way the rollup makes them (telemetry-rollup.ts). */
const ROUTER_HOURS_FROM_MINUTES = `
  SELECT "minute" / 60 AS t, sum("coveredMs")::int8 AS "coveredMs", ${COUNTER_COLUMNS.map((c) => `sum("${c}") AS "${c}"`).join(', ')},
         avg("flowsSoftware") AS "flowsSoftware", avg("flowsHardware") AS "flowsHardware", avg("agentRssKib") AS "agentRssKib",
         (array_agg("mode" ORDER BY "minute" DESC))[1] AS "mode", bit_or("programs") AS "programs"
    FROM "TelemetryMinute" WHERE "routerKey" = $1 AND "minute" >= $2::int4 * 60 AND "minute" < $3::int4 * 60
   GROUP BY "minute" / 60`;
const FLEET_MINUTES_FROM_ROUTERS = `
  SELECT "minute" AS t, "mode", count(*)::int4 AS routers,
         ${COUNTER_COLUMNS.map((c, i) => `COALESCE(sum("${c}" * 1000.0 / NULLIF("coveredMs", 0)), 0) AS "${RATE_COLUMNS[i]}"`).join(', ')},
         sum("flowsSoftware") AS "flowsSoftware", sum("flowsHardware") AS "flowsHardware", bit_or("programs") AS "programs"
    FROM "TelemetryMinute" WHERE "minute" >= $1::int4 AND "minute" < $2::int4
   GROUP BY "minute", "mode"`;
const FLEET_VALUES = `"mode", "routers", ${cols(RATE_COLUMNS)}, "flowsSoftware", "flowsHardware", "programs"`;

type Raw = Record<string, unknown>;

function routerRow(r: Raw): RouterRow {
  return {
    t: Number(r.t),
    coveredMs: Number(r.coveredMs),
    counters: COUNTER_COLUMNS.map((c) => Number(r[c])),
    flowsSoftware: Number(r.flowsSoftware),
    flowsHardware: Number(r.flowsHardware),
    agentRssKib: Number(r.agentRssKib),
    mode: Number(r.mode),
    programs: Number(r.programs),
  };
}

function fleetRow(r: Raw): FleetRow {
  return {
    t: Number(r.t),
    mode: Number(r.mode),
    routers: Number(r.routers),
    rates: RATE_COLUMNS.map((c) => Number(r[c])),
    flowsSoftware: Number(r.flowsSoftware),
    flowsHardware: Number(r.flowsHardware),
    programs: Number(r.programs),
  };
}

function rates(programs: number, perSecond: (slot: number) => [number, number]): ProgramRate[] {
  return PROGRAM_NAMES.flatMap((program, slot) => {
    if (!(programs & (1 << slot))) return [];
    const [seen, rewritten] = perSecond(slot);
    return [{ program, seenPerSecond: round3(seen), rewrittenPerSecond: round3(rewritten) }];
  });
}

/** Fleet minute rows folded into one row per hour and mode: each value the mean of its minutes. */
function meanPerHour(rows: FleetRow[]): FleetRow[] {
  const groups = new Map<string, FleetRow[]>();
  for (const r of rows) {
    const key = `${Math.floor(r.t / 60)}:${r.mode}`;
    const list = groups.get(key);
    if (list) list.push(r);
    else groups.set(key, [r]);
  }
  return [...groups.values()].map((list) => {
    const mean = (pick: (r: FleetRow) => number) => list.reduce((n, r) => n + pick(r), 0) / list.length;
    return {
      t: Math.floor(list[0]!.t / 60),
      mode: list[0]!.mode,
      routers: mean((r) => r.routers),
      rates: list[0]!.rates.map((_, i) => mean((r) => r.rates[i]!)),
      flowsSoftware: mean((r) => r.flowsSoftware),
      flowsHardware: mean((r) => r.flowsHardware),
      programs: list.reduce((bits, r) => bits | r.programs, 0),
    };
  });
}

export class TelemetrySeries {
  constructor(private readonly db: PrismaClient) {}

  private async mark(name: 'hour' | 'fleet_minute'): Promise<number | null> {
    const row = await this.db.telemetryRollupMark.findUnique({ where: { name } });
    return row?.through ?? null;
  }

  /** Rows of one router at the window's resolution (t in minutes or hours since the epoch). */
  private async routerRows(routerKey: number, w: SeriesWindow): Promise<{ rows: RouterRow[]; unitMs: number }> {
    if (w.resolution === 'minute') {
      const rows = await this.db.$queryRawUnsafe<Raw[]>(
        `SELECT "minute" AS t, ${ROUTER_VALUES} FROM "TelemetryMinute"
          WHERE "routerKey" = $1 AND "minute" >= $2::int4 AND "minute" < $3::int4 ORDER BY "minute"`,
        routerKey,
        Math.floor(w.fromMs / MINUTE_MS),
        Math.ceil(w.toMs / MINUTE_MS),
      );
      return { rows: rows.map(routerRow), unitMs: MINUTE_MS };
    }
    const fromH = Math.floor(w.fromMs / HOUR_MS);
    const toH = Math.ceil(w.toMs / HOUR_MS);
    const mark = Math.min(Math.max((await this.mark('hour')) ?? fromH, fromH), toH);
    const rolled = await this.db.$queryRawUnsafe<Raw[]>(
      `SELECT "hour" AS t, ${ROUTER_VALUES} FROM "TelemetryHour"
        WHERE "routerKey" = $1 AND "hour" >= $2::int4 AND "hour" < $3::int4`,
      routerKey,
      fromH,
      mark,
    );
    const recent =
      mark < toH ? await this.db.$queryRawUnsafe<Raw[]>(ROUTER_HOURS_FROM_MINUTES, routerKey, mark, toH) : [];
    const rows = [...rolled, ...recent].map(routerRow).sort((a, b) => a.t - b.t);
    return { rows, unitMs: HOUR_MS };
  }

  async routerSeries(routerKey: number, w: SeriesWindow): Promise<RouterPoint[]> {
    const { rows, unitMs } = await this.routerRows(routerKey, w);
    const count = Math.ceil((w.toMs - w.fromMs) / w.stepMs);
    const acc = Array.from({ length: count }, () => ({ rows: [] as RouterRow[] }));
    for (const row of rows) acc[Math.floor((row.t * unitMs - w.fromMs) / w.stepMs)]?.rows.push(row);
    return acc.map(({ rows: inBucket }, i) => {
      const at = new Date(w.fromMs + i * w.stepMs).toISOString();
      const coveredMs = inBucket.reduce((n, r) => n + r.coveredMs, 0);
      if (inBucket.length === 0 || coveredMs === 0)
        return { at, coveredSeconds: 0, mode: null, programs: [], offloadedFlows: null, agentRssBytes: null };
      const sum = (pick: (r: RouterRow) => number) => inBucket.reduce((n, r) => n + pick(r), 0);
      const mean = (pick: (r: RouterRow) => number) => sum(pick) / inBucket.length;
      const programs = inBucket.reduce((bits, r) => bits | r.programs, 0);
      const perSecond = (i: number) => (sum((r) => r.counters[i]!) * 1000) / coveredMs;
      return {
        at,
        coveredSeconds: round3(coveredMs / 1000),
        mode: modeName(inBucket[inBucket.length - 1]!.mode),
        programs: rates(programs, (slot) => [perSecond(slot * 2), perSecond(slot * 2 + 1)]),
        offloadedFlows: {
          software: Math.round(mean((r) => r.flowsSoftware)),
          hardware: Math.round(mean((r) => r.flowsHardware)),
        },
        agentRssBytes: Math.round(mean((r) => r.agentRssKib)) * 1024,
      };
    });
  }

  /** Fleet rows at minute resolution: stored ones, then the newest summed from router rows. */
  private async fleetMinuteRows(fromM: number, toM: number): Promise<FleetRow[]> {
    const mark = Math.min(Math.max((await this.mark('fleet_minute')) ?? fromM, fromM), toM);
    const stored = await this.db.$queryRawUnsafe<Raw[]>(
      `SELECT "minute" AS t, ${FLEET_VALUES} FROM "FleetTelemetryMinute" WHERE "minute" >= $1::int4 AND "minute" < $2::int4`,
      fromM,
      mark,
    );
    const liveFrom = Math.max(mark, toM - LIVE_FLEET_MINUTES);
    const live = liveFrom < toM ? await this.db.$queryRawUnsafe<Raw[]>(FLEET_MINUTES_FROM_ROUTERS, liveFrom, toM) : [];
    return [...stored, ...live].map(fleetRow);
  }

  private async fleetRows(w: SeriesWindow): Promise<{ rows: FleetRow[]; unitMs: number }> {
    if (w.resolution === 'minute')
      return {
        rows: await this.fleetMinuteRows(Math.floor(w.fromMs / MINUTE_MS), Math.ceil(w.toMs / MINUTE_MS)),
        unitMs: MINUTE_MS,
      };
    const fromH = Math.floor(w.fromMs / HOUR_MS);
    const toH = Math.ceil(w.toMs / HOUR_MS);
    const mark = Math.min(Math.max((await this.mark('hour')) ?? fromH, fromH), toH);
    const stored = (
      await this.db.$queryRawUnsafe<Raw[]>(
        `SELECT "hour" AS t, ${FLEET_VALUES} FROM "FleetTelemetryHour" WHERE "hour" >= $1::int4 AND "hour" < $2::int4`,
        fromH,
        mark,
      )
    ).map(fleetRow);
    // Hours not rolled up yet: the means of their minutes.
    const recent = mark < toH ? meanPerHour(await this.fleetMinuteRows(mark * 60, toH * 60)) : [];
    return { rows: [...stored, ...recent], unitMs: HOUR_MS };
  }

  async fleetSeries(w: SeriesWindow): Promise<FleetPoint[]> {
    const { rows, unitMs } = await this.fleetRows(w);
    const count = Math.ceil((w.toMs - w.fromMs) / w.stepMs);
    const acc = Array.from({ length: count }, () => new Map<number, FleetRow[]>());
    for (const row of rows) {
      const bucket = acc[Math.floor((row.t * unitMs - w.fromMs) / w.stepMs)];
      if (!bucket) continue;
      const list = bucket.get(row.mode);
      if (list) list.push(row);
      else bucket.set(row.mode, [row]);
    }
    return acc.map((byMode, i) => {
      const at = new Date(w.fromMs + i * w.stepMs).toISOString();
      // Each row is already a rate (or a gauge) of one minute or hour: a bucket averages them.
      const modes: FleetModePoint[] = [...byMode.entries()]
        .sort(([a], [b]) => a - b)
        .map(([mode, list]) => {
          const mean = (pick: (r: FleetRow) => number) => list.reduce((n, r) => n + pick(r), 0) / list.length;
          return {
            mode: modeName(mode),
            routers: Math.round(mean((r) => r.routers)),
            programs: rates(
              list.reduce((bits, r) => bits | r.programs, 0),
              (slot) => [mean((r) => r.rates[slot * 2]!), mean((r) => r.rates[slot * 2 + 1]!)],
            ),
            offloadedFlows: {
              software: Math.round(mean((r) => r.flowsSoftware)),
              hardware: Math.round(mean((r) => r.flowsHardware)),
            },
          };
        });
      if (modes.length === 0) return { at, routers: 0, offloadedFlows: null, modes };
      return {
        at,
        routers: modes.reduce((n, m) => n + m.routers, 0),
        offloadedFlows: {
          software: modes.reduce((n, m) => n + m.offloadedFlows.software, 0),
          hardware: modes.reduce((n, m) => n + m.offloadedFlows.hardware, 0),
        },
        modes,
      };
    });
  }
}
