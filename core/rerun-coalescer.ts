/**
 * Runs a task at most once at a time per key. A call made while the key's task runs asks for
 * one more run after it, with its options merged into that run's; every caller gets the
 * promise of the run that covers its call. A burst of triggers for one key (each burst of
 * apply results kicks its rollout) then costs two runs, not one each side by side.
 */
export type RerunCoalescer<O> = (key: string, options: O) => Promise<void>;

interface Runs<O> {
  /** The run under way. */
  current: Promise<void>;
  /** The run queued after it, and the options it will take; shared by every call until it starts. */
  rerun: Promise<void> | undefined;
  next: O | undefined;
}

export function rerunCoalescer<O>(
  task: (key: string, options: O) => Promise<void>,
  merge: (earlier: O, later: O) => O,
): RerunCoalescer<O> {
  const active = new Map<string, Runs<O>>();
  // A run that ends with nothing queued after it frees the key.
  const start = (key: string, runs: Runs<O>, options: O): Promise<void> =>
    (runs.current = task(key, options).finally(() => {
      if (runs.rerun === undefined) active.delete(key);
    }));
  return (key, options) => {
    const runs = active.get(key);
    if (!runs) {
      const fresh: Runs<O> = { current: Promise.resolve(), rerun: undefined, next: undefined };
      active.set(key, fresh);
      return start(key, fresh, options);
    }
    runs.next = runs.next === undefined ? options : merge(runs.next, options);
    runs.rerun ??= runs.current
      .catch(() => undefined)
      .then(() => {
        const next = runs.next as O;
        runs.next = undefined;
        runs.rerun = undefined;
        return start(key, runs, next);
      });
    return runs.rerun;
  };
}
