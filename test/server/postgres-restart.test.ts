import { afterAll, describe, expect, it } from 'vitest';
import { stopFleet } from '../../agent/sim/simulated-fleet.js';
import type { SimulatedRouter } from '../../agent/sim/simulated-router.js';
import type { Controller } from '../../server/controller.js';
import { eventually, startTestController } from '../support/controller.js';
import type { TestDatabase } from '../support/databases.js';
import { PrivatePostgres } from '../support/private-postgres.js';
import { PrivateRedis } from '../support/private-redis.js';
import {
  appliedOnceEach,
  FAULT_TEST_LIVENESS,
  healthOf,
  rolloutFinished,
  startFaultFleet,
  startRolloutMidway,
} from '../support/rollout-scenario.js';

/** How long the PostgreSQL server stays stopped before it is started again. */
const OUTAGE_MS = 5_000;

/**
 * The controller's PostgreSQL server is really stopped mid-rollout (`pg_ctl stop -m fast`: open
 * sessions are ended, new connections refused) and started again a few seconds later: the agents'
 * streams stay open, their messages wait for the database, and the rollout carries on from what
 * the database held when it went down.
 */
describe('PostgreSQL stopped and started again mid-rollout (a private cluster + a private Redis)', () => {
  const postgres = new PrivatePostgres();
  // A Redis of its own too: the test's BullMQ jobs and bus stay apart from every other test's.
  const redis = new PrivateRedis();
  let db: TestDatabase | undefined;
  let controller: Controller | undefined;
  let fleet: SimulatedRouter[] = [];
  afterAll(async () => {
    await stopFleet(fleet);
    await postgres.startServer().catch(() => {});
    await controller?.close();
    await db?.drop();
    await postgres.stop();
    await redis.stop();
  });

  it('keeps every stream, reports the outage, and completes the rollout applying each router once', async () => {
    await Promise.all([postgres.start(), redis.start()]);
    db = await postgres.createDatabase();
    const started = await startTestController(db, { redisUrl: redis.url, ...FAULT_TEST_LIVENESS });
    controller = started.controller;
    const { fetch: api, logs } = started;
    const health = (path: '/healthz' | '/readyz') => healthOf(controller!.httpUrl, path);
    fleet = await startFaultFleet(controller.grpcAddress);
    const rollout = await startRolloutMidway(api, fleet.length);

    const logsBefore = logs.length;
    await postgres.stopServer('fast');
    const away = await health('/healthz');
    const readyWhileAway = await health('/readyz');
    await new Promise((r) => setTimeout(r, OUTAGE_MS));
    await postgres.startServer();

    const done = await rolloutFinished(api, rollout.id, 30_000);
    await eventually(async () => (await health('/readyz')).status === 200, 10_000, '/readyz 200 again');

    // Liveness stays 200 and names the database as what is missing; readiness says 503.
    expect(away).toMatchObject({ status: 200, body: { status: 'degraded', checks: { database: { ok: false } } } });
    expect(away.body.checks.database.error).toEqual(expect.any(String));
    expect(JSON.stringify(away.body)).not.toMatch(/postgresql:\/\//);
    expect(readyWhileAway).toMatchObject({
      status: 503,
      body: { status: 'degraded', checks: { database: { ok: false } } },
    });
    expect((await health('/healthz')).body).toMatchObject({ status: 'ok', checks: { database: { ok: true } } });

    expect(done).toMatchObject({
      state: 'completed',
      total: fleet.length,
      finished: fleet.length,
      counts: { applied: fleet.length, failed: 0, rolled_back: 0, skipped: 0, queued: 0, sent: 0 },
    });
    await appliedOnceEach(api, fleet, rollout);
    // No agent had to reconnect: the controller closed no stream for its own database trouble.
    expect(fleet.map((r) => r.link.sessions)).toEqual(fleet.map(() => 1));
    expect(logs.filter((l) => /closing agent stream|agent disconnected|missed its heartbeats/.test(l))).toEqual([]);
    // What the operator reads in the log: the database went away, then came back.
    const outageLog = logs.slice(logsBefore).map((l) => JSON.parse(l) as { msg: string });
    const lost = outageLog.findIndex((l) => /database unavailable/i.test(l.msg));
    const back = outageLog.findIndex((l) => /database is back/i.test(l.msg));
    expect(lost, 'a log line saying the database went away').toBeGreaterThanOrEqual(0);
    expect(back, 'a later log line saying the database came back').toBeGreaterThan(lost);
    expect((await api('/v1/audit/verify')).body).toMatchObject({ ok: true });
    // About 40 s with the cluster's initdb on an idle machine; the margin is for a loaded one.
  }, 90_000);
});
