import { afterAll, describe, expect, it } from 'vitest';
import { stopFleet } from '../../agent/sim/simulated-fleet.js';
import type { SimulatedRouter } from '../../agent/sim/simulated-router.js';
import type { Controller } from '../../server/controller.js';
import { startTestController } from '../support/controller.js';
import { createPostgresDatabase, type TestDatabase } from '../support/databases.js';
import {
  appliedOnceEach,
  FAULT_TEST_LIVENESS,
  type HealthBody,
  rolloutFinished,
  startFaultFleet,
  startRolloutMidway,
} from '../support/rollout-scenario.js';
import { TcpProxy } from '../support/tcp-proxy.js';

const REDIS_URL = process.env.WRTFLEET_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const OUTAGE_MS = 5_000;

/**
 * The network to PostgreSQL is lost mid-rollout (a forwarder the test cuts: every connection
 * reset, new ones refused, with no goodbye from the server) and comes back. This is what
 * postgres-restart.test.ts does not show: there the server ends its sessions itself
 * (57P01, "terminating connection due to administrator command"); here the driver only sees
 * ECONNRESET and ECONNREFUSED, the other branch of isDatabaseUnavailable.
 */
describe('the network to PostgreSQL lost for a few seconds mid-rollout (PostgreSQL + Redis)', () => {
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

  it('keeps every stream, reports degraded meanwhile, and completes the rollout applying each router once', async () => {
    db = await createPostgresDatabase();
    const url = new URL(db.databaseUrl!);
    url.port = String(await proxy.start());
    const started = await startTestController(
      { ...db, databaseUrl: url.toString() },
      { redisUrl: REDIS_URL, ...FAULT_TEST_LIVENESS },
    );
    controller = started.controller;
    const { fetch: api, logs } = started;
    fleet = await startFaultFleet(controller.grpcAddress);
    const rollout = await startRolloutMidway(api, fleet.length);

    const logsBefore = logs.length;
    await proxy.cut();
    const readyWhileAway = await fetch(`${controller.httpUrl}/readyz`);
    const awayBody = (await readyWhileAway.json()) as HealthBody;
    await new Promise((r) => setTimeout(r, OUTAGE_MS));
    await proxy.restore();

    const done = await rolloutFinished(api, rollout.id, 30_000);
    expect(readyWhileAway.status).toBe(503);
    expect(awayBody).toMatchObject({ status: 'degraded', checks: { database: { ok: false } } });
    expect(done).toMatchObject({ state: 'completed', counts: { applied: fleet.length, failed: 0, skipped: 0 } });
    await appliedOnceEach(api, fleet, rollout);
    // No agent had to reconnect: the controller closed no stream for its own database trouble.
    expect(fleet.map((r) => r.link.sessions)).toEqual(fleet.map(() => 1));
    expect(logs.filter((l) => /closing agent stream|missed its heartbeats/.test(l))).toEqual([]);
    const outageLog = logs.slice(logsBefore).map((l) => JSON.parse(l) as { msg: string });
    const lost = outageLog.findIndex((l) => /database unavailable/i.test(l.msg));
    expect(lost, 'a log line saying the database went away').toBeGreaterThanOrEqual(0);
    expect(
      outageLog.findIndex((l) => /database is back/i.test(l.msg)),
      'a later log line saying it came back',
    ).toBeGreaterThan(lost);
    expect((await api('/v1/audit/verify')).body).toMatchObject({ ok: true });
  }, 90_000);
});
