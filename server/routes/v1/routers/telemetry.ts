import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ApiError, errorBodySchema } from '../../../http/api-error.js';
import { IdParam } from '../../../http/shared-schemas.js';
import { SeriesQuery, RouterPoint, seriesBody, windowOf, seriesHead } from '../telemetry/series-schemas.js';
import type { PrismaClient } from '../../../../prisma/generated/client/client.js';
import type { TelemetryHistory } from '../../../telemetry/telemetry-history.js';

/** GET /v1/routers/:id/telemetry: a router's series (the fleet's is /v1/telemetry). */
export const routerTelemetryPlugin: FastifyPluginAsyncTypebox<{
  db: PrismaClient;
  telemetry: TelemetryHistory;
}> = async (app, { db, telemetry }) => {
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
      const window = windowOf(telemetry, request.query);
      const router = await db.router.findUnique({ where: { id: request.params.id }, select: { seriesKey: true } });
      if (!router) throw new ApiError(404, 'not_found', `no router with id ${request.params.id}`);
      const points = await telemetry.series.routerSeries(router.seriesKey, window);
      return { routerId: request.params.id, ...seriesHead(window), points };
    },
  );
};
