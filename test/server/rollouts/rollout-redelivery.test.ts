import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulatedFleet, stopFleet } from '../../../agent/sim/simulated-fleet.js';
import { defaultFixturesDir, fixtureModels } from '../../../agent/sim/fixtures.js';
import type { SimulatedRouter } from '../../../agent/sim/simulated-router.js';
import type { Controller } from '../../../server/controller.js';
import type { FleetBus } from '../../../server/cluster/fleet-bus.js';
import { createPgliteDatabase, type TestDatabase } from '../../support/databases.js';
import { authedFetch, eventually, startTestController } from '../../support/controller.js';
import { rolloutFinished } from '../../support/rollout-scenario.js';

const FAST = { jitterWindowMs: 300, initialDelayMs: 50, maxDelayMs: 500 };

/**
 * A replica that claims a batch and dies before publishing it leaves the batch's routers
 * `sent` with nobody told: those whose streams other replicas hold would wait for a reconnection
 * that never comes, and the rollout would pause on their timeouts. Here the publish is dropped
 * (the death between the two is what cannot be timed from outside); the sweep must publish
 * again, once, and every router applies exactly once.
 */
describe('a batch whose desired-state publish was lost (embedded default)', () => {
  let db: TestDatabase;
  let controller: Controller;
  let api: ReturnType<typeof authedFetch>;
  let fleet: SimulatedRouter[] = [];
  let dropped: string[] = [];

  beforeAll(async () => {
    db = await createPgliteDatabase();
    // One-second heartbeats: the sweep runs every second.
    ({ controller, fetch: api } = await startTestController(db, {
      heartbeatIntervalSeconds: 1,
      security: { insecureAgents: true },
    }));
    fleet = await startSimulatedFleet({
      controller: controller.grpcAddress,
      fixtureRoots: await fixtureModels(defaultFixturesDir()),
      perModel: 2,
      reconnect: FAST,
    });
    await eventually(async () => controller.gateway.sessions.size === 6, 15_000, '6 agents connected');
    // The first publish of a batch is lost, as if its replica died right after the claim.
    const bus = (controller.rollouts as unknown as { bus: FleetBus }).bus;
    const publish = bus.publishDesired.bind(bus);
    bus.publishDesired = async (routerIds) => {
      if (dropped.length === 0) {
        dropped = routerIds;
        return;
      }
      return publish(routerIds);
    };
  });

  afterAll(async () => {
    await stopFleet(fleet);
    await controller?.close();
    await db?.drop();
  });

  it('is published again after a third of the result timeout: the rollout completes, each router applies once', async () => {
    expect(
      (await api('/v1/profiles/site', { method: 'PUT', body: { spec: { l3Rewrite: { ttl: { value: 99 } } } } })).status,
    ).toBe(201);
    const started = Date.now();
    const rollout = (
      await api('/v1/rollouts', {
        method: 'POST',
        // Without the redelivery every router times out at 9 s and the rollout pauses.
        body: {
          profile: 'site',
          selector: { all: true },
          strategy: { canary: 0, batchSize: 6, resultTimeoutSeconds: 9 },
        },
      })
    ).body;
    const done = await rolloutFinished(api, rollout.id, 20_000);
    expect(dropped).toHaveLength(6);
    expect(done.state).toBe('completed');
    expect(done.counts).toMatchObject({ applied: 6, failed: 0 });
    // Published again after 3 s (9 / 3), well before the 9 s timeout.
    expect(Date.now() - started).toBeLessThan(9_000);

    const targets = (await api(`/v1/rollouts/${rollout.id}/targets`)).body.items as {
      sentAt: string;
      redeliveredAt: string | null;
    }[];
    expect(targets).toHaveLength(6);
    for (const t of targets) {
      expect(t.redeliveredAt).not.toBeNull();
      expect(Date.parse(t.redeliveredAt!) - Date.parse(t.sentAt)).toBeGreaterThanOrEqual(3_000);
    }
    // Each router applied the revision once: the redelivery was the first it heard of it.
    for (const router of fleet) {
      expect(router.applied?.revision).toBe(1);
      expect(router.history.filter((h) => h.status === 'applied')).toHaveLength(1);
    }
  });
});
