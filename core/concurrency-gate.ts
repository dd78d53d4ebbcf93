/**
 * Runs at most `limit` of the tasks given to it at once; the others wait in arrival order.
 * A finishing task hands its slot straight to the next waiter, so the limit holds even when
 * a new task arrives between the two.
 */
export type ConcurrencyGate = <T>(task: () => Promise<T>) => Promise<T>;

export function concurrencyGate(limit: number): ConcurrencyGate {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async (task) => {
    if (running >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    else running += 1;
    try {
      return await task();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else running -= 1;
    }
  };
}
