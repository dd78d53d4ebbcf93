import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter } from '@bull-board/fastify';
import type { Queue } from 'bullmq';
import type { FastifyPluginAsync } from 'fastify';
import { grants } from '../auth/api-tokens.js';
import { ApiError } from '../http/api-error.js';

export const QUEUE_BOARD_PATH = '/admin/queues';

/**
 * Bull Board for the job queue (only when jobs run on Redis). It can retry and delete jobs,
 * so it needs an admin token, like every other change.
 */
export const queueBoardPlugin: FastifyPluginAsync<{ queue: Queue }> = async (app, { queue }) => {
  app.addHook('onRequest', async (request) => {
    if (!request.actor || !grants(request.actor.scopes, 'admin')) {
      throw new ApiError(403, 'forbidden', 'the queue board needs the "admin" scope');
    }
  });
  const adapter = new FastifyAdapter();
  adapter.setBasePath(QUEUE_BOARD_PATH);
  createBullBoard({ queues: [new BullMQAdapter(queue)], serverAdapter: adapter });
  await app.register(adapter.registerPlugin(), { prefix: QUEUE_BOARD_PATH });
};
