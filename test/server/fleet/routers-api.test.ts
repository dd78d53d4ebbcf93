import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Controller } from '../../../server/controller.js';
import type { RouterSummary } from '../../../server/fleet/router-directory.js';
import { createPgliteDatabase, type TestDatabase } from '../../support/databases.js';
import { authedFetch, startInjectedController } from '../../support/controller.js';

describe('REST: GET /v1/routers and /v1/routers/{id}', () => {
  let db: TestDatabase;
  let controller: Controller;

  let api: ReturnType<typeof authedFetch>;
  const get = async (path: string) => {
    const res = await api(path);
    return { status: res.status, type: res.headers.get('content-type') ?? '', body: res.body };
  };

  beforeAll(async () => {
    db = await createPgliteDatabase();
    ({ controller, fetch: api } = await startInjectedController(db));
    const socs = ['MT7621', 'QCA9558', 'MT7986'];
    const statuses = ['online', 'offline', 'never_seen'] as const;
    const base = Date.parse('2026-01-01T00:00:00Z');
    await controller.db.prisma.router.createMany({
      data: Array.from({ length: 30 }, (_, i) => ({
        name: `r${String(i).padStart(2, '0')}`,
        identity: `test:${i}`,
        soc: socs[i % 3]!,
        status: statuses[i % 3]!,
        // Five routers share each timestamp, so the cursor must break ties by id.
        createdAt: new Date(base + Math.floor(i / 5) * 1000),
      })),
    });
  });

  afterAll(async () => {
    await controller?.close();
    await db?.drop();
  });

  it('pages through every router exactly once with the cursor', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const { status, body } = await get(`/v1/routers?limit=7${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(status).toBe(200);
      expect(body.items.length).toBeLessThanOrEqual(7);
      seen.push(...body.items.map((r: RouterSummary) => r.name));
      cursor = body.nextCursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(5);
    expect(new Set(seen).size).toBe(30);
    expect(seen).toHaveLength(30);
  });

  it('filters by SoC (case-insensitive) and by status, and combines them', async () => {
    const bySoc = await get('/v1/routers?soc=mt7621&limit=100');
    expect(bySoc.body.items).toHaveLength(10);
    expect(bySoc.body.items.every((r: RouterSummary) => r.soc === 'MT7621')).toBe(true);
    const online = await get('/v1/routers?status=online&limit=100');
    expect(online.body.items).toHaveLength(10);
    const both = await get('/v1/routers?status=offline&soc=QCA9558&limit=100');
    expect(both.body.items.every((r: RouterSummary) => r.status === 'offline' && r.soc === 'QCA9558')).toBe(true);
    // The seeding pairs SoC and status by index (i % 3), so QCA9558 routers are all offline.
    expect(both.body.items.length).toBe(10);
    const none = await get('/v1/routers?status=online&soc=QCA9558&limit=100');
    expect(none.body.items).toEqual([]);
  });

  it.each([
    ['/v1/routers?limit=0', 'limit'],
    ['/v1/routers?limit=abc', 'limit'],
    ['/v1/routers?limit=100000', 'limit'],
    ['/v1/routers?status=sleeping', 'status'],
    ['/v1/routers?colour=blue', 'colour'],
    ['/v1/routers?cursor=not-a-cursor', 'cursor'],
  ])('%s is a 400 naming the parameter "%s"', async (path, param) => {
    const { status, type, body } = await get(path);
    expect(status).toBe(400);
    expect(type).toMatch(/application\/json/);
    expect(body.error).toBe('invalid_request');
    expect(body.message).toContain(param);
    expect(body.details[0].path).toBe(`/${param}`);
  });

  it('answers 404 JSON for an unknown router id and an unknown route', async () => {
    const missing = await get('/v1/routers/00000000-0000-0000-0000-000000000000');
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ error: 'not_found' });
    const route = await get('/v1/nothing-here');
    expect(route.status).toBe(404);
    expect(route.body.error).toBe('not_found');
  });

  it('publishes an OpenAPI 3 document with both routes, and Swagger UI', async () => {
    const { status, body } = await get('/docs/json');
    expect(status).toBe(200);
    expect(body.openapi).toMatch(/^3\./);
    expect(Object.keys(body.paths)).toEqual(expect.arrayContaining(['/v1/routers', '/v1/routers/{id}']));
    const ui = await controller.http.inject({ url: '/docs' });
    expect(ui.statusCode).toBe(200);
    expect(ui.body).toMatch(/swagger/i);
  });
});
