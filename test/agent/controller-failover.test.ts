import type { ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { controllerAddresses, homeAddressIndex } from '../../agent/reconnect-policy.js';
import { startSimulatedFleet, stopFleet } from '../../agent/sim/simulated-fleet.js';
import { defaultFixturesDir, fixtureModels } from '../../agent/sim/fixtures.js';
import type { SimulatedRouter } from '../../agent/sim/simulated-router.js';
import type { Controller } from '../../server/controller.js';
import { authedFetch, eventually, startTestController } from '../support/controller.js';
import { spawnController } from '../support/controller-process.js';
import { createPostgresDatabase, type TestDatabase } from '../support/databases.js';
import { freePort } from '../support/ports.js';

const REDIS_URL = process.env.WRTFLEET_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

describe('controller addresses', () => {
  it('splits a comma-separated list and keeps a gRPC resolver target whole', () => {
    expect(controllerAddresses('a:1, b:2,a:1')).toEqual(['a:1', 'b:2']);
    expect(controllerAddresses('ipv4:127.0.0.1:1,127.0.0.1:2')).toEqual(['ipv4:127.0.0.1:1,127.0.0.1:2']);
    expect(() => controllerAddresses(' , ')).toThrow(/no controller address/);
  });

  it('spreads homes evenly over the replicas', () => {
    const counts = [0, 0, 0];
    for (let i = 0; i < 3000; i++) counts[homeAddressIndex(`sim.model:${i}`, 3)]! += 1;
    for (const c of counts) expect(c).toBeGreaterThan(900);
  });
});

/**
 * Two replicas on one PostgreSQL + Redis; every agent is given both addresses. Replica A runs
 * as its own process so that it can die as a crash does (SIGKILL), B in this process.
 */
describe('agents given two replicas (PostgreSQL + Redis, replica A killed with SIGKILL)', () => {
  let child: ChildProcess | undefined;
  let replicaB: Controller | undefined;
  let fleet: SimulatedRouter[] = [];
  let db: TestDatabase | undefined;
  afterAll(async () => {
    child?.kill('SIGKILL');
    await stopFleet(fleet);
    await replicaB?.close();
    await db?.drop();
  });

  it('fail over to B within 30 s, and the ones whose home is A move back when A returns', async () => {
    db = await createPostgresDatabase();
    const [httpA, grpcA] = [await freePort(), await freePort()];
    const startA = () =>
      spawnController(
        db!,
        { http: httpA, grpc: grpcA },
        // About fail-over, not transport security (test/security covers mTLS).
        { WRTFLEET_INSECURE_AGENTS: 'true' },
      );
    child = startA();
    await eventually(
      async () => (await fetch(`http://127.0.0.1:${httpA}/healthz`).catch(() => null))?.ok,
      30_000,
      'replica A up',
    );
    const b = await startTestController(db, { redisUrl: REDIS_URL });
    replicaB = b.controller;
    const api = b.fetch;
    const addressA = `127.0.0.1:${grpcA}`;
    const addressB = replicaB.grpcAddress;
    const addresses = [addressA, addressB];

    fleet = await startSimulatedFleet({
      controller: addresses.join(','),
      fixtureRoots: await fixtureModels(defaultFixturesDir()),
      perModel: 4,
      reconnect: { jitterWindowMs: 500, initialDelayMs: 100, maxDelayMs: 1_000, homeCheckMs: 1_000 },
    });
    const home = (r: SimulatedRouter) => r.link.homeAddress;
    const homedOnA = fleet.filter((r) => home(r) === addressA);
    // The split of these 12 identities is fixed by the hash; both replicas get some.
    expect(homedOnA.length).toBeGreaterThan(0);
    expect(homedOnA.length).toBeLessThan(fleet.length);

    const allOnline = async () =>
      (await api('/v1/routers?status=online&limit=100')).body.items?.length === fleet.length;
    const onAddresses = (want: (r: SimulatedRouter) => string | undefined) => () =>
      fleet.every((r) => r.link.state === 'connected' && r.link.address === want(r));
    await eventually(async () => onAddresses(home)() && (await allOnline()), 20_000, 'each on its home replica');
    expect(replicaB.gateway.sessions.size).toBe(fleet.length - homedOnA.length);

    child.kill('SIGKILL');
    await eventually(
      async () => onAddresses(() => addressB)() && replicaB!.gateway.sessions.size === fleet.length,
      30_000,
      'every agent on B after A died',
    );
    await eventually(allOnline, 10_000, 'all online through B');

    child = startA();
    await eventually(async () => onAddresses(home)() && (await allOnline()), 30_000, 'home again after A returned');
    expect(replicaB.gateway.sessions.size).toBe(fleet.length - homedOnA.length);

    const token = (await readFile(path.join(db.dataDir, 'admin-token'), 'utf8')).trim();
    const viaA = authedFetch(`http://127.0.0.1:${httpA}`, token);
    expect((await viaA('/v1/audit/verify')).body).toMatchObject({ ok: true });
  }, 120_000);
});
