import type { FastifyPluginAsync } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import type { PrismaClient } from '../../prisma/generated/client/client.js';
import type { TaskQueue } from '../cluster/task-queue.js';

/** A dependency that does not answer within this long counts as down. */
const CHECK_TIMEOUT_MS = 1_000;

const Check = Type.Object({
  ok: Type.Boolean(),
  latencyMs: Type.Integer({ minimum: 0 }),
  error: Type.Optional(Type.String({ description: 'Why the check failed; never a credential' })),
});
const Health = Type.Object({
  ok: Type.Boolean({ description: 'Liveness: true whenever the process answers' }),
  status: Type.Union([Type.Literal('ok'), Type.Literal('degraded')], {
    description: '`degraded` while the database or Redis does not answer; streams stay open and work is retried',
  }),
  checks: Type.Object({ database: Check, tasks: Check }),
});
type Health = Static<typeof Health>;

async function check(probe: () => Promise<unknown>): Promise<Static<typeof Check>> {
  const started = Date.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      probe(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
      }),
    ]);
    return { ok: true, latencyMs: Date.now() - started };
  } catch (err) {
    // The first line only: driver errors can carry connection strings further down.
    const error = String((err as Error).message ?? err)
      .split('\n')[0]!
      .replace(/\/\/[^@\s]*@/g, '//');
    return { ok: false, latencyMs: Date.now() - started, error };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * /healthz is liveness (200 while the process answers, `degraded` when a dependency is away,
 * so a supervisor does not restart a controller that is only waiting for its database);
 * /readyz is readiness for load balancers: 503 until the database and the job queue answer.
 */
export const healthPlugin: FastifyPluginAsync<{ db: PrismaClient; tasks: TaskQueue }> = async (app, { db, tasks }) => {
  const health = async (): Promise<Health> => {
    const [database, queue] = await Promise.all([check(() => db.$queryRaw`SELECT 1`), check(() => tasks.depth())]);
    const ok = database.ok && queue.ok;
    return { ok: true, status: ok ? 'ok' : 'degraded', checks: { database, tasks: queue } };
  };
  app.get(
    '/healthz',
    {
      config: { public: true },
      schema: {
        tags: ['health'],
        summary: 'Liveness, with the state of the database and the job queue',
        security: [],
        response: { 200: Health },
      },
    },
    health,
  );
  app.get(
    '/readyz',
    {
      config: { public: true },
      schema: {
        tags: ['health'],
        summary: 'Readiness for load balancers: 503 while the database or the job queue does not answer',
        security: [],
        response: { 200: Health, 503: Health },
      },
    },
    async (_request, reply) => {
      const result = await health();
      return reply.code(result.status === 'ok' ? 200 : 503).send(result);
    },
  );
};
