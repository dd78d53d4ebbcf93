/**
 * Turns many single calls into few batch calls: the first call of a batch waits `windowMs`
 * (or until `maxBatch` calls have gathered), then `runBatch` gets every argument at once and
 * returns one result per argument, in order. While a batch runs, the next one gathers, so a
 * burst becomes a pipeline of set-wise statements instead of a query per call.
 *
 * A result that is an Error rejects only its own call; a thrown error rejects the whole batch.
 */
export type BatchedCall<A, R> = (arg: A) => Promise<R>;

export interface CallBatcherOptions {
  /** How long the first call of a batch waits for company. */
  windowMs: number;
  /** A batch runs as soon as this many calls wait. */
  maxBatch: number;
  /** Batches running at once (default 1: in arrival order). */
  concurrency?: number;
}

export function callBatcher<A, R>(
  runBatch: (args: A[]) => Promise<(R | Error)[]>,
  { windowMs, maxBatch, concurrency = 1 }: CallBatcherOptions,
): BatchedCall<A, R> {
  type Waiter = { arg: A; resolve: (r: R) => void; reject: (e: unknown) => void };
  let gathering: Waiter[] = [];
  let timer: NodeJS.Timeout | undefined;
  const ready: Waiter[][] = [];
  let running = 0;

  const pump = () => {
    while (running < concurrency && ready.length > 0) {
      const batch = ready.shift()!;
      running += 1;
      runBatch(batch.map((w) => w.arg))
        .then(
          (results) => {
            batch.forEach((w, i) => {
              const r = results[i];
              if (r instanceof Error) w.reject(r);
              else if (i >= results.length) w.reject(new Error('batch returned fewer results than calls'));
              else w.resolve(r as R);
            });
          },
          (err: unknown) => {
            for (const w of batch) w.reject(err);
          },
        )
        .finally(() => {
          running -= 1;
          pump();
        });
    }
  };

  const close = () => {
    clearTimeout(timer);
    timer = undefined;
    if (gathering.length === 0) return;
    ready.push(gathering);
    gathering = [];
    pump();
  };

  return (arg) =>
    new Promise<R>((resolve, reject) => {
      gathering.push({ arg, resolve, reject });
      if (gathering.length >= maxBatch) close();
      else timer ??= setTimeout(close, windowMs);
    });
}
