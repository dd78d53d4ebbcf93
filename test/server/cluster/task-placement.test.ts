import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, configFromEnv } from '../../../server/config.js';
import { BullMqTaskQueue } from '../../../server/cluster/bullmq-task-queue.js';
import { eventually } from '../../support/controller.js';

const REDIS_URL = process.env.WRTFLEET_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const log = pino({ level: 'silent' });

/** Replicas that queue tasks but leave running them to others (real Redis). */
describe('a replica that runs no tasks (WRTFLEET_RUN_TASKS=false)', () => {
  const closers: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const close of closers.reverse()) await close();
  });

  it('needs Redis, where other replicas can run its jobs, and says so', () => {
    expect(configFromEnv({}).runTasks).toBe(true);
    expect(() => configFromEnv({ WRTFLEET_RUN_JOBS: 'false' })).toThrow(ConfigError);
    expect(() => configFromEnv({ WRTFLEET_RUN_JOBS: 'false' })).toThrow(/REDIS_URL/);
    expect(() => configFromEnv({ WRTFLEET_RUN_JOBS: 'sometimes', REDIS_URL })).toThrow(/WRTFLEET_RUN_JOBS/);
    expect(configFromEnv({ WRTFLEET_RUN_JOBS: 'false', REDIS_URL }).runTasks).toBe(false);
    // Today's name; WRTFLEET_RUN_JOBS above is 0.1's, still read until 0.3.
    expect(configFromEnv({ WRTFLEET_RUN_TASKS: 'false', REDIS_URL }).runTasks).toBe(false);
    expect(() => configFromEnv({ WRTFLEET_RUN_TASKS: 'false' })).toThrow(/WRTFLEET_RUN_TASKS=false needs REDIS_URL/);
  });

  it('queues what it is asked to, and a replica that works runs it', async () => {
    const prefix = `wf-test-${randomUUID().slice(0, 8)}`;
    const ran: string[] = [];
    const queueOnly = new BullMqTaskQueue(REDIS_URL, log, { prefix, works: false });
    closers.push(() => queueOnly.close());
    queueOnly.register('job.probe', async (data) => void ran.push(`queue-only:${String(data.n)}`));
    await queueOnly.start();
    await queueOnly.enqueue('job.probe', { n: 1 });
    await queueOnly.enqueue('job.probe', { n: 2 });
    // Long enough for a worker of its own to have taken both.
    await new Promise((r) => setTimeout(r, 1_000));
    expect(ran).toEqual([]);
    expect(await queueOnly.depth()).toBe(2);

    const worker = new BullMqTaskQueue(REDIS_URL, log, { prefix });
    closers.push(() => worker.close());
    worker.register('job.probe', async (data) => void ran.push(`worker:${String(data.n)}`));
    await worker.start();
    await eventually(async () => ran.length === 2, 10_000, 'both jobs run by the working replica');
    expect(ran.sort()).toEqual(['worker:1', 'worker:2']);
    expect(await queueOnly.depth()).toBe(0);

    const redis = new Redis(REDIS_URL);
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
  });
});
