import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { PrismaClient } from '../../../../prisma/generated/client/client.js';
import type { OnboardingService } from '../../../onboarding/onboarding-service.js';
import { ApiError, errorBodySchema } from '../../../http/api-error.js';
import { IdParam, Nullable } from '../../../http/shared-schemas.js';
import { pollAsEvents } from '../../../http/streamed-response.js';

const TERMINAL = new Set(['succeeded', 'failed', 'cancelled']);

const JobView = Type.Object({
  id: Type.String(),
  kind: Type.String(),
  state: Type.String(),
  step: Nullable(Type.String()),
  percent: Type.Integer(),
  message: Nullable(Type.String()),
  input: Type.Unknown(),
  result: Type.Unknown(),
  error: Nullable(Type.String()),
  cancelRequested: Type.Boolean(),
  createdBy: Type.String(),
  createdAt: Type.String(),
  finishedAt: Nullable(Type.String()),
});

type Row = {
  id: string;
  kind: string;
  state: string;
  step: string | null;
  percent: number;
  message: string | null;
  input: unknown;
  result: unknown;
  error: string | null;
  cancelRequested: boolean;
  createdBy: string;
  createdAt: Date;
  finishedAt: Date | null;
};

const view = (j: Row) => ({
  ...j,
  createdAt: j.createdAt.toISOString(),
  finishedAt: j.finishedAt?.toISOString() ?? null,
});

/** Jobs (onboarding today): state, live progress over server-sent events, cancel. */
export const jobsPlugin: FastifyPluginAsyncTypebox<{
  db: PrismaClient;
  onboarding: OnboardingService;
  /** The longest an event stream may stay open (server/config.ts). */
  streamMaxSeconds: number;
}> = async (app, { db, onboarding, streamMaxSeconds }) => {
  const find = async (id: string) => {
    const j = await db.job.findUnique({ where: { id } });
    if (!j) throw new ApiError(404, 'not_found', `no job ${id}`);
    return j as Row;
  };

  app.get(
    '/v1/jobs/:id',
    {
      schema: {
        tags: ['routers'],
        summary: 'A job: state, step, percent, message, result',
        params: IdParam,
        response: { 200: JobView, 404: errorBodySchema },
      },
    },
    async (request) => view(await find(request.params.id)),
  );

  app.post(
    '/v1/jobs/:id/cancel',
    {
      config: { scope: 'write' },
      schema: {
        tags: ['routers'],
        summary: 'Cancel a job: it stops between steps and rolls back what it did',
        params: IdParam,
        response: { 202: JobView, 404: errorBodySchema, 409: errorBodySchema },
      },
    },
    async (request, reply) => {
      const outcome = await onboarding.cancel(request.params.id, request.actor.id, request.id);
      if (outcome === null) throw new ApiError(404, 'not_found', `no job ${request.params.id}`);
      if (outcome === 'finished') throw new ApiError(409, 'conflict', `job ${request.params.id} has already finished`);
      return reply.status(202).send(view(await find(request.params.id)));
    },
  );

  app.get(
    '/v1/jobs/:id/events',
    {
      schema: {
        tags: ['routers'],
        summary:
          'Live progress as server-sent events (event: progress, data: {state, step, percent, message}); ends with the job',
        description:
          'Ends with `event: end` when the job ends, or with `event: error` (data in the error shape) when the ' +
          'controller fails midway or the stream reaches its time limit; reconnect to continue watching.',
        params: IdParam,
        produces: ['text/event-stream'],
        response: { 404: errorBodySchema },
      },
    },
    async (request, reply) => {
      const id = request.params.id;
      await pollAsEvents(request, reply, streamMaxSeconds, {
        first: await find(id),
        read: async () => (await db.job.findUnique({ where: { id } })) as Row | null,
        progress: (job) => ({ state: job.state, step: job.step, percent: job.percent, message: job.message }),
        ended: (job) => TERMINAL.has(job.state),
        end: (job) => ({
          state: job?.state ?? 'unknown',
          message: job?.message ?? null,
          error: job?.error ?? null,
          result: job?.result ?? null,
        }),
        intervalMs: 250,
      });
    },
  );
};
