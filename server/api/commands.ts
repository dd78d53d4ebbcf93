import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { Prisma, PrismaClient } from '../../prisma/generated/client/client.js';
import { grants } from '../auth/api-tokens.js';
import { COMMAND_KINDS, JOB_STATES, scopeFor, TARGET_STATES, type CommandKind } from '../commands/command-kinds.js';
import {
  COMMAND_DEFAULTS,
  CommandConflict,
  CommandNotFound,
  CommandRefused,
  type CommandJobs,
} from '../commands/command-jobs.js';
import { CommandProgressFeed } from '../commands/command-progress.js';
import { commandJobView, targetView, type CommandJobView } from '../commands/command-view.js';
import { InvalidSelector, SelectorSchema } from '../fleet/selector.js';
import { decodeCursor, encodeCursor, InvalidCursor } from '../storage/keyset-cursor.js';
import { ApiError, errorBodySchema } from './errors.js';
import { auditContext } from './request-context.js';
import { IdParam, Nullable, Page, PageLimit, StringEnum, Timestamp } from './shared-schemas.js';
import { SSE_HEADERS, sseErrorEvent, streamResponse } from './streamed-response.js';

const Kind = StringEnum(COMMAND_KINDS, { description: 'reboot and detach need the admin scope; the others write' });
const JobState = StringEnum(JOB_STATES);
const TargetState = StringEnum(TARGET_STATES);
const Counts = Type.Object(Object.fromEntries(TARGET_STATES.map((s) => [s, Type.Integer()])));

const CommandJobSchema = Type.Object({
  id: Type.String(),
  kind: Kind,
  selector: Type.Any({ description: 'The selector as given; { ids: [id] } for a command on one router' }),
  state: JobState,
  timeoutSeconds: Type.Integer(),
  maxInFlight: Type.Integer(),
  deadline: Timestamp,
  total: Type.Integer(),
  finished: Type.Integer({ description: 'Routers with an outcome (offline ones count once the job has ended)' }),
  counts: Counts,
  createdBy: Type.String(),
  createdAt: Timestamp,
  finishedAt: Nullable(Timestamp),
  cancelledBy: Nullable(Type.String()),
});

const SectionSchema = Type.Object({
  name: Type.String(),
  command: Type.String(),
  text: Type.String(),
  truncated: Type.Boolean(),
  error: Type.String(),
});

const TargetSchema = Type.Object({
  routerId: Type.String(),
  name: Type.String(),
  state: TargetState,
  reason: Nullable(Type.String({ description: 'Why it was refused, failed, timed out, is offline or was cancelled' })),
  output: Nullable(Type.String({ description: "The agent's account of what it did, at most 64 KiB" })),
  sections: Type.Optional(
    Nullable(
      Type.Array(SectionSchema, { description: 'The diagnostic bundle (with ?sections=true), at most 256 KiB' }),
    ),
  ),
  sentAt: Nullable(Timestamp),
  finishedAt: Nullable(Timestamp),
  updatedAt: Timestamp,
});

const jobOptions = {
  timeoutSeconds: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 3600,
      default: COMMAND_DEFAULTS.timeoutSeconds,
      description: 'A router with the command that has not answered after this long is timed_out',
    }),
  ),
  deadlineSeconds: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 7 * 86_400,
      default: COMMAND_DEFAULTS.deadlineSeconds,
      description: 'An offline router that connects within this many seconds still gets the command',
    }),
  ),
};

const TERMINAL = new Set(['completed', 'cancelled']);

export interface CommandsPluginOptions {
  commands: CommandJobs;
  db: PrismaClient;
  /** The longest an event stream may stay open (server/config.ts). */
  streamMaxSeconds: number;
}

/** Command jobs: one router or a selection, live progress, cancel. */
export const commandsPlugin: FastifyPluginAsyncTypebox<CommandsPluginOptions> = async (
  app,
  { commands, db, streamMaxSeconds },
) => {
  /** The write scope gets a route in; reboot and detach need admin on top. */
  const mayRun = (request: FastifyRequest, kind: CommandKind) => {
    const needed = scopeFor(kind);
    if (!grants(request.actor.scopes, needed))
      throw new ApiError(
        403,
        'forbidden',
        `a ${kind} command needs the "${needed}" scope; the token has ${request.actor.scopes.join(', ') || 'none'}`,
      );
  };
  const mustView = async (id: string): Promise<CommandJobView> => {
    const view = await commandJobView(db, id);
    if (!view) throw new ApiError(404, 'not_found', `no command job ${id}`);
    return view;
  };
  const refusal = (err: unknown) => {
    if (err instanceof InvalidSelector)
      return new ApiError(400, 'invalid_request', `invalid selector: ${err.message}`, [
        { path: '/selector', in: 'body', message: err.message },
      ]);
    if (err instanceof CommandRefused)
      return new ApiError(400, 'command_refused', err.message, [
        { path: '/selector', in: 'body', message: err.message },
      ]);
    if (err instanceof CommandConflict) return new ApiError(409, 'conflict', err.message);
    if (err instanceof CommandNotFound) return new ApiError(404, 'not_found', err.message);
    return err;
  };

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
        body: Type.Object({ kind: Kind, ...jobOptions }, { additionalProperties: false }),
        response: {
          201: CommandJobSchema,
          400: errorBodySchema,
          403: errorBodySchema,
          404: errorBodySchema,
          409: errorBodySchema,
        },
      },
    },
    async (request, reply) => {
      const { kind, ...options } = request.body;
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
            kind: Kind,
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
        response: { 201: CommandJobSchema, 400: errorBodySchema, 403: errorBodySchema },
      },
    },
    async (request, reply) => {
      mayRun(request, request.body.kind);
      try {
        const job = await commands.create(request.body, auditContext(request));
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
        summary: 'Command jobs, newest first, with keyset pagination',
        querystring: Type.Object(
          {
            limit: PageLimit(200, 20),
            cursor: Type.Optional(Type.String({ maxLength: 512, description: 'nextCursor of the previous page' })),
            state: Type.Optional(JobState),
            kind: Type.Optional(Kind),
          },
          { additionalProperties: false },
        ),
        response: { 200: Page(CommandJobSchema), 400: errorBodySchema },
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
      const where: Prisma.CommandJobWhereInput = {
        ...(state ? { state } : {}),
        ...(kind ? { kind } : {}),
        ...(after
          ? {
              OR: [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, id: { lt: after.id } }],
            }
          : {}),
      };
      const rows = await db.commandJob.findMany({
        where,
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
        take: limit + 1,
        select: { id: true, createdAt: true },
      });
      const page = rows.slice(0, limit);
      const items: CommandJobView[] = [];
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
        summary: 'A command job and its counts per router state',
        params: IdParam,
        response: { 200: CommandJobSchema, 404: errorBodySchema },
      },
    },
    async (request) => mustView(request.params.id),
  );

  app.get(
    '/v1/commands/:id/targets',
    {
      schema: {
        tags: ['commands'],
        summary: "Per-router states of a command job, with each agent's output",
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
          jobId: request.params.id,
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
        summary: 'Cancel a running command job: routers not sent the command yet are cancelled',
        description: 'Routers that already have the command may still answer; their answers are recorded.',
        params: IdParam,
        response: { 200: CommandJobSchema, 404: errorBodySchema, 409: errorBodySchema },
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
          '`progress` (the job with its counts); ends when the job ends',
        description:
          'The first events describe every router not queued; then changes as they happen. Ends with `event: end` ' +
          'when the job ends, or with `event: error` (data in the error shape) when the controller fails midway ' +
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
            // The job ended: every router's last state goes out before the final counts.
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
