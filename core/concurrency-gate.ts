/**
 * Runs at most `limit` of the tasks given to it at once; the others wait in arrival order.
 * A finishing task hands its slot straight to the next waiter, so the limit holds even when
 * a new task arrives between the two.
 */
export type ConcurrencyGate = <T>(task: () => Promise<T>) => Promise<T>;

export function concurrencyGate(limit: number): ConcurrencyGate {
  return boundedConcurrencyGate(limit, Infinity);
}

/** A bounded gate's answer when `maxWaiting` tasks wait already: the caller says "busy" at once. */
export class GateFull extends Error {
  constructor() {
    super('too many tasks are waiting for this gate');
  }
}

/** A concurrency gate whose queue is bounded, with counters a caller (or a test) can read. */
export interface BoundedGate {
  <T>(task: () => Promise<T>): Promise<T>;
  /** Tasks running now. */
  readonly running: number;
  /** Tasks waiting for a slot now. */
  readonly waiting: number;
  /** Tasks started since the gate was made (each counted once, when it starts). */
  readonly started: number;
}

/**
 * `concurrencyGate` with a bounded queue: a task arriving while `maxWaiting` others wait is
 * refused with GateFull instead of queued, so a burst costs a bounded wait, never an unbounded one.
 */
export function boundedConcurrencyGate(limit: number, maxWaiting: number): BoundedGate {
  let running = 0;
  let started = 0;
  const waiting: (() => void)[] = [];
  const gate = async <T>(task: () => Promise<T>): Promise<T> => {
    if (running >= limit) {
      if (waiting.length >= maxWaiting) throw new GateFull();
      await new Promise<void>((resolve) => waiting.push(resolve));
    } else running += 1;
    started += 1;
    try {
      return await task();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else running -= 1;
    }
  };
  return Object.defineProperties(gate, {
    running: { get: () => running },
    waiting: { get: () => waiting.length },
    started: { get: () => started },
  }) as BoundedGate;
}
