import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { PrismaClient } from '../../../../prisma/generated/client/client.js';
import type { CommandService } from '../../../commands/command-service.js';
import { ApiError, errorBodySchema } from '../../../http/api-error.js';
import { auditContext } from '../../../http/request-context.js';
import { IdParam } from '../../../http/shared-schemas.js';
import { canonicalKind } from '../../../commands/command-kinds.js';
import { CommandSchema, commandRouteHelpers, jobOptions, KindInput } from '../commands/command-schemas.js';

export interface RouterCommandsOptions {
  commands: CommandService;
  db: PrismaClient;
}

/** POST /v1/routers/:id/commands: a command for one router (its progress is read under /v1/commands). */
export const routerCommandsPlugin: FastifyPluginAsyncTypebox<RouterCommandsOptions> = async (app, { commands, db }) => {
  const { mayRun, mustView, refusal } = commandRouteHelpers(db);

  app.post(
    '/v1/routers/:id/commands',
    {
      schema: {
        tags: ['commands'],
        summary: 'Send a command to one router now (or when it connects, before the deadline)',
        description:
          'Refused with 409 and the reason when the router cannot take it: decommissioned, nothing applied to ' +
          're-apply, no earlier applied revision to roll back to.',
        params: IdParam,
        body: Type.Object({ kind: KindInput, ...jobOptions }, { additionalProperties: false }),
        response: {
          201: CommandSchema,
          400: errorBodySchema,
          403: errorBodySchema,
          404: errorBodySchema,
          409: errorBodySchema,
        },
      },
    },
    async (request, reply) => {
      const { kind: given, ...options } = request.body;
      const kind = canonicalKind(given);
      mayRun(request, kind);
      const router = await db.router.findUnique({ where: { id: request.params.id }, select: { id: true } });
      if (!router) throw new ApiError(404, 'not_found', `no router with id ${request.params.id}`);
      try {
        const job = await commands.create(
          { kind, selector: { ids: [router.id] }, ...options, maxInFlight: 1 },
          auditContext(request),
          { single: true },
        );
        return reply.status(201).send(await mustView(job.id));
      } catch (err) {
        throw refusal(err);
      }
    },
  );
};
