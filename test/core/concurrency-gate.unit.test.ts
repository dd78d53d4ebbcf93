import { describe, expect, it } from 'vitest';
import { boundedConcurrencyGate, concurrencyGate, GateFull } from '../../core/concurrency-gate.js';

describe('concurrencyGate (database page queries, enrollment, onboarding)', () => {
  it('never runs more than its limit, starts waiters in arrival order, and passes results and errors through', async () => {
    const gate = concurrencyGate(3);
    let running = 0;
    let peak = 0;
    const started: number[] = [];
    const task = (i: number) => async () => {
      started.push(i);
      running += 1;
      peak = Math.max(peak, running);
      await new Promise((r) => setTimeout(r, 1 + ((i * 7) % 5)));
      running -= 1;
      if (i === 5) throw new Error('task 5 failed');
      return i * 2;
    };
    const first = Array.from({ length: 10 }, (_, i) => gate(task(i)));
    // Arrivals while slots are being handed over.
    await new Promise((r) => setTimeout(r, 2));
    const later = Array.from({ length: 10 }, (_, i) => gate(task(10 + i)));
    const settled = await Promise.allSettled([...first, ...later]);
    expect(peak).toBe(3);
    expect(started).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(settled[5]).toMatchObject({ status: 'rejected', reason: new Error('task 5 failed') });
    expect(
      settled.filter((s) => s.status === 'fulfilled').map((s) => (s as PromiseFulfilledResult<number>).value),
    ).toEqual(
      Array.from({ length: 20 }, (_, i) => i)
        .filter((i) => i !== 5)
        .map((i) => i * 2),
    );
    // Free again: the next task starts at once.
    let ranAt = -1;
    await gate(async () => void (ranAt = running));
    expect(ranAt).toBe(0);
  });
});

describe('boundedConcurrencyGate (password checks)', () => {
  it('runs at most its limit, queues at most maxWaiting, refuses the rest at once, and counts what started', async () => {
    const gate = boundedConcurrencyGate(2, 3);
    const releases: (() => void)[] = [];
    const task = () => new Promise<void>((resolve) => releases.push(resolve));
    const admitted = Array.from({ length: 5 }, () => gate(task));
    const refusedAt = Date.now();
    const refused = await Promise.allSettled(Array.from({ length: 4 }, () => gate(task)));
    expect(Date.now() - refusedAt).toBeLessThan(100);
    expect(refused.map((r) => r.status === 'rejected' && r.reason instanceof GateFull)).toEqual(Array(4).fill(true));
    expect([gate.running, gate.waiting, gate.started]).toEqual([2, 3, 2]);
    // A finished task hands its slot to the first waiter: the queue shrinks, the running count holds.
    releases.shift()!();
    await new Promise((r) => setTimeout(r, 0));
    expect([gate.running, gate.waiting, gate.started]).toEqual([2, 2, 3]);
    // A slot in the queue is free again.
    const late = gate(task);
    expect(gate.waiting).toBe(3);
    while (gate.started < 6 || releases.length > 0) {
      releases.shift()?.();
      await new Promise((r) => setTimeout(r, 0));
    }
    await Promise.all([...admitted, late]);
    expect([gate.running, gate.waiting, gate.started]).toEqual([0, 0, 6]);
  });
});
