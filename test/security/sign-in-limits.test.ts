import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword, passwordChecks, verifyPassword } from '../../server/auth/password-hash.js';
import type { Controller } from '../../server/controller.js';
import { startTestController } from '../support/controller.js';
import { createPgliteDatabase, type TestDatabase } from '../support/databases.js';

const PASSWORD = 'the right password';
const PER_NAME = 10;

interface Answer {
  status: number;
  retryAfter: string | null;
  ms: number;
}

const tally = (answers: Answer[]) => {
  const byStatus: Record<number, number> = {};
  for (const a of answers) byStatus[a.status] = (byStatus[a.status] ?? 0) + 1;
  return byStatus;
};

describe('password hashing', () => {
  it('is scrypt with a fresh salt per hash, verified in constant time', async () => {
    const a = await hashPassword('same password here');
    const b = await hashPassword('same password here');
    expect(a).toMatch(/^scrypt\$32768\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
    expect(a).not.toBe(b);
    expect(await verifyPassword('same password here', a)).toBe(true);
    expect(await verifyPassword('same password herE', a)).toBe(false);
    expect(await verifyPassword('same password here', 'scrypt$1$1$1$$')).toBe(false);
    expect(await verifyPassword('same password here', 'sha256$abc')).toBe(false);
  });
});

/**
 * The sign-in and password-change limits under concurrency: attempts sent at once are counted
 * before the hash, so at most the limit are checked and the rest are 429 without one; the
 * hashes running at once are bounded, so a burst cannot starve another operator; a burst's
 * failures are a few audit events with counts, and a name that is no account's is never
 * recorded as typed.
 */
describe('sign-in and password-change limits under concurrency', () => {
  let db: TestDatabase;
  let controller: Controller;
  let url: string;
  let logs: string[];

  beforeAll(async () => {
    db = await createPgliteDatabase();
    // The address limit raised out of the way: every request here comes from 127.0.0.1, as a
    // burst from many addresses would not; the per-name limit is the default.
    ({ controller, logs } = await startTestController(db, {
      security: { insecureAgents: true, authFailuresPerMinute: 1000, signInFailuresPerName: PER_NAME },
    }));
    url = controller.httpUrl;
    for (const name of ['target', 'bystander', 'audited', 'changer'])
      await controller.accounts.create({ name, role: 'read', password: PASSWORD }, { actor: 'test' });
  });
  afterAll(async () => {
    await controller?.close();
    await db?.drop();
  });

  const signIn = async (name: string, password: string): Promise<Answer> => {
    const started = performance.now();
    const res = await fetch(`${url}/v1/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name, password }),
    });
    await res.arrayBuffer();
    return { status: res.status, retryAfter: res.headers.get('retry-after'), ms: performance.now() - started };
  };
  const lastSeq = async () =>
    (await controller.db.prisma.auditEvent.findFirst({ orderBy: { seq: 'desc' }, select: { seq: true } }))?.seq ?? 0n;
  const eventsSince = (seq: bigint) =>
    controller.db.prisma.auditEvent.findMany({ where: { seq: { gt: seq } }, orderBy: { seq: 'asc' } });
  const count = (e: { after: unknown }) => (e.after as { count: number }).count;
  const sum = (events: { after: unknown }[]) => events.reduce((n, e) => n + count(e), 0);

  it(`80 wrong passwords at once for one name: at most ${PER_NAME} are hashed, the rest 429 at once; then the right one is 429 too`, async () => {
    const hashesBefore = passwordChecks.started;
    const answers = await Promise.all(Array.from({ length: 80 }, (_, i) => signIn('target', `wrong guess ${i}`)));
    const statuses = tally(answers);
    expect(Object.keys(statuses).sort()).toEqual(['401', '429']);
    expect(statuses[401]).toBeLessThanOrEqual(PER_NAME);
    expect(statuses[401]! + statuses[429]!).toBe(80);
    // Only the checked ones hashed: the 429s never reached scrypt.
    expect(passwordChecks.started - hashesBefore).toBe(statuses[401]);
    for (const a of answers.filter((x) => x.status === 429)) expect(Number(a.retryAfter)).toBeGreaterThan(14 * 60);

    const right = await signIn('target', PASSWORD);
    expect(right.status).toBe(429);
    expect(passwordChecks.started - hashesBefore).toBe(statuses[401]);
  });

  it('during a burst of 150 wrong sign-ins, another account signs in quickly; the excess is 503 at once', async () => {
    // What one sign-in costs on this machine now (the slower of two), to judge "quickly" by.
    const [one, two] = [await signIn('bystander', PASSWORD), await signIn('bystander', PASSWORD)];
    expect([one.status, two.status]).toEqual([200, 200]);
    const alone = one.ms > two.ms ? one : two;

    const burst = Promise.all(Array.from({ length: 150 }, (_, i) => signIn(`spray-${i}`, 'a wrong password')));
    const started = performance.now();
    let bystander = await signIn('bystander', PASSWORD);
    // Refused while the queue is full: it comes back when Retry-After says.
    for (let tries = 0; bystander.status === 503 && tries < 5; tries++) {
      await new Promise((r) => setTimeout(r, Number(bystander.retryAfter) * 1000));
      bystander = await signIn('bystander', PASSWORD);
    }
    const took = performance.now() - started;
    expect(bystander.status).toBe(200);
    // Unbounded, the 150 hashes shared the pool with it: 14.8 s where one took 0.2 s (75 times as
    // long on two cores, 37 on four). Bounded, it waits for a Retry-After and the 16 queued.
    expect(took).toBeLessThan(2000 + 15 * alone.ms);

    const answers = await burst;
    const statuses = tally(answers);
    expect(Object.keys(statuses).sort()).toEqual(['401', '503']);
    const busy = answers.filter((a) => a.status === 503);
    for (const a of busy) expect(a.retryAfter).toBe('1');
    // A refused one waited for no hash: each was answered before the checked ones were done.
    const checked = answers.filter((a) => a.status === 401);
    expect(checked.length).toBeGreaterThan(0);
    expect(Math.max(...busy.map((a) => a.ms))).toBeLessThan(Math.max(...checked.map((a) => a.ms)));
  });

  it('a burst of 300 failed sign-ins is a few audit events whose counts add up; unknown names are not recorded', async () => {
    await controller.security.failedAttempts.flush(true);
    const since = await lastSeq();
    const answers = await Promise.all(Array.from({ length: 300 }, (_, i) => signIn('audited', `guess ${i}`)));
    // A password typed into the name field, twice: a name that is no account's.
    const typo = 'Tr0ub4dor-and-3';
    for (let i = 0; i < 2; i++) expect((await signIn(typo, PASSWORD)).status).toBe(401);
    await controller.security.failedAttempts.flush(true);
    const events = await eventsSince(since);
    const statuses = tally(answers);
    expect(statuses[401]! + statuses[429]!).toBe(300);

    const failed = events.filter((e) => e.action === 'session.sign_in_failed' && e.targetId === 'audited');
    expect(failed.map(count)).toEqual([1, statuses[401]! - 1]);
    expect(failed.every((e) => e.actor === 'address:127.0.0.1')).toBe(true);
    expect(failed[1]!.after).toMatchObject({ firstAt: expect.any(String), lastAt: expect.any(String) });
    const limited = events.filter((e) => e.action === 'session.sign_in_limited');
    expect(sum(limited)).toBe(statuses[429]);
    expect(limited.map((e) => e.targetId)).toEqual(limited.map(() => null));
    const unknown = events.filter((e) => e.action === 'session.sign_in_failed' && e.targetId === '(unknown)');
    expect(unknown.map(count)).toEqual([1, 1]);
    // Every event of the burst, and no more than a handful.
    expect(events.length).toBeLessThanOrEqual(6);

    const text = JSON.stringify(events, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v));
    expect(text).not.toContain(typo);
    expect(text).not.toContain('guess ');
    expect(logs.join('\n')).not.toContain(typo);
  });

  it('40 wrong current passwords at once: the limit is shared with sign-in, the rest 429, the failures audited', async () => {
    const login = await fetch(`${url}/v1/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'changer', password: PASSWORD }),
    });
    expect(login.status).toBe(200);
    const cookie = login.headers.getSetCookie()[0]!.split(';')[0]!;
    const { csrfToken } = (await login.json()) as { csrfToken: string };
    const change = async (currentPassword: string) => {
      const res = await fetch(`${url}/v1/session/password`, {
        method: 'PUT',
        headers: { cookie, 'x-csrf-token': csrfToken, 'content-type': 'application/json' },
        body: JSON.stringify({ currentPassword, newPassword: 'a brand new password' }),
      });
      await res.arrayBuffer();
      return { status: res.status, retryAfter: res.headers.get('retry-after'), ms: 0 };
    };

    await controller.security.failedAttempts.flush(true);
    const since = await lastSeq();
    const hashesBefore = passwordChecks.started;
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => change(`not it ${i}`)));
    const statuses = tally(answers);
    expect(Object.keys(statuses).sort()).toEqual(['403', '429']);
    expect(statuses[403]).toBeLessThanOrEqual(PER_NAME);
    expect(statuses[403]! + statuses[429]!).toBe(40);
    expect(passwordChecks.started - hashesBefore).toBe(statuses[403]);
    for (const a of answers.filter((x) => x.status === 429)) expect(Number(a.retryAfter)).toBeGreaterThan(14 * 60);
    // The right one is refused too while the account is limited, and its sign-in with it.
    expect((await change(PASSWORD)).status).toBe(429);
    expect((await signIn('changer', PASSWORD)).status).toBe(429);
    expect((await controller.accounts.verify('changer', PASSWORD)).ok).toBe(true);

    await controller.security.failedAttempts.flush(true);
    const events = await eventsSince(since);
    const failed = events.filter((e) => e.action === 'account.password_change_failed');
    expect(sum(failed)).toBe(statuses[403]);
    expect(failed[0]).toMatchObject({
      actor: 'account:changer',
      targetType: 'account',
      targetId: 'changer',
      after: { address: '127.0.0.1', count: 1 },
    });
    const limited = events.filter((e) => e.action === 'account.password_change_limited');
    expect(sum(limited)).toBe(statuses[429]! + 1);
    expect(events.length).toBeLessThanOrEqual(5);
    expect(JSON.stringify(events, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))).not.toContain('not it');
  });
});
