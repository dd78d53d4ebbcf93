import { describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, operatorConsole, READER_PASSWORD } from './operator-console.js';

describe('console sessions and CSRF', () => {
  const c = operatorConsole();
  const { signIn, withCookie } = c;

  it('signing in sets an HttpOnly, SameSite=Strict cookie on / (not Secure over plain HTTP); only its hash is stored', async () => {
    const session = await signIn('root', ADMIN_PASSWORD);
    const attributes = session.setCookie.split(';').map((a) => a.trim().toLowerCase());
    expect(attributes).toContain('httponly');
    expect(attributes).toContain('samesite=strict');
    expect(attributes).toContain('path=/');
    expect(attributes).not.toContain('secure');
    const id = session.cookie.slice('wrtfleet_session='.length);
    expect(id).toMatch(/^[\w-]{43}$/);
    const rows = await c.controller.db.prisma.operatorSession.findMany({ where: { accountName: 'root' } });
    expect(rows.length).toBeGreaterThan(0);
    expect(JSON.stringify(rows)).not.toContain(id);

    const me = await withCookie(session)('/v1/session');
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({
      kind: 'account',
      actor: 'account:root',
      name: 'root',
      role: 'admin',
      csrfToken: session.csrfToken,
    });
    expect(me.body.scopes).toEqual(['read', 'write', 'admin', 'enroll']);
    const idle = Date.parse(me.body.idleExpiresAt) - Date.now();
    const absolute = Date.parse(me.body.absoluteExpiresAt) - Date.now();
    expect(idle).toBeGreaterThan(29 * 60_000);
    expect(idle).toBeLessThanOrEqual(30 * 60_000);
    expect(absolute).toBeGreaterThan(11.9 * 3600_000);
    expect(absolute).toBeLessThanOrEqual(12 * 3600_000);
    expect((await c.controller.accounts.get('root'))!.lastSignInAt).not.toBeNull();
  });

  it('a wrong password, an unknown name and a malformed body are refused, and nothing in the logs names the password', async () => {
    for (const body of [
      { name: 'root', password: 'not the password' },
      { name: 'nobody', password: ADMIN_PASSWORD },
    ]) {
      const res = await fetch(`${c.url}/v1/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(401);
      expect(res.headers.getSetCookie()).toEqual([]);
      expect(await res.json()).toMatchObject({ error: 'sign_in_failed' });
    }
    const malformed = await fetch(`${c.url}/v1/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'root' }),
    });
    expect(malformed.status).toBe(400);
    expect(JSON.stringify(await malformed.json())).toContain('password');
    // What a form on another site could send: not JSON, so no one is signed in from outside.
    const fromAForm = await fetch(`${c.url}/v1/session`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: JSON.stringify({ name: 'root', password: ADMIN_PASSWORD }),
    });
    expect(fromAForm.status).toBe(400);
    expect(fromAForm.headers.getSetCookie()).toEqual([]);
    expect(c.logs.join('\n')).not.toContain(ADMIN_PASSWORD);
  });

  it('a write with the cookie needs the session CSRF token (403 without or with a wrong one); a bearer token needs none', async () => {
    const call = withCookie(await signIn('root', ADMIN_PASSWORD));
    const body = { name: 'from-console', scopes: ['read'] };
    // The last: as many characters as the token, but more bytes.
    for (const csrf of [null, 'not-the-token', '\u00e9'.repeat(43)]) {
      const refused = await call('/v1/tokens', { method: 'POST', body, csrf });
      expect(refused.status, `csrf ${csrf}`).toBe(403);
      expect(refused.body).toMatchObject({ error: 'csrf_token_invalid' });
      expect(refused.body.message).toContain('X-CSRF-Token');
    }
    expect((await c.controller.tokens.list()).some((t) => t.name === 'from-console')).toBe(false);
    const created = await call('/v1/tokens', { method: 'POST', body });
    expect(created.status).toBe(201);
    // A bearer token's write needs no CSRF header.
    expect((await c.admin('/v1/tokens', { method: 'POST', body: { name: 'bearer', scopes: ['read'] } })).status).toBe(
      201,
    );
    // The change made in the console is audited with the account as its actor.
    const event = await c.controller.db.prisma.auditEvent.findFirstOrThrow({
      where: { action: 'api_token.created', targetId: created.body.id },
    });
    expect(event.actor).toBe('account:root');
  });

  it('a role maps onto scopes: read reads, write writes, only admin administers', async () => {
    const reader = withCookie(await signIn('reader', READER_PASSWORD));
    const writer = withCookie(await signIn('writer', 'write access please'));
    expect((await reader('/v1/session')).body).toMatchObject({ role: 'read', scopes: ['read'] });
    expect((await reader('/v1/routers')).status).toBe(200);
    const forged = await reader('/v1/routers/x/tags', { method: 'PUT', body: { tags: ['a'] } });
    expect(forged.status).toBe(403);
    expect(forged.body).toMatchObject({ error: 'forbidden' });
    expect((await reader('/v1/accounts')).status).toBe(403);
    expect((await writer('/v1/session')).body).toMatchObject({ role: 'write', scopes: ['read', 'write'] });
    expect((await writer('/v1/routers/x/tags', { method: 'PUT', body: { tags: ['a'] } })).status).toBe(404);
    expect((await writer('/v1/accounts')).status).toBe(403);
  });

  it('the session ends after the idle time, and at the absolute expiry however busy it is', async () => {
    const sessions = c.controller.sessions;
    const realNow = sessions.now;
    try {
      const idle = withCookie(await signIn('reader', READER_PASSWORD));
      let offset = 29 * 60_000;
      sessions.now = () => new Date(Date.now() + offset);
      expect((await idle('/v1/session')).status).toBe(200);
      // 29 min later it was used, so it lasts 30 min from then.
      offset = 29 * 60_000 + 29 * 60_000;
      expect((await idle('/v1/session')).status).toBe(200);
      offset = 29 * 60_000 + 29 * 60_000 + 31 * 60_000;
      const ended = await idle('/v1/session');
      expect(ended.status).toBe(401);
      expect(ended.body.message).toContain('session has ended');

      sessions.now = realNow;
      const busy = withCookie(await signIn('reader', READER_PASSWORD));
      // A request every 25 minutes keeps it from idling, until 12 h after sign-in.
      let statuses: number[] = [];
      for (let minutes = 25; minutes <= 12 * 60 + 25; minutes += 25) {
        sessions.now = () => new Date(Date.now() + minutes * 60_000);
        statuses.push((await busy('/v1/session')).status);
      }
      statuses = [...new Set(statuses)];
      expect(statuses).toEqual([200, 401]);
      const last = await busy('/v1/session');
      expect(last.status).toBe(401);
    } finally {
      sessions.now = realNow;
    }
  });

  it('logout ends the session and clears the cookie', async () => {
    const session = await signIn('writer', 'write access please');
    const call = withCookie(session);
    const out = await call('/v1/session', { method: 'DELETE' });
    expect(out.status).toBe(204);
    expect(out.headers.getSetCookie().join()).toMatch(/wrtfleet_session=;.*Expires=Thu, 01 Jan 1970/);
    expect((await call('/v1/session')).status).toBe(401);
    const events = await c.controller.db.prisma.auditEvent.findMany({
      where: { action: { in: ['session.signed_in', 'session.signed_out'] }, targetId: 'writer' },
    });
    expect(events.map((e) => e.actor)).toContain('account:writer');
    expect(events.some((e) => e.action === 'session.signed_out')).toBe(true);
  });

  it('sign-ins keep only the sessions that can still be used; an account without its event fails the audit check', async () => {
    for (let i = 0; i < 3; i++) {
      const session = await signIn('writer', 'write access please');
      expect((await withCookie(session)('/v1/session', { method: 'DELETE' })).status).toBe(204);
    }
    const open = withCookie(await signIn('writer', 'write access please'));
    // The three ended ones are gone; the new one and the one still open from an earlier test stay.
    const rows = await c.controller.db.prisma.operatorSession.findMany({ where: { accountName: 'writer' } });
    expect(rows.filter((r) => r.endedAt !== null)).toEqual([]);
    expect(rows).toHaveLength(2);
    expect((await open('/v1/session')).status).toBe(200);

    expect((await c.admin('/v1/audit/verify')).body).toMatchObject({ ok: true, missingCount: 0 });
    await c.controller.db.prisma.operatorAccount.create({
      data: { name: 'planted', role: 'admin', passwordHash: 'scrypt$x', createdBy: 'nobody' },
    });
    const verdict = await c.admin('/v1/audit/verify');
    expect(verdict.body.ok).toBe(false);
    expect(verdict.body.missing).toContainEqual({ kind: 'account', id: 'planted', missingEvent: 'account.created' });
    await c.controller.db.prisma.operatorAccount.delete({ where: { name: 'planted' } });
  });

  // Last: it uses up this address's failed sign-ins.
  it('failed sign-ins are limited per name and per address (429 with Retry-After) and audited', async () => {
    const attempt = (name: string, password: string) =>
      fetch(`${c.url}/v1/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name, password }),
      });
    const perName = [];
    for (let i = 0; i < 11; i++) perName.push((await attempt('writer', `guess number ${i}`)).status);
    expect(perName.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(perName[10]).toBe(429);
    // Even the right password waits now, for this name.
    const locked = await attempt('writer', 'write access please');
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(60);
    // Other names still sign in, until the address has used up its 20 failures a minute.
    await signIn('root', ADMIN_PASSWORD);
    const perAddress: number[] = [];
    for (let i = 0; i < 25 && perAddress.at(-1) !== 429; i++)
      perAddress.push((await attempt(`someone${i}`, 'whatever it is')).status);
    // The earlier tests failed from this address too: it is cut off before 20 more.
    expect(perAddress.length).toBeGreaterThan(1);
    expect(perAddress.length).toBeLessThan(20);
    expect(perAddress.slice(0, -1).every((status) => status === 401)).toBe(true);
    expect(perAddress.at(-1)).toBe(429);
    const limited = await attempt('root', ADMIN_PASSWORD);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await limited.json()).toMatchObject({ error: 'too_many_failures' });

    // Audited aggregated (details in sign-in-limits.test.ts): the first failure, then the others' count.
    await c.controller.security.failedAttempts.flush(true);
    const events = await c.controller.db.prisma.auditEvent.findMany({
      where: { action: { in: ['session.sign_in_failed', 'session.sign_in_limited'] } },
      orderBy: { seq: 'asc' },
    });
    const count = (e: { after: unknown }) => (e.after as { count: number }).count;
    const writer = events.filter((e) => e.targetId === 'writer');
    expect(writer.map((e) => [e.action, e.actor, count(e)])).toEqual([
      ['session.sign_in_failed', 'address:127.0.0.1', 1],
      ['session.sign_in_failed', 'address:127.0.0.1', 9],
    ]);
    // The four 429s (the 11th for writer, its right password, the address's last, root's), unnamed.
    expect(events.filter((e) => e.action === 'session.sign_in_limited').map((e) => [e.targetId, count(e)])).toEqual([
      [null, 1],
      [null, 3],
    ]);
    const text = JSON.stringify(events, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v));
    expect(text).not.toMatch(/guess number|someone/);
  });
});
