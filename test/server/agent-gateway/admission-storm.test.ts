import { afterAll, describe, expect, it } from 'vitest';
import { startSimulatedFleet, stopFleet } from '../../../agent/sim/simulated-fleet.js';
import { defaultFixturesDir, fixtureModels } from '../../../agent/sim/fixtures.js';
import type { SimulatedRouter } from '../../../agent/sim/simulated-router.js';
import type { Controller } from '../../../server/controller.js';
import { eventually, startTestController } from '../../support/controller.js';
import { createPostgresDatabase, type TestDatabase } from '../../support/databases.js';

const PER_MODEL = 40;

describe('a connect storm past admission control (PostgreSQL, real gRPC streams)', () => {
  let db: TestDatabase | undefined;
  let controller: Controller | undefined;
  let fleet: SimulatedRouter[] = [];
  afterAll(async () => {
    await stopFleet(fleet);
    await controller?.close();
    await db?.drop();
  });

  it('refuses the Hellos past its limit with a time to come back, and every agent is online soon after, none closed for an error', async () => {
    db = await createPostgresDatabase();
    const started = await startTestController(db, { maxPendingHellos: 4 });
    controller = started.controller;
    const refusedWith: number[] = [];
    fleet = await startSimulatedFleet({
      controller: controller.grpcAddress,
      fixtureRoots: await fixtureModels(defaultFixturesDir()),
      perModel: PER_MODEL,
    });
    for (const router of fleet)
      router.link.on('retry', (ms: number) => {
        if (router.link.state === 'waiting') refusedWith.push(ms);
      });
    const total = fleet.length;
    await eventually(() => Promise.resolve(controller!.gateway.sessions.size === total), 45_000, `${total} streams`);
    const closed = Object.fromEntries(controller.gateway.closedStreams);
    // Only "busy, come back later": no stream was closed for the controller's own trouble.
    expect(Object.keys(closed)).toEqual(['RESOURCE_EXHAUSTED']);
    expect(closed.RESOURCE_EXHAUSTED).toBeGreaterThan(0);
    // Each refused agent waited what it was told (at least a second), not its own backoff.
    expect(refusedWith.length).toBeGreaterThan(0);
    expect(Math.min(...refusedWith)).toBeGreaterThanOrEqual(900);
    const metrics = await started.fetch('/metrics');
    expect(String(metrics.body)).toMatch(
      new RegExp(`wrtfleet_agent_streams_closed_total\\{code="RESOURCE_EXHAUSTED"\\} ${closed.RESOURCE_EXHAUSTED}`),
    );
    expect(String(metrics.body)).toMatch(/wrtfleet_agent_hellos_in_progress 0/);
    const online = await started.fetch('/v1/routers/counts');
    expect(online.body).toMatchObject({ total, online: total });
  });
});
