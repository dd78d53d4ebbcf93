/**
 * Runs a task at most once at a time per key. A call made while the key's task runs asks for
 * one more run after it, with its options merged into that run's; every caller gets the
 * promise of the run that covers its call. A burst of triggers for one key (each burst of
 * apply results kicks its rollout) then costs two runs, not one each side by side.
 */
export type RerunCoalescer<O> = (key: string, options: O) => Promise<void>;

export function rerunCoalescer<O>(
  task: (key: string, options: O) => Promise<void>,
  merge: (earlier: O, later: O) => O,
): RerunCoalescer<O> {
  const active = new Map<string, { next: O | undefined; rerun: Promise<void> | undefined; current: Promise<void> }>();
  return (key, options) => {
    const entry = active.get(key);
    if (entry) {
      entry.next = entry.next === undefined ? options : merge(entry.next, options);
      // The run after the current one; created once, shared by every call until it starts.
      entry.rerun ??= entry.current
        .then(
          () => undefined,
          () => undefined,
        )
        .then(() => {
          const next = entry.next as O;
          entry.next = undefined;
          entry.rerun = undefined;
          entry.current = task(key, next);
          return entry.current;
        });
      return entry.rerun;
    }
    const fresh = {
      next: undefined as O | undefined,
      rerun: undefined as Promise<void> | undefined,
      current: task(key, options),
    };
    active.set(key, fresh);
    const settle = (): void => {
      // Delete only once no rerun is queued: a queued rerun makes itself the current run.
      if (fresh.rerun === undefined) active.delete(key);
      else void fresh.rerun.then(settle, settle);
    };
    void fresh.current.then(settle, settle);
    return fresh.current;
  };
}
