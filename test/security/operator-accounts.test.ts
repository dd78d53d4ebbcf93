import { describe, expect, it } from 'vitest';
import { startTestController } from '../support/controller.js';
import { createPgliteDatabase } from '../support/databases.js';
import { ADMIN_PASSWORD, operatorConsole, READER_PASSWORD } from './operator-console.js';

describe('operator accounts', () => {
  const c = operatorConsole();
  const { signIn, withCookie } = c;

  it('disabling an account ends its sessions at once and refuses its sign-in; enabling lets it in again', async () => {
    const reader = withCookie(await signIn('reader', READER_PASSWORD));
    expect((await reader('/v1/routers')).status).toBe(200);
    const disabled = await c.admin('/v1/accounts/reader', { method: 'PATCH', body: { disabled: true } });
    expect(disabled.status).toBe(200);
    expect(disabled.body).toMatchObject({ name: 'reader', disabled: true });
    expect((await reader('/v1/routers')).status).toBe(401);
    const refused = await fetch(`${c.url}/v1/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'reader', password: READER_PASSWORD }),
    });
    expect(refused.status).toBe(401);
    expect((await c.admin('/v1/accounts/reader', { method: 'PATCH', body: { disabled: false } })).status).toBe(200);
    await signIn('reader', READER_PASSWORD);
    const actions = (
      await c.controller.db.prisma.auditEvent.findMany({ where: { targetType: 'account', targetId: 'reader' } })
    ).map((e) => e.action);
    expect(actions).toEqual(expect.arrayContaining(['account.created', 'account.disabled', 'account.enabled']));
  });

  it('accounts API: 400 naming the field, 409 for a taken name, reset password, own password change, delete', async () => {
    const short = await c.admin('/v1/accounts', {
      method: 'POST',
      body: { name: 'eve', role: 'read', password: 'short' },
    });
    expect(short.status).toBe(400);
    expect(short.body.details[0].path).toBe('/password');
    const badRole = await c.admin('/v1/accounts', {
      method: 'POST',
      body: { name: 'eve', role: 'root', password: 'long enough password' },
    });
    expect(badRole.status).toBe(400);
    expect(JSON.stringify(badRole.body)).toContain('role');
    const taken = await c.admin('/v1/accounts', {
      method: 'POST',
      body: { name: 'root', role: 'read', password: 'long enough password' },
    });
    expect(taken.status).toBe(409);

    const created = await c.admin('/v1/accounts', {
      method: 'POST',
      body: { name: 'eve', role: 'write', password: 'first password!' },
    });
    expect(created.status).toBe(201);
    const eve = withCookie(await signIn('eve', 'first password!'));
    expect(
      (await c.admin('/v1/accounts/eve/password', { method: 'PUT', body: { password: 'second password!' } })).status,
    ).toBe(204);
    expect((await eve('/v1/session')).status).toBe(401);
    const again = withCookie(await signIn('eve', 'second password!'));
    const wrongOld = await again('/v1/session/password', {
      method: 'PUT',
      body: { currentPassword: 'not it at all', newPassword: 'third password!!' },
    });
    expect(wrongOld.status).toBe(403);
    const changed = await again('/v1/session/password', {
      method: 'PUT',
      body: { currentPassword: 'second password!', newPassword: 'third password!!' },
    });
    expect(changed.status).toBe(204);
    expect((await again('/v1/session')).status).toBe(200);
    await signIn('eve', 'third password!!');

    const root = withCookie(await signIn('root', ADMIN_PASSWORD));
    expect((await root('/v1/accounts/root', { method: 'DELETE' })).status).toBe(409);
    expect((await root('/v1/accounts/eve', { method: 'DELETE' })).status).toBe(204);
    expect((await again('/v1/session')).status).toBe(401);
    expect((await root('/v1/accounts/eve', { method: 'DELETE' })).status).toBe(404);
    const listed = await root('/v1/accounts');
    expect(listed.body.items.map((a: { name: string }) => a.name)).toEqual(['reader', 'root', 'writer']);
    expect(JSON.stringify(listed.body)).not.toContain('scrypt');
    const deleted = await c.controller.db.prisma.auditEvent.findFirstOrThrow({
      where: { action: 'account.deleted', targetId: 'eve' },
    });
    expect(deleted.actor).toBe('account:root');
    expect(c.logs.join('\n')).not.toMatch(/first password!|second password!|third password!!/);
  });
});

describe('the session cookie behind a TLS proxy', () => {
  it('is Secure when the controller is told it is served over TLS', async () => {
    const db = await createPgliteDatabase();
    const { controller, fetch: admin } = await startTestController(db, {
      security: { insecureAgents: true, sessionCookieSecure: true },
    });
    try {
      await admin('/v1/accounts', { method: 'POST', body: { name: 'ops', role: 'read', password: 'a long password' } });
      const res = await fetch(`${controller.httpUrl}/v1/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'ops', password: 'a long password' }),
      });
      expect(res.status).toBe(200);
      expect(
        res.headers
          .getSetCookie()[0]!
          .split(';')
          .map((a) => a.trim()),
      ).toContain('Secure');
    } finally {
      await controller.close();
      await db.drop();
    }
  });
});
