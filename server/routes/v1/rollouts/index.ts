import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { PrismaClient } from '../../../../prisma/generated/client/client.js';
import { SelectorSchema } from '../../../fleet/selector.js';
import { PROFILE_NAME_PATTERN } from '../../../profiles/profile-store.js';
import {
  RolloutNotFound,
  RolloutRefused,
  RolloutStateConflict,
  type RolloutEngine,
  type RolloutView,
} from '../../../rollouts/rollout-engine.js';
import { ROLLOUT_STATES, StrategyInputSchema, TARGET_STATES } from '../../../rollouts/rollout-strategy.js';
import { FIRMWARE_STEPS } from '../../../firmware/firmware-options.js';
import { ApiError, errorBodySchema } from '../../../http/api-error.js';
import { auditContext } from '../../../http/request-context.js';
import { pollAsEvents } from '../../../http/streamed-response.js';
import {
  IdParam,
  Nullable,
  Page,
  PageLimit,
  RevisionNumber,
  StringEnum,
  Timestamp,
} from '../../../http/shared-schemas.js';
import { RolloutViewSchema, TERMINAL } from './rollout-schemas.js';
import { FirmwareRolloutSchema, firmwareRequestOptions } from '../firmware/firmware-schemas.js';
import { selectorError } from '../selector-error.js';

export interface RolloutsPluginOptions {
  rollouts: RolloutEngine;
  db: PrismaClient;
  /** The longest an event stream may stay open (server/config.ts). */
  streamMaxSeconds: number;
}

/** Rollouts (create, inspect, pause, resume, cancel, live progress) and fleet-wide plan previews. */
export const rolloutsPlugin: FastifyPluginAsyncTypebox<RolloutsPluginOptions> = async (
  app,
  { rollouts, db, streamMaxSeconds },
) => {
  app.post(
    '/v1/rollouts',
    {
      schema: {
        tags: ['rollouts'],
        summary:
          'Start (or schedule) a rollout of a profile revision, or of a firmware image, to the routers a selector matches',
        description:
          'Give `profile` (and optionally `revision`) or `firmware`, not both. A firmware rollout leaves out the ' +
          'routers the image does not fit (skipped in batch -1, the reason named) and upgrades the others batch by ' +
          "batch: a router is `upgraded` only when it comes back with a new boot id on the image's release, " +
          '`failed` when it comes back on the old one or a step fails, `unconfirmed` when it does not come back.',
        body: Type.Object(
          {
            profile: Type.Optional(Type.String({ pattern: PROFILE_NAME_PATTERN })),
            revision: Type.Optional(RevisionNumber),
            firmware: Type.Optional(FirmwareRolloutSchema),
            selector: SelectorSchema,
            strategy: Type.Optional(StrategyInputSchema),
            startAt: Type.Optional(Timestamp),
            skipRefused: Type.Optional(
              Type.Boolean({
                default: false,
                description:
                  'Leave out the routers the plan refuses, judged as POST /v1/plan-preview judges them (its ' +
                  '`summary.refused`): they become targets `skipped` in batch -1 with the refusal as their error, ' +
                  'are never sent the revision and keep their desired state; batches are made of the others. ' +
                  'Refused with 400 when the plan refuses every matched router',
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: { 201: RolloutViewSchema, 400: errorBodySchema, 409: errorBodySchema },
      },
    },
    async (request, reply) => {
      const { startAt, firmware, profile, ...rest } = request.body;
      if ((profile === undefined) === (firmware === undefined))
        throw new ApiError(400, 'invalid_request', 'give either profile or firmware', [
          { path: profile === undefined ? '/profile' : '/firmware', message: 'exactly one of profile and firmware' },
        ]);
      if (firmware && (rest.revision !== undefined || rest.skipRefused === true))
        throw new ApiError(400, 'invalid_request', 'a firmware rollout takes no revision or skipRefused', [
          { path: rest.revision !== undefined ? '/revision' : '/skipRefused', message: 'only with profile' },
        ]);
      try {
        const at = startAt ? new Date(startAt) : undefined;
        const rollout = firmware
          ? await rollouts.createFirmware(
              { image: firmware.image, options: firmwareRequestOptions(firmware), ...rest, startAt: at },
              auditContext(request),
            )
          : await rollouts.create({ ...rest, profile: profile!, startAt: at }, auditContext(request));
        return reply.status(201).send((await rollouts.view(rollout.id))!);
      } catch (err) {
        const e = selectorError(err);
        if (e) throw e;
        if (err instanceof RolloutRefused) throw new ApiError(400, 'rollout_refused', err.message);
        throw err;
      }
    },
  );

  app.get(
    '/v1/rollouts',
    {
      schema: {
        tags: ['rollouts'],
        summary: 'Rollouts, newest first',
        querystring: Type.Object(
          {
            limit: PageLimit(200, 20),
            state: Type.Optional(StringEnum(ROLLOUT_STATES, { title: 'RolloutState' })),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Object({ items: Type.Array(RolloutViewSchema) }) },
      },
    },
    async (request) => {
      const rows = await db.rollout.findMany({
        where: request.query.state ? { state: request.query.state } : {},
        orderBy: { createdAt: 'desc' },
        take: request.query.limit,
        select: { id: true },
      });
      const items: RolloutView[] = [];
      for (const r of rows) items.push((await rollouts.view(r.id))!);
      return { items };
    },
  );

  app.get(
    '/v1/rollouts/:id',
    {
      schema: {
        tags: ['rollouts'],
        summary: 'A rollout and its progress',
        params: IdParam,
        response: { 200: RolloutViewSchema, 404: errorBodySchema },
      },
    },
    async (request) => {
      const view = await rollouts.view(request.params.id);
      if (!view) throw new ApiError(404, 'not_found', `no rollout ${request.params.id}`);
      return view;
    },
  );

  app.get(
    '/v1/rollouts/:id/targets',
    {
      schema: {
        tags: ['rollouts'],
        summary: 'Per-router states of a rollout',
        params: IdParam,
        querystring: Type.Object(
          {
            state: Type.Optional(StringEnum(TARGET_STATES, { title: 'RolloutTargetState' })),
            limit: PageLimit(1000, 100),
            cursor: Type.Optional(Type.String({ maxLength: 64 })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Page(
            Type.Object({
              routerId: Type.String(),
              name: Type.String(),
              batch: Type.Integer(),
              state: StringEnum(TARGET_STATES, { title: 'RolloutTargetState' }),
              error: Nullable(Type.String()),
              sentAt: Nullable(Timestamp),
              redeliveredAt: Nullable(
                Type.String({
                  format: 'date-time',
                  description: 'When the desired state was sent again to this router for want of a result',
                }),
              ),
              firmwareStep: Nullable(
                StringEnum(FIRMWARE_STEPS, {
                  title: 'FirmwareStep',
                  description:
                    'Firmware rollouts: the step the router reported last (checking room, transferring, verifying ' +
                    'the SHA-256, testing with sysupgrade -T, flashing); null before its first report',
                }),
              ),
              stepDetail: Nullable(Type.String({ description: 'What the router said with its last step' })),
              stepAt: Nullable(Timestamp),
              bytesDone: Nullable(Type.Integer({ description: 'While transferring: bytes on the router so far' })),
              flashedAt: Nullable(Timestamp),
            }),
          ),
        },
      },
    },
    async (request) => {
      const { state, limit, cursor } = request.query;
      const rows = await db.rolloutTarget.findMany({
        where: {
          rolloutId: request.params.id,
          ...(state ? { state } : {}),
          ...(cursor ? { routerId: { gt: cursor } } : {}),
        },
        orderBy: { routerId: 'asc' },
        take: limit + 1,
        include: { router: { select: { name: true } } },
      });
      const items = rows.slice(0, limit).map((t) => ({
        routerId: t.routerId,
        name: t.router.name,
        batch: t.batch,
        state: t.state,
        error: t.error,
        sentAt: t.sentAt?.toISOString() ?? null,
        redeliveredAt: t.redeliveredAt?.toISOString() ?? null,
        firmwareStep: t.firmwareStep,
        stepDetail: t.stepDetail,
        stepAt: t.stepAt?.toISOString() ?? null,
        bytesDone: t.bytesDone === null ? null : Number(t.bytesDone),
        flashedAt: t.flashedAt?.toISOString() ?? null,
      }));
      return { items, nextCursor: rows.length > limit ? items[items.length - 1]!.routerId : null };
    },
  );

  const ACTIONS = {
    pause: 'Pause a rollout (running, scheduled or soaking)',
    resume:
      'Resume a paused rollout: the failures so far are accepted, and a batch a health gate paused on goes on without soaking again',
    cancel:
      'Cancel a rollout: unsent routers keep what they have, and routers it was sent to that did not apply it ' +
      '(waiting, failed, rolled back, offline) get back the desired revision and assignment they had before it, ' +
      'each audited as router.desired.restored',
    promote: 'Promote a rollout awaiting approval after its first batch: the next batch goes out',
  } as const;
  // `abort` is cancel's spelling of 0.1, accepted (and marked deprecated) until 0.3.
  const routes = [...(['pause', 'resume', 'cancel', 'promote'] as const), 'abort' as const];
  for (const path of routes) {
    const action = path === 'abort' ? 'cancel' : path;
    app.post(
      `/v1/rollouts/:id/${path}`,
      {
        schema: {
          tags: ['rollouts'],
          summary: path === 'abort' ? `Old spelling of /cancel, removed in 0.3. ${ACTIONS.cancel}` : ACTIONS[action],
          ...(path === 'abort' ? { deprecated: true } : {}),
          params: IdParam,
          response: { 200: RolloutViewSchema, 404: errorBodySchema, 409: errorBodySchema },
        },
      },
      async (request) => {
        try {
          return (await rollouts[action](request.params.id, auditContext(request)))!;
        } catch (err) {
          if (err instanceof RolloutNotFound) throw new ApiError(404, 'not_found', err.message);
          if (err instanceof RolloutStateConflict) throw new ApiError(409, 'conflict', err.message);
          throw err;
        }
      },
    );
  }

  app.get(
    '/v1/rollouts/:id/events',
    {
      schema: {
        tags: ['rollouts'],
        summary: 'Live progress as server-sent events (event: progress, data: the rollout); ends when the rollout ends',
        description:
          'Ends with `event: end` when the rollout ends, or with `event: error` (data in the error shape) when the ' +
          'controller fails midway or the stream reaches its time limit; reconnect to continue watching.',
        params: IdParam,
        produces: ['text/event-stream'],
        response: { 404: errorBodySchema },
      },
    },
    async (request, reply) => {
      const id = request.params.id;
      const first = await rollouts.view(id);
      if (!first) throw new ApiError(404, 'not_found', `no rollout ${id}`);
      await pollAsEvents<RolloutView>(request, reply, streamMaxSeconds, {
        first,
        read: () => rollouts.view(id),
        progress: (view) => view,
        ended: (view) => TERMINAL.has(view.state),
        end: (view) => ({ state: view?.state ?? 'unknown' }),
        intervalMs: 500,
      });
    },
  );
};
