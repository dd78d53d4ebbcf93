/**
 * A router's telemetry (GET /v1/routers/{id}/telemetry) as chart data: the ranges the page
 * offers, the query of each, and the points turned into uPlot's column arrays (x in Unix
 * seconds, one array per line, null for a step without data so the line breaks there).
 * Pure, unit-tested in test/web-admin/logic/telemetry-charts.unit.test.ts.
 */

export interface RangeChoice {
  id: '1h' | '24h' | '7d' | '30d';
  label: string;
  seconds: number;
  /** How often the chart asks again: about one new point per refresh. */
  refreshMs: number;
  /**
   * Seconds asked for. The controller keeps minute points 24 h and serves a window that starts
   * before that from hour points (25 for a day); 24 h asks for two minutes less, so its chart
   * stays at minute resolution.
   */
  askSeconds: number;
}

export const RANGES: readonly RangeChoice[] = [
  { id: '1h', label: '1 h', seconds: 3_600, refreshMs: 15_000, askSeconds: 3_600 },
  { id: '24h', label: '24 h', seconds: 86_400, refreshMs: 60_000, askSeconds: 86_400 - 120 },
  { id: '7d', label: '7 d', seconds: 7 * 86_400, refreshMs: 300_000, askSeconds: 7 * 86_400 },
  { id: '30d', label: '30 d', seconds: 30 * 86_400, refreshMs: 300_000, askSeconds: 30 * 86_400 },
];

export const DEFAULT_RANGE = RANGES[0]!;

/** The range a query string names (`?range=24h`), or the default. */
export function rangeOf(id: string | null | undefined): RangeChoice {
  return RANGES.find((r) => r.id === id) ?? DEFAULT_RANGE;
}

/** from/to of a range ending now; the controller picks the step (at most 360 points). */
export function rangeQuery(range: RangeChoice, nowMs: number): { from: string; to: string } {
  // Whole seconds: a refresh asks the same window a second later, not a new millisecond grid.
  const to = Math.floor(nowMs / 1000) * 1000;
  return { from: new Date(to - range.askSeconds * 1000).toISOString(), to: new Date(to).toISOString() };
}

/** One point of the API's router series (the fields the charts read). */
export interface SeriesPoint {
  at: string;
  coveredSeconds: number;
  programs: readonly { program: string; seenPerSecond: number; rewrittenPerSecond: number }[];
  offloadedFlows: { software: number; hardware: number } | null;
  agentRssBytes: number | null;
}

/** One chart: its lines' labels and uPlot's aligned columns [x, line 1, line 2, ...]. */
export interface ChartColumns {
  labels: string[];
  data: [number[], ...(number | null)[][]];
}

/** The programs in the order they first report, so a line keeps its colour between refreshes of the same data. */
export function programsOf(points: readonly SeriesPoint[]): string[] {
  const seen: string[] = [];
  for (const p of points) for (const r of p.programs) if (!seen.includes(r.program)) seen.push(r.program);
  return seen;
}

const xOf = (points: readonly SeriesPoint[]) => points.map((p) => Math.floor(Date.parse(p.at) / 1000));
const hasData = (p: SeriesPoint) => p.coveredSeconds > 0;

/** Packets per second, seen and rewritten, one line each per program. */
export function packetColumns(points: readonly SeriesPoint[]): ChartColumns {
  const programs = programsOf(points);
  const labels: string[] = [];
  const lines: (number | null)[][] = [];
  for (const program of programs) {
    for (const which of ['seen', 'rewritten'] as const) {
      labels.push(`${program} ${which}`);
      lines.push(
        points.map((p) => {
          if (!hasData(p)) return null;
          const rate = p.programs.find((r) => r.program === program);
          if (!rate) return null;
          return which === 'seen' ? rate.seenPerSecond : rate.rewrittenPerSecond;
        }),
      );
    }
  }
  return { labels, data: [xOf(points), ...lines] };
}

/** Offloaded flows, software and hardware. */
export function flowColumns(points: readonly SeriesPoint[]): ChartColumns {
  const of = (which: 'software' | 'hardware') =>
    points.map((p) => (hasData(p) && p.offloadedFlows ? p.offloadedFlows[which] : null));
  return { labels: ['software', 'hardware'], data: [xOf(points), of('software'), of('hardware')] };
}

/** The agent's resident memory in MiB. */
export function memoryColumns(points: readonly SeriesPoint[]): ChartColumns {
  return {
    labels: ['agent RSS (MiB)'],
    data: [
      xOf(points),
      points.map((p) =>
        hasData(p) && p.agentRssBytes !== null ? Math.round((p.agentRssBytes / 1_048_576) * 10) / 10 : null,
      ),
    ],
  };
}

/** How many points of a chart hold a value (0: draw "no data" instead of an empty frame). */
export function valuesIn(columns: ChartColumns): number {
  let count = 0;
  for (const line of columns.data.slice(1) as (number | null)[][]) for (const v of line) if (v !== null) count++;
  return count;
}
