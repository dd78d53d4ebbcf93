import { type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { TelemetryHistory } from '../../../telemetry/telemetry-history.js';
import { errorBodySchema } from '../../../http/api-error.js';
import { SeriesQuery, FleetPoint, seriesBody, windowOf, seriesHead } from './series-schemas.js';

export interface TelemetryPluginOptions {
  telemetry: TelemetryHistory;
}

/** Telemetry history: a router's series and the fleet's, for charts. */
export const telemetryPlugin: FastifyPluginAsyncTypebox<TelemetryPluginOptions> = async (app, { telemetry }) => {
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
      const window = windowOf(telemetry, request.query);
      return { ...seriesHead(window), points: await telemetry.series.fleetSeries(window) };
    },
  );
};
