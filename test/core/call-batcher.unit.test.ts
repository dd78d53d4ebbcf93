import { describe, expect, it } from 'vitest';
import { callBatcher } from '../../core/call-batcher.js';

describe('callBatcher (Hello refresh, certificate lookups, desired state on connect)', () => {
  it('gathers calls into batches of at most maxBatch, keeps each result with its call, and rejects only a failed one', async () => {
    const batches: number[][] = [];
    const double = callBatcher(
      async (xs: number[]) => {
        batches.push(xs);
        await new Promise((r) => setTimeout(r, 5));
        return xs.map((x) => (x === 7 ? new Error('seven refused') : x * 2));
      },
      { windowMs: 20, maxBatch: 4 },
    );
    const settled = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => double(i)));
    expect(batches).toEqual([
      [0, 1, 2, 3],
      [4, 5, 6, 7],
      [8, 9],
    ]);
    expect(settled[7]).toMatchObject({ status: 'rejected', reason: new Error('seven refused') });
    expect(
      settled.filter((s) => s.status === 'fulfilled').map((s) => (s as PromiseFulfilledResult<number>).value),
    ).toEqual([0, 2, 4, 6, 8, 10, 12, 16, 18]);
  });

  it('runs a lone call after the window, and rejects a whole batch whose run throws', async () => {
    let runs = 0;
    const failing = callBatcher(
      async (xs: string[]) => {
        runs += 1;
        if (xs.includes('boom')) throw new Error('database away');
        return xs;
      },
      { windowMs: 10, maxBatch: 100 },
    );
    const started = Date.now();
    await expect(failing('alone')).resolves.toBe('alone');
    expect(Date.now() - started).toBeGreaterThanOrEqual(8);
    const both = await Promise.allSettled([failing('a'), failing('boom')]);
    expect(both.map((b) => b.status)).toEqual(['rejected', 'rejected']);
    expect(runs).toBe(2);
  });

  it('runs no more than `concurrency` batches at once while the next ones gather', async () => {
    let running = 0;
    let peak = 0;
    const slow = callBatcher(
      async (xs: number[]) => {
        running += 1;
        peak = Math.max(peak, running);
        await new Promise((r) => setTimeout(r, 15));
        running -= 1;
        return xs;
      },
      { windowMs: 1, maxBatch: 2, concurrency: 2 },
    );
    await Promise.all(Array.from({ length: 12 }, (_, i) => slow(i)));
    expect(peak).toBe(2);
  });
});
