import { stat, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Controller } from '../../../server/controller.js';
import { createPgliteDatabase, type TestDatabase } from '../../support/databases.js';
import { apiClient, startInjectedController } from '../../support/controller.js';

describe('REST authentication with scoped API tokens', () => {
  let db: TestDatabase;
  let controller: Controller;

  beforeAll(async () => {
    db = await createPgliteDatabase();
    ({ controller } = await startInjectedController(db));
  });
  afterAll(async () => {
    await controller?.close();
    await db?.drop();
  });

  it('first start wrote an admin token to a 0600 file in the data directory, and it works', async () => {
    expect(controller.adminTokenFile).toBe(path.resolve(db.dataDir, 'admin-token'));
    const mode = (await stat(controller.adminTokenFile!)).mode & 0o777;
    expect(mode).toBe(0o600);
    const token = (await readFile(controller.adminTokenFile!, 'utf8')).trim();
    expect(token).toMatch(/^wft_/);
    expect((await apiClient(controller, token)('/v1/routers')).status).toBe(200);
    // Only the hash is stored.
    const rows = await controller.db.prisma.apiToken.findMany();
    expect(JSON.stringify(rows)).not.toContain(token);
  });

  it('no token: 401 JSON; health and the OpenAPI document stay public', async () => {
    const res = await controller.http.inject({ url: '/v1/routers' });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ error: 'unauthenticated' });
    expect((await controller.http.inject({ url: '/healthz' })).statusCode).toBe(200);
    expect((await controller.http.inject({ url: '/docs/json' })).statusCode).toBe(200);
  });

  it('an unknown, malformed, expired or revoked token is 401', async () => {
    const expired = await controller.tokens.create({
      name: 'old',
      owner: 'o',
      scopes: ['read'],
      expiresAt: new Date(Date.now() - 1000),
      createdBy: 't',
    });
    const revoked = await controller.tokens.create({ name: 'gone', owner: 'o', scopes: ['read'], createdBy: 't' });
    await controller.tokens.revoke(revoked.record.id, { actor: 'test' });
    for (const t of ['wft_nope', 'garbage', expired.secret, revoked.secret]) {
      expect((await apiClient(controller, t)('/v1/routers')).status, t.slice(0, 8)).toBe(401);
    }
  });

  it('a read token may read but not write: 403 names the scope', async () => {
    const { secret } = await controller.tokens.create({
      name: 'viewer',
      owner: 'viewer',
      scopes: ['read'],
      createdBy: 't',
    });
    const api = apiClient(controller, secret);
    expect((await api('/v1/routers')).status).toBe(200);
    const write = await api('/v1/routers', { method: 'POST', body: {} });
    expect(write.status).toBe(403);
    expect(write.body.message).toMatch(/"write" scope/);
  });
});
