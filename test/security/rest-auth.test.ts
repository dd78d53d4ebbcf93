import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Controller } from '../../server/controller.js';
import { authedFetch, startTestController } from '../support/controller.js';
import { BACKENDS, createPgliteDatabase, type TestDatabase } from '../support/databases.js';

describe.each(BACKENDS)('REST tokens and scopes on %s', (_name, createDb) => {
  let db: TestDatabase;
  let controller: Controller;
  let admin: ReturnType<typeof authedFetch>;

  beforeAll(async () => {
    db = await createDb();
    ({ controller, fetch: admin } = await startTestController(db));
  });
  afterAll(async () => {
    await controller?.close();
    await db?.drop();
  });

  it('no token: 401 JSON on every API route family', async () => {
    for (const [method, path] of [
      ['GET', '/v1/routers'],
      ['GET', '/v1/tokens'],
      ['POST', '/v1/tokens'],
      ['POST', '/v1/enrollment-tokens'],
      ['PUT', '/v1/routers/x/credential'],
      ['POST', '/v1/routers/x/decommission'],
    ] as const) {
      const res = await fetch(`${controller.httpUrl}${path}`, {
        method,
        headers: { 'content-type': 'application/json' },
        body: method === 'GET' ? undefined : '{}',
      });
      expect(res.status, `${method} ${path}`).toBe(401);
      expect(await res.json()).toMatchObject({ error: 'unauthenticated' });
    }
  });

  it('POST /v1/tokens shows the secret once; GET never shows it or its hash; DELETE revokes it at once', async () => {
    const created = await admin('/v1/tokens', {
      method: 'POST',
      body: { name: 'ci', owner: 'ci-bot', scopes: ['read'], expiresInSeconds: 3600 },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'ci', owner: 'ci-bot', scopes: ['read'], state: 'active' });
    const secret: string = created.body.token;
    expect(secret).toMatch(/^wft_/);
    const ci = authedFetch(controller.httpUrl, secret);
    expect((await ci('/v1/routers')).status).toBe(200);

    const list = await admin('/v1/tokens');
    expect(list.status).toBe(200);
    const row = await controller.db.prisma.apiToken.findUniqueOrThrow({ where: { id: created.body.id } });
    const text = JSON.stringify(list.body);
    expect(text).not.toContain(secret);
    expect(text).not.toContain(row.tokenHash);
    expect(list.body.items.find((t: { id: string }) => t.id === created.body.id)).not.toHaveProperty('token');

    expect((await admin(`/v1/tokens/${created.body.id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await ci('/v1/routers')).status).toBe(401);
    expect((await admin(`/v1/tokens/no-such-token`, { method: 'DELETE' })).status).toBe(404);
    const audit = await controller.db.prisma.auditEvent.findMany({
      where: { targetId: created.body.id },
      orderBy: { seq: 'asc' },
    });
    expect(audit.map((a) => a.action)).toEqual(['api_token.created', 'api_token.revoked']);
    expect(audit.every((a) => a.actor === 'token:tester')).toBe(true);
    expect(JSON.stringify(audit, (_k, v) => (typeof v === 'bigint' ? String(v) : v))).not.toContain(secret);
  });

  it('an expired token is 401 (created with an expiry that then passes)', async () => {
    const created = await admin('/v1/tokens', {
      method: 'POST',
      body: { name: 'short', scopes: ['read'], expiresInSeconds: 60 },
    });
    await controller.db.prisma.apiToken.update({
      where: { id: created.body.id },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    expect((await authedFetch(controller.httpUrl, created.body.token)('/v1/routers')).status).toBe(401);
    expect((await admin('/v1/tokens')).body.items.find((t: { id: string }) => t.id === created.body.id).state).toBe(
      'expired',
    );
  });

  it('wrong scope: 403 naming the scope (read cannot write, write cannot administer, enroll can only enroll)', async () => {
    const make = async (scopes: string[]) =>
      authedFetch(
        controller.httpUrl,
        (await admin('/v1/tokens', { method: 'POST', body: { name: scopes.join('+'), scopes } })).body.token,
      );
    const reader = await make(['read']);
    const writer = await make(['write']);
    const enroller = await make(['enroll']);
    expect((await reader('/v1/tokens', { method: 'POST', body: { name: 'x', scopes: ['admin'] } })).status).toBe(403);
    const w = await writer('/v1/tokens', { method: 'POST', body: { name: 'x', scopes: ['admin'] } });
    expect(w.status).toBe(403);
    expect(w.body.message).toMatch(/"admin" scope/);
    expect((await writer('/v1/tokens')).status).toBe(403);
    expect((await reader('/v1/enrollment-tokens', { method: 'POST', body: {} })).status).toBe(403);
    expect((await enroller('/v1/enrollment-tokens', { method: 'POST', body: {} })).status).toBe(201);
    expect((await enroller('/v1/routers')).status).toBe(403);
    expect(
      (
        await writer('/v1/routers/x/credential', {
          method: 'PUT',
          body: { host: 'h', username: 'root', authType: 'password', password: 'p' },
        })
      ).status,
    ).toBe(403);
  });

  it('security headers on every response: API, errors, 404 and the docs (with a CSP Swagger UI can live with)', async () => {
    const responses = [
      await fetch(`${controller.httpUrl}/v1/routers`, {
        headers: {
          authorization: `Bearer ${(await controller.tokens.create({ name: 'h', owner: 'h', scopes: ['read'], createdBy: 't' })).secret}`,
        },
      }),
      await fetch(`${controller.httpUrl}/v1/routers`),
      await fetch(`${controller.httpUrl}/nope`),
      await fetch(`${controller.httpUrl}/healthz`),
    ];
    for (const res of responses) {
      expect(res.headers.get('x-content-type-options'), res.url).toBe('nosniff');
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    }
    const docs = await fetch(`${controller.httpUrl}/docs/`);
    expect(docs.status).toBe(200);
    const csp = docs.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    // Every script the UI page loads is same-origin (the CSP would block anything else).
    const html = await docs.text();
    for (const src of html.matchAll(/<script[^>]*src="([^"]+)"/g)) expect(src[1]!.startsWith('http')).toBe(false);
    expect(html).not.toMatch(/<script>(?!\s*<\/script>)/);
  });
});

describe('failed authentication is rate limited per client address', () => {
  let db: TestDatabase;
  let controller: Controller;
  let token: string;

  beforeAll(async () => {
    db = await createPgliteDatabase();
    ({ controller, token } = await startTestController(db, {
      security: { insecureAgents: true, authFailuresPerMinute: 5 },
    }));
  });
  afterAll(async () => {
    await controller?.close();
    await db?.drop();
  });

  it('after the limit, 429 with Retry-After for failing requests from that address; health stays reachable', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) {
      statuses.push(
        (await fetch(`${controller.httpUrl}/v1/routers`, { headers: { authorization: `Bearer wft_guess${i}` } }))
          .status,
      );
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429]);
    const blocked = await fetch(`${controller.httpUrl}/v1/routers`);
    expect(blocked.status).toBe(429);
    const retryAfter = Number(blocked.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(await blocked.json()).toMatchObject({ error: 'too_many_failures' });
    expect((await fetch(`${controller.httpUrl}/healthz`)).status).toBe(200);
  });

  it('still serves a valid token from a limited address (a failing script behind the same NAT locks no one out)', async () => {
    const guess = await fetch(`${controller.httpUrl}/v1/routers`, {
      headers: { authorization: 'Bearer wft_guess-again' },
    });
    expect(guess.status).toBe(429);
    const valid = await fetch(`${controller.httpUrl}/v1/routers`, { headers: { authorization: `Bearer ${token}` } });
    expect(valid.status).toBe(200);
    // A valid token does not lift the limit for the failing requests.
    const after = await fetch(`${controller.httpUrl}/v1/routers`, {
      headers: { authorization: 'Bearer wft_guess-more' },
    });
    expect(after.status).toBe(429);
  });
});
