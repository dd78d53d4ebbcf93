import { describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../server/audit/audit-log.js';
import { MANY_ACTORS, RepeatedEventAudit } from '../../server/audit/repeated-events.js';
import { FailureLimiter, reserveAll } from '../../server/auth/failure-limiter.js';

describe('FailureLimiter.reserve: an attempt is counted before it is checked', () => {
  it('hands out at most `limit` slots at once; a release gives one back, a kept one stays counted', () => {
    const limiter = new FailureLimiter(3, 60_000);
    const t0 = 1_000_000;
    const slots = [limiter.reserve('a', t0), limiter.reserve('a', t0), limiter.reserve('a', t0)];
    expect(slots.map((s) => s.ok)).toEqual([true, true, true]);
    // The third took the last slot: its failure is the one that limits the key.
    expect(slots.map((s) => s.ok && s.filledWindow)).toEqual([false, false, true]);
    expect(limiter.reserve('a', t0 + 1000)).toEqual({ ok: false, retryAfterSeconds: 59 });
    expect(limiter.retryAfterSeconds('a', t0)).toBe(60);
    // Another key has its own window.
    expect(limiter.reserve('b', t0).ok).toBe(true);

    // A success gives its slot back, once however often it is released.
    const first = slots[0]!;
    if (!first.ok) throw new Error('reserved above');
    first.release();
    first.release();
    expect(limiter.retryAfterSeconds('a', t0)).toBe(0);
    expect(limiter.reserve('a', t0).ok).toBe(true);
    expect(limiter.reserve('a', t0).ok).toBe(false);

    // The window ends: everything is forgotten, and a slot of the old window released late
    // does not open one in the new.
    const late = slots[1]!;
    const fresh = [1, 2, 3].map(() => limiter.reserve('a', t0 + 60_000));
    expect(fresh.every((s) => s.ok)).toBe(true);
    if (late.ok) late.release();
    expect(limiter.reserve('a', t0 + 60_000).ok).toBe(false);
  });

  it('reserveAll takes a slot in every limiter or in none, and waits for the longest', () => {
    const perAddress = new FailureLimiter(5, 60_000);
    const perName = new FailureLimiter(1, 15 * 60_000);
    const t0 = 2_000_000;
    const one = reserveAll(
      [
        [perAddress, '10.0.0.1'],
        [perName, 'root'],
      ],
      t0,
    );
    expect(one.ok).toBe(true);
    const refused = reserveAll(
      [
        [perAddress, '10.0.0.1'],
        [perName, 'root'],
      ],
      t0,
    );
    expect(refused).toEqual({ ok: false, retryAfterSeconds: 900, full: 1 });
    // The address's slot taken before the name was found full was given back: 4 remain.
    for (let i = 0; i < 4; i++) expect(perAddress.reserve('10.0.0.1', t0).ok).toBe(true);
    expect(perAddress.reserve('10.0.0.1', t0).ok).toBe(false);
  });

  it('check-then-record, for the doors that let a valid credential through, counts as before', () => {
    const limiter = new FailureLimiter(2);
    limiter.recordFailure('x', 0);
    expect(limiter.retryAfterSeconds('x', 0)).toBe(0);
    limiter.recordFailure('x', 0);
    expect(limiter.retryAfterSeconds('x', 30_000)).toBe(30);
    expect(limiter.retryAfterSeconds('x', 60_000)).toBe(0);
  });
});

/** An audit log that keeps what is appended. */
function memoryAudit() {
  const written: AuditEntry[] = [];
  return { written, append: async (entry: AuditEntry) => (written.push(entry), { id: '', hash: '' }) };
}
const quiet = { warn: () => {} };
const failure = (actor: string, targetId: string | null = 'root') => ({
  actor,
  action: 'session.sign_in_failed',
  targetType: 'account',
  targetId,
});

describe('RepeatedEventAudit: a burst of the same event is a few events with counts', () => {
  it('writes the first of a kind at once and its repeats as one event when the window closes', async () => {
    const audit = memoryAudit();
    const events = new RepeatedEventAudit(audit, quiet, 60_000);
    const t0 = Date.parse('2026-01-01T00:00:00Z');
    for (let i = 0; i < 300; i++) await events.note({ ...failure('address:10.0.0.1'), requestId: `r${i}` }, t0 + i);
    await events.note(failure('address:10.0.0.2'), t0 + 5);
    expect(audit.written).toEqual([
      { ...failure('address:10.0.0.1'), after: { count: 1 }, requestId: 'r0' },
      { ...failure('address:10.0.0.2'), after: { count: 1 }, requestId: null },
    ]);
    // Not yet closed: nothing more.
    await events.flush(false, t0 + 59_999);
    expect(audit.written).toHaveLength(2);
    await events.flush(false, t0 + 60_000);
    expect(audit.written).toHaveLength(3);
    expect(audit.written[2]).toMatchObject({
      ...failure('address:10.0.0.1'),
      after: { count: 299, firstAt: '2026-01-01T00:00:00.000Z', lastAt: '2026-01-01T00:00:00.299Z' },
    });
    // The next one opens a new window and is written at once again.
    await events.note(failure('address:10.0.0.1'), t0 + 61_000);
    expect(audit.written.at(-1)).toMatchObject({ after: { count: 1 } });
    await events.close();
    expect(audit.written).toHaveLength(4);
  });

  it('closes its windows on its own timer, and keeps context facts in the key and the event', async () => {
    const audit = memoryAudit();
    const events = new RepeatedEventAudit(audit, quiet, 50);
    const changed = (address: string) => ({
      ...failure('account:root'),
      action: 'account.password_change_failed',
      context: { address },
    });
    for (let i = 0; i < 4; i++) await events.note(changed('10.0.0.1'));
    await events.note(changed('10.0.0.9'));
    expect(audit.written.map((e) => e.after)).toEqual([
      { address: '10.0.0.1', count: 1 },
      { address: '10.0.0.9', count: 1 },
    ]);
    // No flush called: the window's own timer writes the repeats once it has closed.
    for (let waited = 0; audit.written.length < 3 && waited < 5_000; waited += 20)
      await new Promise((r) => setTimeout(r, 20));
    expect(audit.written).toHaveLength(3);
    expect(audit.written[2]!.after).toMatchObject({ address: '10.0.0.1', count: 3 });
    await events.close();
  });

  it('past maxKinds open kinds, new ones are counted together under (many): a spray floods nothing', async () => {
    const audit = memoryAudit();
    const events = new RepeatedEventAudit(audit, quiet, 60_000, 10);
    for (let i = 0; i < 500; i++) await events.note(failure(`address:10.0.${i >> 8}.${i & 255}`, '(unknown)'));
    await events.close();
    expect(audit.written).toHaveLength(12);
    const many = audit.written.filter((e) => e.actor === MANY_ACTORS);
    expect(many.map((e) => (e.after as { count: number }).count)).toEqual([1, 489]);
    expect(many[0]!.targetId).toBeNull();
    const total = audit.written.reduce((sum, e) => sum + (e.after as { count: number }).count, 0);
    expect(total).toBe(500);
  });
});
