import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulatedFleet, stopFleet } from '../../../agent/sim/simulated-fleet.js';
import { defaultFixturesDir, fixtureModels } from '../../../agent/sim/fixtures.js';
import type { SimulatedRouter } from '../../../agent/sim/simulated-router.js';
import type { Controller } from '../../../server/controller.js';
import { jobEvents, targetsOf, waitForJob } from '../../support/commands.js';
import { authedFetch, eventually, startTestController } from '../../support/controller.js';
import { createPostgresDatabase, type TestDatabase } from '../../support/databases.js';

const REDIS_URL = process.env.WRTFLEET_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const FAST = { jitterWindowMs: 300, initialDelayMs: 50, maxDelayMs: 500 };

/**
 * Two replicas on one PostgreSQL and one Redis, each holding the streams of half the fleet
 * (simulated routers over real gRPC; serial 001 on A, 002 on B): a command started on either reaches every router,
 * and either replica reports its progress.
 */
describe('commands across two replicas (PostgreSQL + BullMQ on Redis)', () => {
  let db: TestDatabase;
  const replicas: { controller: Controller; token: string; api: ReturnType<typeof authedFetch> }[] = [];
  const fleets: SimulatedRouter[][] = [];

  beforeAll(async () => {
    db = await createPostgresDatabase();
    // An installation of its own on the shared Redis: no other test's bus crosses this one.
    const redisPrefix = `wf-test-${randomUUID().slice(0, 8)}`;
    for (let i = 0; i < 2; i++) {
      const { controller, token, fetch } = await startTestController(db, {
        redisUrl: REDIS_URL,
        redisPrefix,
        security: { insecureAgents: true },
      });
      replicas.push({ controller, token, api: fetch });
      fleets.push(
        await startSimulatedFleet({
          controller: controller.grpcAddress,
          fixtureRoots: await fixtureModels(defaultFixturesDir()),
          perModel: 1,
          firstSerial: i + 1,
          reconnect: FAST,
        }),
      );
    }
    for (const [i, { controller }] of replicas.entries())
      await eventually(async () => controller.gateway.sessions.size === 3, 15_000, `three agents on replica ${i}`);
  }, 120_000);

  afterAll(async () => {
    for (const fleet of fleets) await stopFleet(fleet);
    for (const { controller } of replicas) await controller.close();
    await db?.drop();
  });

  it('a job started on A reaches the routers on B; B reports its progress live', async () => {
    const [a, b] = replicas as [(typeof replicas)[0], (typeof replicas)[0]];
    const created = await a.api<{ id: string; total: number }>('/v1/commands', {
      method: 'POST',
      body: { kind: 'check_drift', selector: { all: true } },
    });
    expect(created.status).toBe(201);
    expect(created.body.total).toBe(6);
    const frames = await jobEvents(b.controller.httpUrl, b.token, created.body.id, 30_000);
    expect(frames.at(-1)?.event).toBe('end');
    const job = await waitForJob(b.api, created.body.id, (j) => j.state === 'completed');
    expect(job.counts.succeeded).toBe(6);
    const onB = new Set(
      (await b.controller.db.prisma.router.findMany({ where: { identity: { endsWith: ':002' } } })).map((r) => r.id),
    );
    expect(onB.size).toBe(3);
    const targets = await targetsOf(a.api, created.body.id);
    // The agents on B answered (the output is what each found: nothing applied yet here).
    for (const id of onB) expect(targets.get(id)?.output).toMatch(/nothing applied/);
    // B's stream showed each of A's and B's routers reaching its outcome.
    const seen = new Set(
      frames.flatMap((f) =>
        f.event === 'target' && (f.data as { state: string }).state === 'succeeded'
          ? [(f.data as { routerId: string }).routerId]
          : [],
      ),
    );
    expect(seen.size).toBe(6);
  });

  it('a job started on B to a router on A, and cancelled from A, ends with the same state on both', async () => {
    const [a, b] = replicas as [(typeof replicas)[0], (typeof replicas)[0]];
    const onA = await a.controller.db.prisma.router.findFirstOrThrow({ where: { identity: { endsWith: ':001' } } });
    const created = await b.api<{ id: string }>(`/v1/routers/${onA.id}/commands`, {
      method: 'POST',
      body: { kind: 'reprobe' },
    });
    expect(created.status).toBe(201);
    const done = await waitForJob(a.api, created.body.id, (j) => j.state === 'completed');
    expect(done.counts.succeeded).toBe(1);
    expect((await b.api(`/v1/commands/${created.body.id}`)).body).toEqual(done);
    // Cancelling a finished job on the other replica is the same refusal as on its own.
    const cancel = await a.api(`/v1/commands/${created.body.id}/cancel`, { method: 'POST' });
    expect(cancel.status).toBe(409);
  });
});
