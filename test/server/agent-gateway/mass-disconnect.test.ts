import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startSimulatedFleet, stopFleet } from '../../../agent/sim/simulated-fleet.js';
import { defaultFixturesDir, fixtureModels } from '../../../agent/sim/fixtures.js';
import type { SimulatedRouter } from '../../../agent/sim/simulated-router.js';
import type { Controller } from '../../../server/controller.js';
import { eventually, startTestController } from '../../support/controller.js';
import { createPostgresDatabase, type TestDatabase } from '../../support/databases.js';

const PER_MODEL = 100;

/**
 * A whole fleet dropping at once (a proxy restarting, an uplink cut) must be recorded, every
 * router offline, in a few set-wise statements: one UPDATE per stream through a pool of ten
 * timed out by the thousand at 10,000 agents, leaving routers "online" until the silence sweep.
 */
describe('a fleet that disconnects at once (PostgreSQL)', () => {
  let db: TestDatabase;
  let controller: Controller;
  let logs: string[];
  let fleet: SimulatedRouter[] = [];

  beforeAll(async () => {
    db = await createPostgresDatabase();
    // Long heartbeats: the silence sweep must not be what marks the routers offline here.
    ({ controller, logs } = await startTestController(db, {
      heartbeatIntervalSeconds: 60,
      security: { insecureAgents: true },
    }));
  });

  afterAll(async () => {
    await stopFleet(fleet);
    await controller?.close();
    await db?.drop();
  });

  it('marks every router offline at once, in a few statements, with no error logged', async () => {
    fleet = await startSimulatedFleet({
      controller: controller.grpcAddress,
      fixtureRoots: await fixtureModels(defaultFixturesDir()),
      perModel: PER_MODEL,
      reconnect: { jitterWindowMs: 2_000, initialDelayMs: 100, maxDelayMs: 2_000 },
    });
    const total = fleet.length;
    expect(total).toBeGreaterThanOrEqual(300);
    await eventually(async () => controller.gateway.sessions.size === total, 60_000, 'all connected');
    const online = () => controller.db.prisma.router.count({ where: { status: 'online' } });
    await eventually(async () => (await online()) === total, 10_000, 'all stored online');

    // Every statement that writes routers, whichever API sends it.
    const prisma = controller.db.prisma;
    const raw = vi.spyOn(prisma, '$executeRawUnsafe');
    const updateMany = vi.spyOn(prisma.router, 'updateMany');
    const stopping = stopFleet(fleet);
    fleet = [];
    await stopping;
    await eventually(async () => (await online()) === 0, 10_000, 'all stored offline');
    // One UPDATE per batch of ended streams (15 ms windows), not one per router.
    expect(raw.mock.calls.length + updateMany.mock.calls.length).toBeLessThan(total / 10);
    raw.mockRestore();
    updateMany.mockRestore();
    expect(logs.filter((l) => l.includes('failed to record disconnect'))).toEqual([]);
    expect(logs.filter((l) => l.includes('"msg":"agent disconnected"'))).toHaveLength(total);
  }, 120_000);
});
