import { Type, type FastifyPluginAsyncTypebox, type TSchema } from '@fastify/type-provider-typebox';
import type { PrismaClient } from '../../prisma/generated/client/client.js';
import { PROGRAM_NAMES } from '../../core/programs.js';
import { DATAPATH_MODES } from '../telemetry/series-layout.js';
import { MAX_POINTS, WindowError, type SeriesWindow, type WindowQuery } from '../telemetry/series-window.js';
import type { TelemetryHistory } from '../telemetry/telemetry-history.js';
import { ApiError, errorBodySchema } from './errors.js';
import { IdParam, Nullable, Timestamp } from './shared-schemas.js';

/** One of a fixed list of names, typed as that list. */
const literals = <T extends readonly string[]>(values: T) =>
  Type.Unsafe<T[number]>(Type.Union(values.map((v) => Type.Literal(v))));

const SeriesQuery = Type.Object(
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

const Mode = literals(DATAPATH_MODES);
const Flows = Type.Object({ software: Type.Integer(), hardware: Type.Integer() });
const ProgramRate = Type.Object({
  program: literals(PROGRAM_NAMES),
  seenPerSecond: Type.Number({ minimum: 0 }),
  rewrittenPerSecond: Type.Number({ minimum: 0 }),
});

const RouterPoint = Type.Object({
  at: Timestamp,
  coveredSeconds: Type.Number({ description: 'Seconds of counting behind this point (0: no data, a gap)' }),
  mode: Nullable(Mode),
  programs: Type.Array(ProgramRate, { description: 'Programs that reported in this step' }),
  offloadedFlows: Nullable(Flows),
  agentRssBytes: Nullable(Type.Integer()),
});

const FleetPoint = Type.Object({
  at: Timestamp,
  routers: Type.Integer({ description: 'Routers that reported in this step' }),
  offloadedFlows: Nullable(Flows),
  modes: Type.Array(
    Type.Object({ mode: Mode, routers: Type.Integer(), programs: Type.Array(ProgramRate), offloadedFlows: Flows }),
    { description: 'Per datapath mode: the sum of its routers rates' },
  ),
});

const seriesBody = <T extends TSchema>(extra: Record<string, TSchema>, point: T) =>
  Type.Object({
    ...extra,
    from: Timestamp,
    to: Timestamp,
    step: Type.Integer({ description: 'Seconds per point' }),
    resolution: literals(['minute', 'hour'] as const),
    points: Type.Array(point),
  });

export interface TelemetryPluginOptions {
  db: PrismaClient;
  telemetry: TelemetryHistory;
}

/** Telemetry history: a router's series and the fleet's, for charts. */
export const telemetryPlugin: FastifyPluginAsyncTypebox<TelemetryPluginOptions> = async (app, { db, telemetry }) => {
  const windowOf = (query: WindowQuery): SeriesWindow => {
    try {
      return telemetry.window(query);
    } catch (err) {
      if (err instanceof WindowError)
        throw new ApiError(400, 'invalid_request', `invalid querystring parameter: ${err.message}`, [
          { path: `/${err.field}`, in: 'querystring', message: err.message },
        ]);
      throw err;
    }
  };
  const head = (w: SeriesWindow) => ({
    from: new Date(w.fromMs).toISOString(),
    to: new Date(w.toMs).toISOString(),
    step: w.stepMs / 1000,
    resolution: w.resolution,
  });

  app.get(
    '/v1/routers/:id/telemetry',
    {
      schema: {
        tags: ['telemetry'],
        summary:
          "A router's telemetry over time: packets seen / rewritten per second per program, offloaded flows, agent RSS",
        description:
          'Rates come from deltas of the cumulative counters; a counter reset (reboot, re-attach) counts from zero, never negative. One point per step; a step without data has coveredSeconds 0.',
        params: IdParam,
        querystring: SeriesQuery,
        response: {
          200: seriesBody({ routerId: Type.String() }, RouterPoint),
          400: errorBodySchema,
          404: errorBodySchema,
        },
      },
    },
    async (request) => {
      const window = windowOf(request.query);
      const router = await db.router.findUnique({ where: { id: request.params.id }, select: { seriesKey: true } });
      if (!router) throw new ApiError(404, 'not_found', `no router with id ${request.params.id}`);
      const points = await telemetry.series.routerSeries(router.seriesKey, window);
      return { routerId: request.params.id, ...head(window), points };
    },
  );

  app.get(
    '/v1/telemetry',
    {
      schema: {
        tags: ['telemetry'],
        summary: "The fleet's telemetry over time, per datapath mode and program (sums of the routers' rates)",
        querystring: SeriesQuery,
        response: { 200: seriesBody({}, FleetPoint), 400: errorBodySchema },
      },
    },
    async (request) => {
      const window = windowOf(request.query);
      return { ...head(window), points: await telemetry.series.fleetSeries(window) };
    },
  );
};
