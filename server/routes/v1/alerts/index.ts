import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AlertEvaluator } from '../../../alerts/alert-evaluator.js';
import { AlertNotFound, AlertResolved, type AlertStore } from '../../../alerts/alert-store.js';
import { AlertSeveritySchema } from '../../../alerts/alert-rules.js';
import { ApiError, errorBodySchema } from '../../../http/api-error.js';
import { auditContext } from '../../../http/request-context.js';
import { Page, PageLimit, Printable, StringEnum } from '../../../http/shared-schemas.js';
import { decodeCursor, encodeCursor, InvalidCursor } from '../../../storage/keyset-cursor.js';
import { ALERT_STATUSES } from '../../../alerts/alert-store.js';
import { AlertSchema, AlertSummarySchema } from './alert-schemas.js';

export interface AlertsPluginOptions {
  alerts: AlertStore;
  evaluator: AlertEvaluator;
}

/** Alerts: firing and past, one alert, the badge's summary, acknowledging one. */
export const alertsPlugin: FastifyPluginAsyncTypebox<AlertsPluginOptions> = async (app, { alerts, evaluator }) => {
  app.get(
    '/v1/alerts',
    {
      schema: {
        tags: ['alerts'],
        summary: 'Alerts, newest first, with keyset pagination',
        querystring: Type.Object(
          {
            limit: PageLimit(500, 50),
            cursor: Type.Optional(Type.String({ maxLength: 512, description: 'nextCursor of the previous page' })),
            status: Type.Optional(
              StringEnum([...ALERT_STATUSES, 'active'] as const, {
                description: '`active`: every unresolved alert (firing, acknowledged or silenced)',
              }),
            ),
            severity: Type.Optional(AlertSeveritySchema),
            rule: Type.Optional(Type.String({ maxLength: 63, description: "The rule's name" })),
            router: Type.Optional(Type.String({ maxLength: 64, description: "A router's id: its alerts only" })),
          },
          { additionalProperties: false },
        ),
        response: { 200: Page(AlertSchema), 400: errorBodySchema },
      },
    },
    async (request) => {
      const { limit, cursor, ...filter } = request.query;
      let after;
      try {
        after = cursor ? decodeCursor(cursor) : undefined;
      } catch (err) {
        if (!(err instanceof InvalidCursor)) throw err;
        throw new ApiError(400, 'invalid_request', `invalid querystring parameter: cursor ${err.message}`, [
          { path: '/cursor', in: 'querystring', message: err.message },
        ]);
      }
      const page = await alerts.list({ ...filter, after, limit });
      return {
        items: page.items,
        nextCursor: page.more && page.last ? encodeCursor(page.last.firedAt, page.last.id) : null,
      };
    },
  );

  app.get(
    '/v1/alerts/summary',
    {
      schema: {
        tags: ['alerts'],
        summary: 'How many alerts are unresolved, by status and severity (the console badge)',
        response: { 200: AlertSummarySchema },
      },
    },
    () => alerts.summary(),
  );

  app.get(
    '/v1/alerts/:id',
    {
      schema: {
        tags: ['alerts'],
        summary: 'One alert',
        params: Type.Object({ id: Type.String({ maxLength: 64 }) }),
        response: { 200: AlertSchema, 404: errorBodySchema },
      },
    },
    async (request) => {
      const alert = await alerts.get(request.params.id);
      if (!alert) throw new ApiError(404, 'not_found', `no alert has id ${request.params.id}`);
      return alert;
    },
  );

  app.post(
    '/v1/alerts/:id/acknowledge',
    {
      schema: {
        tags: ['alerts'],
        summary: 'Acknowledge a firing alert: an operator is on it (its group stops announcing it)',
        params: Type.Object({ id: Type.String({ maxLength: 64 }) }),
        body: Type.Object(
          { note: Type.Optional(Printable(1000)) },
          { additionalProperties: false, description: 'What the operator is doing about it' },
        ),
        response: { 200: AlertSchema, 400: errorBodySchema, 404: errorBodySchema, 409: errorBodySchema },
      },
    },
    async (request) => {
      try {
        const view = await alerts.acknowledge(request.params.id, request.body?.note ?? null, auditContext(request));
        evaluator.requestSoon();
        return view;
      } catch (err) {
        if (err instanceof AlertNotFound) throw new ApiError(404, 'not_found', err.message);
        if (err instanceof AlertResolved) throw new ApiError(409, 'alert_resolved', err.message);
        throw err;
      }
    },
  );
};
