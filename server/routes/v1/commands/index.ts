import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Prisma, PrismaClient } from '../../../../prisma/generated/client/client.js';
import { COMMAND_DEFAULTS, type CommandService } from '../../../commands/command-service.js';
import { canonicalKind } from '../../../commands/command-kinds.js';
import { CommandProgressFeed } from '../../../commands/command-progress.js';
import { targetView, type CommandView } from '../../../commands/command-view.js';
import { SelectorSchema } from '../../../fleet/selector.js';
import { decodeCursor, encodeCursor, InvalidCursor } from '../../../storage/keyset-cursor.js';
import { ApiError, errorBodySchema } from '../../../http/api-error.js';
import { auditContext } from '../../../http/request-context.js';
import { IdParam, Page, PageLimit } from '../../../http/shared-schemas.js';
import { SSE_HEADERS, sseErrorEvent, streamResponse } from '../../../http/streamed-response.js';
import {
  CommandSchema,
  commandRouteHelpers,
  JobState,
  jobOptions,
  KindInput,
  TargetSchema,
  TargetState,
} from './command-schemas.js';

const TERMINAL = new Set(['completed', 'cancelled']);

export interface CommandsPluginOptions {
  commands: CommandService;
  db: PrismaClient;
  /** The longest an event stream may stay open (server/config.ts). */
  streamMaxSeconds: number;
}

/** Commands: one router or a selection, live progress, cancel. */
export const commandsPlugin: FastifyPluginAsyncTypebox<CommandsPluginOptions> = async (
  app,
  { commands, db, streamMaxSeconds },
) => {
  const { mayRun, mustView, refusal } = commandRouteHelpers(db);
  app.post(
    '/v1/commands',
    {
      schema: {
        tags: ['commands'],
        summary: 'Send a command to the routers a selector matches, at most maxInFlight at once',
        description:
          'Every matched router gets a target: queued, or refused with the reason when the controller can tell ' +
          'up front. Offline routers are reported as offline and get the command if they connect before the deadline.',
        body: Type.Object(
          {
            kind: KindInput,
            selector: SelectorSchema,
            ...jobOptions,
            maxInFlight: Type.Optional(
              Type.Integer({
                minimum: 1,
                maximum: 10_000,
                default: COMMAND_DEFAULTS.maxInFlight,
                description: 'Routers that have the command and have not answered yet, at most',
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: { 201: CommandSchema, 400: errorBodySchema, 403: errorBodySchema },
      },
    },
    async (request, reply) => {
      const body = { ...request.body, kind: canonicalKind(request.body.kind) };
      mayRun(request, body.kind);
      try {
        const job = await commands.create(body, auditContext(request));
        return reply.status(201).send(await mustView(job.id));
      } catch (err) {
        throw refusal(err);
      }
    },
  );

  app.get(
    '/v1/commands',
    {
      schema: {
        tags: ['commands'],
        summary: 'Commands, newest first, with keyset pagination',
        querystring: Type.Object(
          {
            limit: PageLimit(200, 20),
            cursor: Type.Optional(Type.String({ maxLength: 512, description: 'nextCursor of the previous page' })),
            state: Type.Optional(JobState),
            kind: Type.Optional(KindInput),
          },
          { additionalProperties: false },
        ),
        response: { 200: Page(CommandSchema), 400: errorBodySchema },
      },
    },
    async (request) => {
      const { limit, cursor, state, kind } = request.query;
      let after;
      try {
        after = cursor ? decodeCursor(cursor) : undefined;
      } catch (err) {
        if (!(err instanceof InvalidCursor)) throw err;
        throw new ApiError(400, 'invalid_request', `invalid querystring parameter: cursor ${err.message}`, [
          { path: '/cursor', in: 'querystring', message: err.message },
        ]);
      }
      const where: Prisma.CommandWhereInput = {
        ...(state ? { state } : {}),
        ...(kind ? { kind: canonicalKind(kind) } : {}),
        ...(after
          ? {
              OR: [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, id: { lt: after.id } }],
            }
          : {}),
      };
      const rows = await db.command.findMany({
        where,
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
        take: limit + 1,
        select: { id: true, createdAt: true },
      });
      const page = rows.slice(0, limit);
      const items: CommandView[] = [];
      for (const r of page) items.push(await mustView(r.id));
      const last = page.at(-1);
      return { items, nextCursor: rows.length > limit && last ? encodeCursor(last.createdAt, last.id) : null };
    },
  );

  app.get(
    '/v1/commands/:id',
    {
      schema: {
        tags: ['commands'],
        summary: 'A command and its counts per router state',
        params: IdParam,
        response: { 200: CommandSchema, 404: errorBodySchema },
      },
    },
    async (request) => mustView(request.params.id),
  );

  app.get(
    '/v1/commands/:id/targets',
    {
      schema: {
        tags: ['commands'],
        summary: "Per-router states of a command, with each agent's output",
        params: IdParam,
        querystring: Type.Object(
          {
            state: Type.Optional(TargetState),
            limit: PageLimit(500, 100),
            cursor: Type.Optional(Type.String({ maxLength: 64, description: 'nextCursor of the previous page' })),
            sections: Type.Optional(
              Type.Boolean({ default: false, description: 'Include diagnostic bundles (up to 256 KiB each)' }),
            ),
          },
          { additionalProperties: false },
        ),
        response: { 200: Page(TargetSchema), 404: errorBodySchema },
      },
    },
    async (request) => {
      const { state, limit, cursor, sections = false } = request.query;
      await mustView(request.params.id);
      const rows = await db.commandTarget.findMany({
        where: {
          commandId: request.params.id,
          ...(state ? { state } : {}),
          ...(cursor ? { routerId: { gt: cursor } } : {}),
        },
        orderBy: { routerId: 'asc' },
        take: limit + 1,
        include: { router: { select: { name: true } } },
        // A bundle is large: read only when asked for.
        omit: sections ? undefined : { sections: true },
      });
      const items = rows.slice(0, limit).map((t) => targetView(t, sections));
      return { items, nextCursor: rows.length > limit ? items.at(-1)!.routerId : null };
    },
  );

  app.post(
    '/v1/commands/:id/cancel',
    {
      schema: {
        tags: ['commands'],
        summary: 'Cancel a running command: routers not sent the command yet are cancelled',
        description: 'Routers that already have the command may still answer; their answers are recorded.',
        params: IdParam,
        response: { 200: CommandSchema, 404: errorBodySchema, 409: errorBodySchema },
      },
    },
    async (request) => {
      try {
        await commands.cancel(request.params.id, auditContext(request));
      } catch (err) {
        throw refusal(err);
      }
      return mustView(request.params.id);
    },
  );

  app.get(
    '/v1/commands/:id/events',
    {
      schema: {
        tags: ['commands'],
        summary:
          'Live progress as server-sent events: `target` (a router whose state changed, with its output) and ' +
          '`progress` (the command with its counts); ends when the command ends',
        description:
          'The first events describe every router not queued; then changes as they happen. Ends with `event: end` ' +
          'when the command ends, or with `event: error` (data in the error shape) when the controller fails midway ' +
          'or the stream reaches its time limit; reconnect to continue watching.',
        params: IdParam,
        produces: ['text/event-stream'],
        response: { 404: errorBodySchema },
      },
    },
    async (request, reply) => {
      const id = request.params.id;
      await mustView(id);
      const feed = new CommandProgressFeed(db, id);
      await streamResponse(request, reply, {
        headers: SSE_HEADERS,
        errorMarker: sseErrorEvent,
        maxSeconds: streamMaxSeconds,
        async produce(out) {
          let idle = 0;
          let state = 'unknown';
          while (out.open) {
            const { view, events } = await feed.look();
            if (!view) break;
            state = view.state;
            // The command ended: every router's last state goes out before the final counts.
            if (TERMINAL.has(view.state)) events.unshift(...(await feed.reconcile()));
            for (const e of events) await out.write(`event: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`);
            if (TERMINAL.has(view.state)) break;
            if (events.length === 0 && ++idle % 30 === 0) await out.write(': keepalive\n\n');
            if (events.length) idle = 0;
            await out.pause(500);
          }
          if (out.open) await out.write(`event: end\ndata: ${JSON.stringify({ state })}\n\n`);
        },
      });
    },
  );
};
