import { Type, type TSchema } from '@fastify/type-provider-typebox';
import { PROGRAM_NAMES } from '../../../../core/programs.js';
import { DATAPATH_MODES } from '../../../telemetry/series-layout.js';
import { MAX_POINTS, WindowError, type SeriesWindow, type WindowQuery } from '../../../telemetry/series-window.js';
import { ApiError } from '../../../http/api-error.js';
import { Nullable, Timestamp } from '../../../http/shared-schemas.js';
import type { TelemetryHistory } from '../../../telemetry/telemetry-history.js';

/** The schemas and reading of telemetry series: the fleet's (/v1/telemetry) and a router's (/v1/routers/:id/telemetry). */

/** One of a fixed list of names, typed as that list. */
export const literals = <T extends readonly string[]>(values: T) =>
  Type.Unsafe<T[number]>(Type.Union(values.map((v) => Type.Literal(v))));

export const SeriesQuery = Type.Object(
  {
    from: Type.Optional({ ...Timestamp, description: 'Start of the range (default: one hour before to)' }),
    to: Type.Optional({ ...Timestamp, description: 'End of the range (default: now)' }),
    step: Type.Optional(
      Type.Integer({
        minimum: 60,
        maximum: 86_400,
        description: `Seconds per point, a multiple of 60 (of 3600 for ranges older than the minute retention); default: the finest giving at most 360 points; at most ${MAX_POINTS} points`,
      }),
    ),
  },
  { additionalProperties: false },
);

export const Mode = literals(DATAPATH_MODES);
export const Flows = Type.Object({ software: Type.Integer(), hardware: Type.Integer() });
export const ProgramRate = Type.Object({
  program: literals(PROGRAM_NAMES),
  seenPerSecond: Type.Number({ minimum: 0 }),
  rewrittenPerSecond: Type.Number({ minimum: 0 }),
});

export const RouterPoint = Type.Object({
  at: Timestamp,
  coveredSeconds: Type.Number({ description: 'Seconds of counting behind this point (0: no data, a gap)' }),
  mode: Nullable(Mode),
  programs: Type.Array(ProgramRate, { description: 'Programs that reported in this step' }),
  offloadedFlows: Nullable(Flows),
  agentRssBytes: Nullable(Type.Integer()),
});

export const FleetPoint = Type.Object({
  at: Timestamp,
  routers: Type.Integer({ description: 'Routers that reported in this step' }),
  offloadedFlows: Nullable(Flows),
  modes: Type.Array(
    Type.Object({ mode: Mode, routers: Type.Integer(), programs: Type.Array(ProgramRate), offloadedFlows: Flows }),
    { description: 'Per datapath mode: the sum of its routers rates' },
  ),
});

export const seriesBody = <T extends TSchema>(extra: Record<string, TSchema>, point: T) =>
  Type.Object({
    ...extra,
    from: Timestamp,
    to: Timestamp,
    step: Type.Integer({ description: 'Seconds per point' }),
    resolution: literals(['minute', 'hour'] as const),
    points: Type.Array(point),
  });

/** The query's window, or a 400 naming the field that is wrong. */
export function windowOf(telemetry: TelemetryHistory, query: WindowQuery): SeriesWindow {
  try {
    return telemetry.window(query);
  } catch (err) {
    if (err instanceof WindowError)
      throw new ApiError(400, 'invalid_request', `invalid querystring parameter: ${err.message}`, [
        { path: `/${err.field}`, in: 'querystring', message: err.message },
      ]);
    throw err;
  }
}

/** The window as the response's head describes it. */
export const seriesHead = (w: SeriesWindow) => ({
  from: new Date(w.fromMs).toISOString(),
  to: new Date(w.toMs).toISOString(),
  step: w.stepMs / 1000,
  resolution: w.resolution,
});
