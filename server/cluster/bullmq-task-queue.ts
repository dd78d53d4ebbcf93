import { Queue, Worker, type ConnectionOptions } from 'bullmq';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { TaskHandler, TaskQueue } from './task-queue.js';
import { RedisAvailability } from './redis-availability.js';

export const QUEUE_NAME = 'wrtfleet';

function connectionFromUrl(redisUrl: string) {
  const url = new URL(redisUrl);
  return {
    host: url.hostname,
    port: Number(url.port || 6379),
    username: url.username || undefined,
    password: url.password ? decodeURIComponent(url.password) : undefined,
    db: url.pathname.length > 1 ? Number(url.pathname.slice(1)) : undefined,
    // BullMQ workers block on Redis; they must never give up on a slow reply.
    maxRetriesPerRequest: null,
  };
}

export interface BullMqTaskQueueOptions {
  /** The installation's key prefix (WRTFLEET_REDIS_PREFIX; default wrtfleet). */
  prefix?: string;
  /** false: queue only; the tasks run on the replicas that work (WRTFLEET_RUN_TASKS; default true). */
  works?: boolean;
}

/** Tasks on Redis (BullMQ jobs): any replica may enqueue; each that `works` (WRTFLEET_RUN_TASKS) runs a worker. */
export class BullMqTaskQueue implements TaskQueue {
  readonly kind = 'bullmq' as const;
  readonly queue: Queue;
  private worker: Worker | undefined;
  private readonly handlers = new Map<string, TaskHandler>();
  private readonly connection: ConnectionOptions;
  /** The queue's own connection, watched: the log says when Redis goes and returns. */
  private readonly client: Redis;
  private readonly redis: RedisAvailability;
  /** What `every` scheduled, kept to schedule again when Redis returns. */
  private readonly schedules = new Map<string, number>();

  private readonly prefix: string;
  private readonly works: boolean;

  constructor(
    redisUrl: string,
    private readonly log: Logger,
    options: BullMqTaskQueueOptions = {},
  ) {
    this.prefix = options.prefix ?? 'wrtfleet';
    this.works = options.works ?? true;
    this.connection = connectionFromUrl(redisUrl);
    this.client = new Redis(connectionFromUrl(redisUrl));
    this.redis = new RedisAvailability(this.client, log, 'background jobs (rollout steps, sweeps) wait');
    // A Redis restarted without persistence comes back without the schedules: the sweeps that
    // advance rollouts whose jobs were lost must be scheduled again.
    this.redis.onBack(async () => {
      for (const [name, everyMs] of this.schedules) await this.schedule(name, everyMs);
    });
    this.queue = new Queue(QUEUE_NAME, { connection: this.client, prefix: this.prefix });
    this.queue.on('error', (err) => this.connectionError(err));
  }

  register(name: string, handler: TaskHandler): void {
    this.handlers.set(name, handler);
  }

  async enqueue(
    name: string,
    data: Record<string, unknown>,
    options: { coalesceKey?: string; delayMs?: number } = {},
  ): Promise<void> {
    await this.queue.add(name, data, {
      delay: options.delayMs,
      removeOnComplete: true,
      removeOnFail: 1000,
      attempts: 3,
      backoff: { type: 'exponential', delay: 500 },
      // Deduplication keeps one waiting job per key; once it starts, a new one may be queued,
      // so a change that arrives mid-run is never lost.
      ...(options.coalesceKey ? { deduplication: { id: `${name}-${options.coalesceKey}` } } : {}),
    });
  }

  async every(name: string, everyMs: number): Promise<void> {
    this.schedules.set(name, everyMs);
    await this.schedule(name, everyMs);
  }

  private async schedule(name: string, everyMs: number): Promise<void> {
    await this.queue.upsertJobScheduler(
      `every-${name}`,
      { every: everyMs },
      { name, data: {}, opts: { removeOnComplete: true, removeOnFail: 100 } },
    );
  }

  async depth(): Promise<number> {
    const counts = await this.queue.getJobCounts('waiting', 'delayed', 'prioritized');
    return Object.values(counts).reduce((a, b) => a + b, 0);
  }

  async start(): Promise<void> {
    if (!this.works) {
      await this.queue.waitUntilReady();
      return;
    }
    this.worker = new Worker(
      QUEUE_NAME,
      async (job) => {
        const handler = this.handlers.get(job.name);
        if (!handler) throw new Error(`no handler for job ${job.name}`);
        // BullMQ holds a deduplication key until the job finishes; released as it starts, a
        // change that arrives while it runs queues the next run instead of being absorbed by this one.
        if (job.opts.deduplication) await job.removeDeduplicationKey();
        await handler(job.data as Record<string, unknown>);
      },
      { connection: this.connection, prefix: this.prefix, concurrency: 8 },
    );
    this.worker.on('failed', (job, err) => this.log.error({ err, job: job?.name }, 'job failed'));
    this.worker.on('error', (err) => this.connectionError(err));
    await this.worker.waitUntilReady();
    await this.queue.waitUntilReady();
  }

  /** While Redis is away every retry fails the same way: the outage is logged once, not each of them. */
  private connectionError(err: Error): void {
    if (this.redis.isAway) this.log.debug({ err }, 'job queue error while Redis is away');
    else this.log.warn({ err }, 'job queue error');
  }

  async close(): Promise<void> {
    await this.worker?.close();
    await this.queue.close();
    // Ours, not BullMQ's: a queue given a connection leaves closing it to its owner.
    this.client.disconnect();
  }
}
