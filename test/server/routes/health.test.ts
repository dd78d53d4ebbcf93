import { afterAll, describe, expect, it } from 'vitest';
import type { Controller } from '../../../server/controller.js';
import { eventually, startTestController } from '../../support/controller.js';
import { createPostgresDatabase, type TestDatabase } from '../../support/databases.js';
import { TcpProxy } from '../../support/tcp-proxy.js';

/** PostgreSQL reached through a forwarder the test can cut, as a database restart or a lost network would. */
describe('health while the database goes away and comes back (PostgreSQL)', () => {
  let db: TestDatabase | undefined;
  let controller: Controller | undefined;
  const proxy = new TcpProxy('127.0.0.1', 5432);
  afterAll(async () => {
    await proxy.restore().catch(() => {});
    await controller?.close();
    await proxy.cut();
    await db?.drop();
  });

  it('reports degraded on /healthz and 503 on /readyz while it is away, ok again when it returns', async () => {
    db = await createPostgresDatabase();
    const port = await proxy.start();
    const url = new URL(db.databaseUrl!);
    url.port = String(port);
    controller = (await startTestController({ ...db, databaseUrl: url.toString() })).controller;
    const get = async (path: string) => {
      const res = await fetch(`${controller!.httpUrl}${path}`);
      return {
        status: res.status,
        body: (await res.json()) as { status: string; checks: { database: { error?: string } } },
      };
    };

    expect(await get('/healthz')).toMatchObject({ status: 200, body: { ok: true, status: 'ok' } });
    expect(await get('/readyz')).toMatchObject({
      status: 200,
      body: { status: 'ok', checks: { database: { ok: true }, tasks: { ok: true } } },
    });

    await proxy.cut();
    const away = await eventually(
      async () => {
        const r = await get('/readyz');
        return r.status === 503 ? r : undefined;
      },
      10_000,
      '/readyz 503',
    );
    expect(away.body).toMatchObject({ ok: true, status: 'degraded', checks: { database: { ok: false } } });
    expect(away.body.checks.database.error).toEqual(expect.any(String));
    expect(JSON.stringify(away.body)).not.toMatch(/postgresql:\/\//);
    // Liveness stays 200: a supervisor must not restart a controller that only waits for its database.
    expect(await get('/healthz')).toMatchObject({ status: 200, body: { status: 'degraded' } });

    await proxy.restore();
    await eventually(async () => (await get('/readyz')).status === 200, 20_000, '/readyz 200 again');
    expect((await get('/healthz')).body.status).toBe('ok');
  }, 60_000);
});
