import { afterAll, describe, expect, it } from 'vitest';
import { stopFleet } from '../../agent/sim/simulated-fleet.js';
import type { SimulatedRouter } from '../../agent/sim/simulated-router.js';
import type { Controller } from '../../server/controller.js';
import { eventually, startTestController } from '../support/controller.js';
import { createPostgresDatabase, type TestDatabase } from '../support/databases.js';
import { PrivateRedis } from '../support/private-redis.js';
import {
  appliedOnceEach,
  FAULT_TEST_LIVENESS,
  healthOf,
  rolloutFinished,
  startFaultFleet,
  startRolloutMidway,
} from '../support/rollout-scenario.js';

/** How long the Redis server stays dead before it is started again. */
const OUTAGE_MS = 4_000;

/**
 * The controller's own Redis (BullMQ jobs, fleet bus) is killed mid-rollout and started again
 * on the same port, empty: the rollout's jobs and schedules are gone, so the controller must
 * carry on from what PostgreSQL holds. The agents' streams never depended on Redis.
 */
describe('Redis killed and restarted empty mid-rollout (PostgreSQL + a private Redis)', () => {
  const redis = new PrivateRedis();
  let db: TestDatabase | undefined;
  let controller: Controller | undefined;
  let fleet: SimulatedRouter[] = [];
  afterAll(async () => {
    await stopFleet(fleet);
    await controller?.close();
    await redis.stop();
    await db?.drop();
  });

  it('keeps every stream, reports the outage, and completes the rollout applying each router once', async () => {
    await redis.start();
    db = await createPostgresDatabase();
    const started = await startTestController(db, { redisUrl: redis.url, ...FAULT_TEST_LIVENESS });
    controller = started.controller;
    const { fetch: api, logs } = started;
    const health = (path: '/healthz' | '/readyz') => healthOf(controller!.httpUrl, path);
    fleet = await startFaultFleet(controller.grpcAddress);
    const rollout = await startRolloutMidway(api, fleet.length);

    const logsBefore = logs.length;
    await redis.kill();
    const away = await eventually(
      async () => {
        const r = await health('/healthz');
        return r.body.status === 'degraded' ? r : undefined;
      },
      10_000,
      '/healthz degraded',
    );
    const readyWhileAway = await health('/readyz');
    await new Promise((r) => setTimeout(r, OUTAGE_MS));
    await redis.restart();

    const done = await rolloutFinished(api, rollout.id, 30_000);
    await eventually(async () => (await health('/readyz')).status === 200, 10_000, '/readyz 200 again');

    // Liveness stays 200 and names Redis (the job queue) as what is missing; readiness says 503.
    expect(away).toMatchObject({ status: 200, body: { status: 'degraded', checks: { database: { ok: true } } } });
    expect(away.body.checks.tasks).toMatchObject({ ok: false, error: expect.any(String) });
    expect(readyWhileAway).toMatchObject({
      status: 503,
      body: { status: 'degraded', checks: { tasks: { ok: false } } },
    });
    expect((await health('/healthz')).body).toMatchObject({ status: 'ok', checks: { tasks: { ok: true } } });

    expect(done).toMatchObject({
      state: 'completed',
      total: fleet.length,
      finished: fleet.length,
      counts: { applied: fleet.length, failed: 0, rolled_back: 0, skipped: 0, queued: 0, sent: 0 },
    });
    await appliedOnceEach(api, fleet, rollout);
    // No agent had to reconnect: Redis going away is none of the streams' business.
    expect(fleet.map((r) => r.link.sessions)).toEqual(fleet.map(() => 1));
    expect(logs.filter((l) => /closing agent stream|agent disconnected/.test(l))).toEqual([]);
    // What the operator reads in the log: Redis went away, then came back.
    const outageLog = logs.slice(logsBefore).map((l) => JSON.parse(l) as { msg: string; level: number });
    const lost = outageLog.findIndex((l) => /redis unavailable/i.test(l.msg));
    const back = outageLog.findIndex((l) => /redis is back/i.test(l.msg));
    expect(lost, 'a log line saying Redis went away').toBeGreaterThanOrEqual(0);
    expect(back, 'a later log line saying Redis came back').toBeGreaterThan(lost);
    expect((await api('/v1/audit/verify')).body).toMatchObject({ ok: true });
    // About 30 s on an idle machine; the margin is for a loaded one.
  }, 90_000);
});
