/**
 * A profile revision stores its spec with every default filled in, not as typed, and the API
 * says so: what GET shows for a revision is what routers apply (before router overrides), so
 * the console's "as saved" pane (web-admin/src/pages/profiles/spec-defaults.ts) shows the truth.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_PROFILE_SPEC } from '../../../core/profile-spec.js';
import { buildOpenApiDocument } from '../../../server/openapi-document.js';
import type { Controller } from '../../../server/controller.js';
import { createPgliteDatabase, type TestDatabase } from '../../support/databases.js';
import { authedFetch, startInjectedController } from '../../support/controller.js';

describe('REST: a profile revision stores its spec with defaults filled in', () => {
  let db: TestDatabase;
  let controller: Controller;
  let api: ReturnType<typeof authedFetch>;

  beforeAll(async () => {
    db = await createPgliteDatabase();
    ({ controller, fetch: api } = await startInjectedController(db));
  });

  afterAll(async () => {
    await controller?.close();
    await db?.drop();
  });

  it('a spec that turns on TTL alone is stored with the other three rewrites on', async () => {
    const put = await api('/v1/profiles/ttl-only', {
      method: 'PUT',
      body: { spec: { l3Rewrite: { ttl: { enabled: true, value: 128 } } } },
    });
    expect(put.status).toBe(201);
    const expected = {
      ...DEFAULT_PROFILE_SPEC,
      l3Rewrite: { ...DEFAULT_PROFILE_SPEC.l3Rewrite, ttl: { enabled: true, value: 128 } },
    };
    expect(put.body.spec).toEqual(expected);
    expect(put.body.spec.l3Rewrite).toMatchObject({ ipid: true, tcpts: true, tcpwin: { enabled: true } });
    for (const path of ['/v1/profiles/ttl-only', '/v1/profiles/ttl-only/revisions/1']) {
      const got = await api(path);
      expect(got.status, path).toBe(200);
      expect(got.body.spec, path).toEqual(expected);
    }
    // The same spec typed in full is no change: revisions compare as stored.
    const again = await api('/v1/profiles/ttl-only', { method: 'PUT', body: { spec: expected, baseRevision: 1 } });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ changed: false, revision: 1 });
  });

  it('the OpenAPI document says the stored spec has its defaults filled in', async () => {
    const doc = (await buildOpenApiDocument()) as unknown as {
      paths: Record<string, Record<string, { description?: string; responses: Record<string, unknown> }>>;
    };
    const put = doc.paths['/v1/profiles/{name}']!.put!;
    expect(put.description).toContain('The spec is stored with every default filled in, not as sent');
    const views = [
      put.responses['201'],
      doc.paths['/v1/profiles/{name}']!.get!.responses['200'],
      doc.paths['/v1/profiles/{name}/revisions/{revision}']!.get!.responses['200'],
    ];
    for (const view of views) {
      const spec = (view as { content: Record<string, { schema: { properties: { spec: { description?: string } } } }> })
        .content['application/json']!.schema.properties.spec;
      expect(spec.description).toMatch(/^The revision's spec as stored, and as routers apply it/);
      expect(spec.description).toContain("holds the profile spec schema's `default`");
    }
  });
});
