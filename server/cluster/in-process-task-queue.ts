import type { Logger } from 'pino';
import type { TaskHandler, TaskQueue } from './task-queue.js';

/** The embedded default: jobs run in this process, one at a time per name+key, errors logged. */
export class InProcessTaskQueue implements TaskQueue {
  readonly kind = 'in-process' as const;
  private readonly handlers = new Map<string, TaskHandler>();
  private readonly waiting = new Set<string>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private pending = 0;
  private closed = false;
  private running: Promise<void> = Promise.resolve();

  constructor(private readonly log: Logger) {}

  register(name: string, handler: TaskHandler): void {
    this.handlers.set(name, handler);
  }

  async enqueue(
    name: string,
    data: Record<string, unknown>,
    options: { coalesceKey?: string; delayMs?: number } = {},
  ): Promise<void> {
    if (this.closed) return;
    const key = options.coalesceKey ? `${name}\u0000${options.coalesceKey}` : undefined;
    if (key) {
      if (this.waiting.has(key)) return;
      this.waiting.add(key);
    }
    this.pending++;
    const run = () => {
      // Serialised: the embedded database has one connection, and ordering keeps runs easy to follow.
      this.running = this.running.then(async () => {
        if (key) this.waiting.delete(key);
        this.pending--;
        if (this.closed) return;
        const handler = this.handlers.get(name);
        if (!handler) return this.log.error({ job: name }, 'no handler registered for job');
        try {
          await handler(data);
        } catch (err) {
          this.log.error({ err, job: name }, 'job failed');
        }
      });
    };
    if (options.delayMs) {
      const t = setTimeout(() => {
        this.timers.delete(t);
        run();
      }, options.delayMs);
      this.timers.add(t);
    } else {
      run();
    }
  }

  async every(name: string, everyMs: number): Promise<void> {
    const t = setInterval(() => void this.enqueue(name, {}, { coalesceKey: 'every' }), everyMs);
    t.unref();
    this.timers.add(t);
  }

  async depth(): Promise<number> {
    return this.pending;
  }

  async start(): Promise<void> {}

  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    await this.running;
  }
}
