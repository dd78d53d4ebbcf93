import type { ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startSimulatedFleet, stopFleet } from '../../../agent/sim/simulated-fleet.js';
import { defaultFixturesDir, fixtureModels } from '../../../agent/sim/fixtures.js';
import type { SimulatedRouter } from '../../../agent/sim/simulated-router.js';
import type { RouterSummary } from '../../../server/fleet/router-directory.js';
import { createPostgresDatabase } from '../../support/databases.js';
import { authedFetch, eventually } from '../../support/controller.js';
import { spawnController } from '../../support/controller-process.js';
import { freePort } from '../../support/ports.js';

describe('a controller killed mid-rollout (SIGKILL, PostgreSQL + BullMQ)', () => {
  const children: ChildProcess[] = [];
  let fleet: SimulatedRouter[] = [];
  afterAll(async () => {
    for (const c of children) c.kill('SIGKILL');
    await stopFleet(fleet);
  });

  it('resumes after restart: the rollout completes and no router is left in an unknown state', async () => {
    const db = await createPostgresDatabase();
    const [httpPort, grpcPort] = [await freePort(), await freePort()];
    const start = () => {
      const child = spawnController(
        db,
        { http: httpPort, grpc: grpcPort },
        // This test is about crash recovery; test/security covers mTLS.
        { WRTFLEET_INSECURE_AGENTS: 'true' },
      );
      children.push(child);
      return child;
    };
    try {
      let server = start();
      const url = `http://127.0.0.1:${httpPort}`;
      await eventually(async () => (await fetch(`${url}/healthz`).catch(() => null))?.ok, 30_000, 'controller up');
      const api = authedFetch(url, (await readFile(path.join(db.dataDir, 'admin-token'), 'utf8')).trim());
      fleet = await startSimulatedFleet({
        controller: `127.0.0.1:${grpcPort}`,
        fixtureRoots: await fixtureModels(defaultFixturesDir()),
        perModel: 4,
        applyDelayMs: 400,
        reconnect: { jitterWindowMs: 500, initialDelayMs: 100, maxDelayMs: 1_000 },
      });
      await eventually(
        async () => (await api('/v1/routers?status=online&limit=100')).body.items?.length === 12,
        20_000,
        '12 online',
      );
      expect(
        (await api('/v1/profiles/site', { method: 'PUT', body: { spec: { l3Rewrite: { ttl: { value: 128 } } } } }))
          .status,
      ).toBe(201);
      const rollout = (
        await api('/v1/rollouts', {
          method: 'POST',
          body: { profile: 'site', selector: { all: true }, strategy: { canary: 1, batchSize: 2 } },
        })
      ).body;
      expect(rollout.batchCount).toBe(7);

      // Let it get going, then kill the controller without any chance to clean up.
      await eventually(
        async () => (await api(`/v1/rollouts/${rollout.id}`)).body.counts?.applied >= 3,
        20_000,
        'three applied',
      );
      server.kill('SIGKILL');
      await new Promise((r) => server.once('exit', r));
      const midway = fleet.filter((r) => r.applied?.revision === 1).length;
      expect(midway).toBeLessThan(12);

      server = start();
      await eventually(async () => (await fetch(`${url}/healthz`).catch(() => null))?.ok, 30_000, 'controller back');
      const done = await eventually(
        async () => {
          const r = (await api(`/v1/rollouts/${rollout.id}`)).body;
          return r.state === 'completed' ? r : undefined;
        },
        45_000,
        'rollout completed after the restart',
      );
      expect(done.counts).toMatchObject({ applied: 12, failed: 0, sent: 0, queued: 0, skipped: 0 });
      const routers = (await api('/v1/routers?limit=100')).body.items;
      expect(routers.every((r: RouterSummary) => r.appliedRevision?.revision === 1 && r.status === 'online')).toBe(
        true,
      );
      expect(fleet.every((r) => r.applied?.revision === 1)).toBe(true);
      expect((await api('/v1/audit/verify')).body.ok).toBe(true);
    } finally {
      for (const c of children) c.kill('SIGKILL');
      await db.drop();
    }
  }, 150_000);
});
