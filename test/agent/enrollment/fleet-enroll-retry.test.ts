import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultFixturesDir, fixtureModels } from '../../../agent/sim/fixtures.js';
import { startSimulatedFleet, stopFleet } from '../../../agent/sim/simulated-fleet.js';
import type { SimulatedRouter } from '../../../agent/sim/simulated-router.js';
import type { Controller } from '../../../server/controller.js';
import { enrollThroughController } from '../../../server/pki/local-enrollment.js';
import { eventually, startTestController } from '../../support/controller.js';
import { createPgliteDatabase, type TestDatabase } from '../../support/databases.js';

/**
 * The demo's fleet: a router whose enrollment fails must be reported and retried with a
 * backoff while the controller and the other routers run. Before, the rejection escaped
 * startSimulatedFleet and the demo died with its controller.
 */
describe('a simulated fleet with a router that cannot enroll yet (mTLS, PGlite)', () => {
  let db: TestDatabase;
  let controller: Controller;
  let fleet: SimulatedRouter[] = [];
  const stopping = new AbortController();

  beforeAll(async () => {
    db = await createPgliteDatabase();
    ({ controller } = await startTestController(db, { security: { insecureAgents: false } }));
  });

  afterAll(async () => {
    stopping.abort();
    await stopFleet(fleet);
    await controller?.close();
    await db?.drop();
  });

  it('starts the others at once, reports the failures with a doubling backoff, then enrolls it', async () => {
    const roots = (await fixtureModels(defaultFixturesDir())).slice(0, 2);
    const failing = `sim.${roots[0]!.split('/').pop()}:001`;
    let refusals = 2;
    const reported: { identity: string; message: string; retryInMs: number }[] = [];
    fleet = await startSimulatedFleet({
      controller: controller.grpcAddress,
      fixtureRoots: roots,
      perModel: 2,
      credentialsFor: async (identity, name) => {
        if (identity === failing && refusals-- > 0) throw new Error('enrollment refused: scripted');
        return enrollThroughController(controller.security, controller.grpcAddress, { identity, name }, 'system:test');
      },
      onEnrollFailure: (identity, error, retryInMs) => reported.push({ identity, message: error.message, retryInMs }),
      signal: stopping.signal,
    });
    expect(fleet).toHaveLength(3);
    expect(fleet.map((r) => r.identity)).not.toContain(failing);
    expect(reported).toEqual([{ identity: failing, message: 'enrollment refused: scripted', retryInMs: 1_000 }]);
    await eventually(async () => fleet.length === 4, 15_000, 'the failing router joins after its retries');
    expect(reported.map((r) => r.retryInMs)).toEqual([1_000, 2_000]);
    await eventually(async () => controller.gateway.sessions.size === 4, 15_000, 'all four connected over mTLS');
    const online = await controller.db.prisma.router.count({ where: { status: 'online' } });
    expect(online).toBe(4);
  });

  it('without onEnrollFailure, a failed enrollment still rejects the start (callers that want to know)', async () => {
    const roots = (await fixtureModels(defaultFixturesDir())).slice(0, 1);
    await expect(
      startSimulatedFleet({
        controller: controller.grpcAddress,
        fixtureRoots: roots,
        perModel: 1,
        firstSerial: 50,
        credentialsFor: () => Promise.reject(new Error('enrollment refused: scripted')),
      }),
    ).rejects.toThrow(/scripted/);
  });
});
