import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AlertSilence } from '../../../../prisma/generated/client/client.js';
import type { AlertEvaluator } from '../../../alerts/alert-evaluator.js';
import { RULE_NAME_PATTERN } from '../../../alerts/alert-rules.js';
import { SilenceRefused, type AlertSilences } from '../../../alerts/alert-silences.js';
import { SelectorSchema } from '../../../fleet/selector.js';
import { ApiError, errorBodySchema } from '../../../http/api-error.js';
import { auditContext } from '../../../http/request-context.js';
import { Nullable, Printable, Timestamp } from '../../../http/shared-schemas.js';
import { selectorError } from '../selector-error.js';

export interface SilencesPluginOptions {
  silences: AlertSilences;
  evaluator: AlertEvaluator;
}

const SilenceSchema = Type.Object({
  id: Type.String(),
  rule: Nullable(Type.String({ description: "The rule's name; null: every rule" })),
  selector: Nullable(Type.Any({ description: 'Which routers; null: every subject' })),
  comment: Type.String(),
  startsAt: Timestamp,
  endsAt: Timestamp,
  active: Type.Boolean(),
  createdBy: Type.String(),
  createdAt: Timestamp,
});

function view(s: AlertSilence) {
  const now = Date.now();
  return {
    id: s.id,
    rule: s.ruleName,
    selector: s.selector ?? null,
    comment: s.comment,
    startsAt: s.startsAt.toISOString(),
    endsAt: s.endsAt.toISOString(),
    active: s.startsAt.getTime() <= now && s.endsAt.getTime() > now,
    createdBy: s.createdBy,
    createdAt: s.createdAt.toISOString(),
  };
}

/** Silences: hold back the notifications of the alerts they name, for a time. */
export const silencesPlugin: FastifyPluginAsyncTypebox<SilencesPluginOptions> = async (
  app,
  { silences, evaluator },
) => {
  app.get(
    '/v1/silences',
    {
      schema: {
        tags: ['alerts'],
        summary: 'Silences not yet ended (all of them with ended=include)',
        querystring: Type.Object(
          { ended: Type.Optional(Type.Union([Type.Literal('exclude'), Type.Literal('include')])) },
          { additionalProperties: false },
        ),
        response: { 200: Type.Object({ items: Type.Array(SilenceSchema) }) },
      },
    },
    async (request) => ({
      items: (await silences.list({ includeEnded: request.query.ended === 'include' })).map(view),
    }),
  );

  app.post(
    '/v1/silences',
    {
      schema: {
        tags: ['alerts'],
        summary: 'Silence the alerts of a rule, of some routers, or both, for a time window',
        body: Type.Object(
          {
            rule: Type.Optional(Type.String({ pattern: RULE_NAME_PATTERN, description: "A rule's name" })),
            selector: Type.Optional(SelectorSchema),
            comment: Printable(1000),
            startsAt: Type.Optional(Timestamp),
            endsAt: Timestamp,
          },
          { additionalProperties: false },
        ),
        response: { 201: SilenceSchema, 400: errorBodySchema },
      },
    },
    async (request, reply) => {
      const { startsAt, endsAt, ...rest } = request.body;
      try {
        const silence = await silences.create(
          { ...rest, startsAt: startsAt ? new Date(startsAt) : undefined, endsAt: new Date(endsAt) },
          auditContext(request),
        );
        evaluator.requestSoon();
        return reply.code(201).send(view(silence));
      } catch (err) {
        if (err instanceof SilenceRefused)
          throw new ApiError(400, 'invalid_request', err.message, [
            { path: `/${err.field}`, in: 'body', message: err.message },
          ]);
        throw selectorError(err) ?? err;
      }
    },
  );

  app.delete(
    '/v1/silences/:id',
    {
      schema: {
        tags: ['alerts'],
        summary: 'End a silence now',
        params: Type.Object({ id: Type.String({ maxLength: 64 }) }),
        response: { 204: Type.Null(), 404: errorBodySchema },
      },
    },
    async (request, reply) => {
      if (!(await silences.expire(request.params.id, auditContext(request))))
        throw new ApiError(404, 'not_found', `no silence ${request.params.id} is running or waiting`);
      evaluator.requestSoon();
      return reply.code(204).send(null);
    },
  );
};
