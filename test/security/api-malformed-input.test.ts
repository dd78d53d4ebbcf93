import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Controller } from '../../server/controller.js';
import { startTestController, type ApiResponse, type authedFetch } from '../support/controller.js';
import { createPostgresDatabase, type TestDatabase } from '../support/databases.js';

/**
 * Requests of shapes that pass a naive schema check and then break the database or the
 * process: integers past what a column holds, crafted keyset cursors, dates that are not
 * dates, deep nesting, lone surrogates. Each must be a 400 in the documented error shape that
 * names the offending field.
 */

interface ErrorBody {
  error: string;
  message: string;
  details?: { path: string; in?: string; message: string }[];
}

const cursorOf = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('malformed requests get a 400 naming the field', () => {
  let db: TestDatabase;
  let controller: Controller;
  let api: ReturnType<typeof authedFetch>;
  let routerId: string;

  beforeAll(async () => {
    db = await createPostgresDatabase();
    ({ controller, fetch: api } = await startTestController(db));
    const router = await controller.db.prisma.router.create({ data: { name: 'r1', identity: 'test:malformed' } });
    routerId = router.id;
    const profile = await api('/v1/profiles/home', {
      method: 'PUT',
      body: { spec: { l3Rewrite: { ttl: { value: 65 } } } },
    });
    expect(profile.status).toBe(201);
  });
  afterAll(async () => {
    await controller?.close();
    await db?.drop();
  });

  function expect400(res: ApiResponse<ErrorBody>, field: string, where: string) {
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(typeof res.body.error).toBe('string');
    expect(typeof res.body.message).toBe('string');
    expect(res.body.details?.length, JSON.stringify(res.body)).toBeGreaterThan(0);
    const first = res.body.details![0]!;
    expect(first.path.split('/')[1], JSON.stringify(first)).toBe(field);
    expect(first.in).toBe(where);
  }

  it('pinnedRevision past int32 in an assignment', async () => {
    const res = await api<ErrorBody>(`/v1/routers/${routerId}/assignment`, {
      method: 'PUT',
      body: { profile: 'home', pinnedRevision: 2147483648 },
    });
    expect400(res, 'pinnedRevision', 'body');
  });

  it('a revision number of 1e20 in the path', async () => {
    expect400(await api<ErrorBody>('/v1/profiles/home/revisions/1e20'), 'revision', 'params');
  });

  it('an audit cursor past bigint', async () => {
    expect400(await api<ErrorBody>('/v1/audit?cursor=9999999999999999999'), 'cursor', 'querystring');
  });

  it('revision past int32 in a plan preview and a rollout', async () => {
    const body = { profile: 'home', revision: 2147483648, selector: { all: true } };
    expect400(await api<ErrorBody>('/v1/plan-preview', { method: 'POST', body }), 'revision', 'body');
    expect400(await api<ErrorBody>('/v1/rollouts', { method: 'POST', body }), 'revision', 'body');
    expect400(
      await api<ErrorBody>(`/v1/routers/${routerId}/plan?profile=home&revision=2147483648`),
      'revision',
      'querystring',
    );
  });

  it('router list cursors crafted: NUL in the id, dates out of range, year 0000, wrong types', async () => {
    for (const crafted of [
      ['2025-01-01T00:00:00.000Z', 'abc\u0000def'],
      ['-271821-04-20T00:00:00.000Z', 'x'],
      ['+275760-09-13T00:00:00.000Z', 'x'],
      ['0000-01-01T00:00:00.000Z', 'x'],
      [-8.64e15, 'x'],
      ['2025-01-01T00:00:00.000Z', 5],
      ['2025-01-01', 'x'],
      { at: 1 },
    ]) {
      const res = await api<ErrorBody>(`/v1/routers?cursor=${cursorOf(crafted)}`);
      expect400(res, 'cursor', 'querystring');
    }
  });

  it('NUL in the cursors and filters passed to the database as text', async () => {
    expect400(await api<ErrorBody>('/v1/profiles?cursor=a%00b'), 'cursor', 'querystring');
    expect400(await api<ErrorBody>(`/v1/audit?actor=a%00b`), 'actor', 'querystring');
  });

  it('dates that pass the date-time format and are not instants', async () => {
    for (const at of ['2025-06-30T23:59:60Z', '0000-01-01T00:00:00Z', '2025-02-30T00:00:00Z']) {
      expect400(await api<ErrorBody>(`/v1/audit?from=${encodeURIComponent(at)}`), 'from', 'querystring');
      expect400(
        await api<ErrorBody>('/v1/rollouts', {
          method: 'POST',
          body: { profile: 'home', selector: { all: true }, startAt: at },
        }),
        'startAt',
        'body',
      );
    }
  });

  it('overrides nested 10,000 and 20,000 deep in a small body', async () => {
    for (const depth of [10_000, 20_000]) {
      const overrides = `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
      const res = await api<ErrorBody>(`/v1/routers/${routerId}/assignment`, {
        method: 'PUT',
        body: `{"profile":"home","overrides":${overrides}}`,
      });
      expect400(res, 'overrides', 'body');
    }
    const arrays = await api<ErrorBody>(`/v1/routers/${routerId}/assignment`, {
      method: 'PUT',
      body: `{"profile":"home","overrides":{"a":${'['.repeat(15_000)}${']'.repeat(15_000)}}}`,
    });
    expect400(arrays, 'overrides', 'body');
  });

  it('a lone surrogate in an onboarding name', async () => {
    const res = await api<ErrorBody>('/v1/onboarding', {
      method: 'POST',
      body: '{"host":"192.0.2.1","password":"pw","name":"r\\ud800"}',
    });
    expect400(res, 'name', 'body');
  });

  it('still serves the valid forms of the same requests', async () => {
    expect((await api('/v1/profiles/home/revisions/1')).status).toBe(200);
    expect((await api('/v1/audit?from=2025-06-30T23:59:59Z')).status).toBe(200);
    const page = await api<{ nextCursor: string | null }>('/v1/routers?limit=1');
    expect(page.status).toBe(200);
    const assign = await api(`/v1/routers/${routerId}/assignment`, {
      method: 'PUT',
      body: { profile: 'home', pinnedRevision: 1, overrides: { l3Rewrite: { ttl: { value: 70 } } } },
    });
    expect(assign.status).toBe(200);
  });
});
