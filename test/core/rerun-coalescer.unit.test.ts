import { describe, expect, it } from 'vitest';
import { rerunCoalescer } from '../../core/rerun-coalescer.js';

const tick = (ms = 5) => new Promise((r) => setTimeout(r, ms));

describe('rerunCoalescer (rollout advances on one replica)', () => {
  it('runs one task per key at a time; calls meanwhile share one more run with merged options', async () => {
    const runs: { key: string; options: string[] }[] = [];
    const running = new Map<string, number>();
    let peak = 0;
    const run = rerunCoalescer<string[]>(
      async (key, options) => {
        running.set(key, (running.get(key) ?? 0) + 1);
        peak = Math.max(peak, running.get(key)!);
        runs.push({ key, options });
        await tick(20);
        running.set(key, running.get(key)! - 1);
      },
      (a, b) => [...a, ...b],
    );
    const first = run('r1', ['a']);
    const other = run('r2', ['x']); // another key runs beside it
    await tick();
    const during = [run('r1', ['b']), run('r1', ['c']), run('r1', ['d'])];
    expect(during[0]).toBe(during[1]);
    await Promise.all([first, other, ...during]);
    expect(peak).toBe(1);
    expect(runs).toEqual([
      { key: 'r1', options: ['a'] },
      { key: 'r2', options: ['x'] },
      { key: 'r1', options: ['b', 'c', 'd'] },
    ]);
    // Idle again: the next call runs at once, on its own.
    await run('r1', ['e']);
    expect(runs.at(-1)).toEqual({ key: 'r1', options: ['e'] });
    expect(runs).toHaveLength(4);
  });

  it('a call during the rerun queues a third run; a failed run fails its callers only', async () => {
    let n = 0;
    const seen: number[] = [];
    const run = rerunCoalescer<number>(
      async (_key, v) => {
        n += 1;
        seen.push(v);
        await tick(10);
        if (v === 2) throw new Error('run 2 failed');
      },
      (_a, b) => b,
    );
    const one = run('k', 1);
    await tick(2);
    // Its failure is caught at once: on a loaded machine run 2 may fail before the expect below.
    const two = run('k', 2).then(
      () => null,
      (err: unknown) => err as Error,
    );
    await tick(12); // run 1 done, run 2 under way
    const three = run('k', 3);
    await expect(one).resolves.toBeUndefined();
    expect((await two)?.message).toBe('run 2 failed');
    await expect(three).resolves.toBeUndefined();
    expect(seen).toEqual([1, 2, 3]);
    expect(n).toBe(3);
  });
});
