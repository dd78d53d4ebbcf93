import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { configFromEnv, ConfigError } from '../../../server/config.js';
import { BullMqTaskQueue } from '../../../server/cluster/bullmq-task-queue.js';
import { RedisFleetBus } from '../../../server/cluster/redis-fleet-bus.js';
import { eventually } from '../../support/controller.js';

const REDIS_URL = process.env.WRTFLEET_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const log = pino({ level: 'silent' });

/** Two installations on one Redis (real Redis: pub/sub ignores the DB number, so only names keep them apart). */
describe('the Redis prefix of an installation', () => {
  const closers: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const close of closers.reverse()) await close();
  });
  const [one, other] = [`wf-test-${randomUUID().slice(0, 8)}`, `wf-test-${randomUUID().slice(0, 8)}`];

  it('keeps the fleet bus of two installations apart, and joins the replicas of one', async () => {
    const buses = [one, one, other].map((prefix) => new RedisFleetBus(REDIS_URL, log, prefix));
    for (const bus of buses) closers.push(() => bus.close());
    await Promise.all(buses.map((b) => b.start()));
    const heard: string[][] = [[], [], []];
    buses.forEach((bus, i) => bus.onDesired((ids) => heard[i]!.push(...ids)));

    await buses[0]!.publishDesired(['router-a']);
    await buses[2]!.publishDesired(['router-z']);
    await eventually(async () => heard[1]!.length === 1 && heard[2]!.length === 1, 5_000, 'both messages heard');
    // Give a stray cross-installation message time to arrive before asserting it did not.
    await new Promise((r) => setTimeout(r, 300));
    expect(heard).toEqual([['router-a'], ['router-a'], ['router-z']]);
  });

  it('puts every BullMQ key under the prefix', async () => {
    const runner = new BullMqTaskQueue(REDIS_URL, log, { prefix: one });
    closers.push(() => runner.close());
    await runner.queue.add('probe', {});
    const redis = new Redis(REDIS_URL);
    closers.push(async () => {
      const keys = await redis.keys(`${one}:*`);
      if (keys.length) await redis.del(...keys);
      redis.disconnect();
    });
    const keys = await redis.keys(`*${(runner.queue as { name: string }).name}*`);
    expect(keys.length).toBeGreaterThan(0);
    const ours = keys.filter((k) => k.startsWith(`${one}:`));
    expect(ours.length).toBeGreaterThan(0);
    expect(keys.filter((k) => k.startsWith(`${other}:`))).toEqual([]);
  });

  it('is read from WRTFLEET_REDIS_PREFIX, defaults to wrtfleet and refuses what is not a name', () => {
    expect(configFromEnv({}).redisPrefix).toBe('wrtfleet');
    expect(configFromEnv({ WRTFLEET_REDIS_PREFIX: 'site-2' }).redisPrefix).toBe('site-2');
    expect(() => configFromEnv({ WRTFLEET_REDIS_PREFIX: 'a b' })).toThrow(ConfigError);
    expect(() => configFromEnv({ WRTFLEET_REDIS_PREFIX: 'x:y' })).toThrow(/WRTFLEET_REDIS_PREFIX/);
  });
});
