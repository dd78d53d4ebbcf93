/**
 * Background work, one interface for both deployments: in-process on the embedded default,
 * BullMQ on Redis when REDIS_URL is set (several replicas share the queue). Handlers must be
 * idempotent: a job may run twice (a replica dies mid-job) and progress lives in the
 * database, never in the job.
 */
export type TaskHandler = (data: Record<string, unknown>) => Promise<void>;

export interface TaskQueue {
  readonly kind: 'in-process' | 'bullmq';
  register(name: string, handler: TaskHandler): void;
  /** Queues a job; with `coalesceKey`, a job with the same key that has not started yet absorbs this one. */
  enqueue(
    name: string,
    data: Record<string, unknown>,
    options?: { coalesceKey?: string; delayMs?: number },
  ): Promise<void>;
  /** Runs `name` every `everyMs` (once across replicas for BullMQ). */
  every(name: string, everyMs: number): Promise<void>;
  /** Jobs waiting or delayed (for /metrics). */
  depth(): Promise<number>;
  start(): Promise<void>;
  close(): Promise<void>;
}
