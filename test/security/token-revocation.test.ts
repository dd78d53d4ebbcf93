import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Controller } from '../../server/controller.js';
import { authedFetch, startTestController } from '../support/controller.js';
import { createPgliteDatabase, type TestDatabase } from '../support/databases.js';

/** DELETE /v1/tokens/{id} is idempotent, and the OpenAPI document says so. */
describe('revoking an API token twice', () => {
  let db: TestDatabase;
  let controller: Controller;
  let admin: ReturnType<typeof authedFetch>;

  beforeAll(async () => {
    db = await createPgliteDatabase();
    ({ controller, fetch: admin } = await startTestController(db));
  });
  afterAll(async () => {
    await controller?.close();
    await db?.drop();
  });

  it('answers 204 both times, audits one revocation, and 404 only for an unknown id', async () => {
    const created = await admin('/v1/tokens', { method: 'POST', body: { name: 'twice', scopes: ['read'] } });
    expect(created.status).toBe(201);
    const id: string = created.body.id;
    expect((await admin(`/v1/tokens/${id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await admin(`/v1/tokens/${id}`, { method: 'DELETE' })).status).toBe(204);
    const unknown = await admin('/v1/tokens/no-such-token', { method: 'DELETE' });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ error: 'not_found', requestId: expect.any(String) });
    const revocations = await controller.db.prisma.auditEvent.count({
      where: { targetId: id, action: 'api_token.revoked' },
    });
    expect(revocations).toBe(1);
  });

  it('the OpenAPI document describes the same behaviour', async () => {
    const doc = (await admin('/docs/json')).body;
    const op = doc.paths['/v1/tokens/{id}'].delete;
    expect(op.description).toMatch(/already revoked answers 204/);
    expect(op.responses['204'].description).toMatch(/already/);
    expect(op.responses['404'].description).toMatch(/No API token has this id/);
  });
});
