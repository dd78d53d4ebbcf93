import { afterAll, describe, expect, it } from 'vitest';
import { startSimulatedFleet, stopFleet } from '../../agent/sim/simulated-fleet.js';
import { defaultFixturesDir, fixtureModels } from '../../agent/sim/fixtures.js';
import type { SimulatedRouter } from '../../agent/sim/simulated-router.js';
import type { Controller } from '../../server/controller.js';
import { eventually, startTestController } from '../support/controller.js';
import { createPostgresDatabase, type TestDatabase } from '../support/databases.js';
import { TcpProxy } from '../support/tcp-proxy.js';

const REDIS_URL = process.env.WRTFLEET_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const OUTAGE_MS = 6_000;

/**
 * PostgreSQL goes away mid-rollout (reached through a forwarder the test cuts, as a database
 * restart would look to the controller) and comes back: the agents' streams stay open, the
 * controller retries, and the rollout completes with every router applied.
 */
describe('PostgreSQL away for a few seconds mid-rollout (PostgreSQL + Redis)', () => {
  let db: TestDatabase | undefined;
  let controller: Controller | undefined;
  let fleet: SimulatedRouter[] = [];
  const proxy = new TcpProxy('127.0.0.1', 5432);
  afterAll(async () => {
    await proxy.restore().catch(() => {});
    await stopFleet(fleet);
    await controller?.close();
    await proxy.cut();
    await db?.drop();
  });

  it('keeps every stream, reports degraded meanwhile, and completes the rollout', async () => {
    db = await createPostgresDatabase();
    const url = new URL(db.databaseUrl!);
    url.port = String(await proxy.start());
    const started = await startTestController({ ...db, databaseUrl: url.toString() }, { redisUrl: REDIS_URL });
    controller = started.controller;
    const api = started.fetch;
    fleet = await startSimulatedFleet({
      controller: controller.grpcAddress,
      fixtureRoots: await fixtureModels(defaultFixturesDir()),
      perModel: 4,
      applyDelayMs: 300,
      reconnect: { jitterWindowMs: 500, initialDelayMs: 100, maxDelayMs: 1_000 },
    });
    await eventually(
      async () => (await api('/v1/routers?status=online&limit=100')).body.items?.length === 12,
      20_000,
      '12 online',
    );
    expect(
      (await api('/v1/profiles/site', { method: 'PUT', body: { spec: { l3Rewrite: { ttl: { value: 100 } } } } }))
        .status,
    ).toBe(201);
    const rollout = (
      await api('/v1/rollouts', {
        method: 'POST',
        body: { profile: 'site', selector: { all: true }, strategy: { canary: 1, batchSize: 2 } },
      })
    ).body;
    await eventually(
      async () => (await api(`/v1/rollouts/${rollout.id}`)).body.counts?.applied >= 2,
      60_000,
      'two applied',
    );

    await proxy.cut();
    const health = await fetch(`${controller.httpUrl}/healthz`).then((r) => r.json());
    await new Promise((r) => setTimeout(r, OUTAGE_MS));
    const readyWhileAway = await fetch(`${controller.httpUrl}/readyz`);
    await proxy.restore();

    const done = await eventually(
      async () => {
        const r = (await api(`/v1/rollouts/${rollout.id}`)).body;
        return r.state === 'completed' || r.state === 'paused' || r.state === 'failed' ? r : undefined;
      },
      60_000,
      'rollout finished',
    );
    expect(readyWhileAway.status).toBe(503);
    expect(['ok', 'degraded']).toContain(health.status);
    expect(done).toMatchObject({ state: 'completed', counts: { applied: 12 } });
    for (const r of fleet) expect(r.applied, r.link.address).toMatchObject({ profile: 'site' });
    // No agent had to reconnect: the controller closed no stream for its own database trouble.
    expect(fleet.map((r) => r.link.sessions)).toEqual(fleet.map(() => 1));
    expect(started.logs.filter((l) => /closing agent stream|missed its heartbeats/.test(l))).toEqual([]);
    expect((await api('/v1/audit/verify')).body).toMatchObject({ ok: true });
  }, 150_000);
});
