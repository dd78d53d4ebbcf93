import type { ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startSimulatedFleet, stopFleet } from '../../../agent/sim/simulated-fleet.js';
import { defaultFixturesDir, fixtureModels } from '../../../agent/sim/fixtures.js';
import type { SimulatedRouter } from '../../../agent/sim/simulated-router.js';
import { DEMO_IMAGES, demoImageBytes } from '../../../server/firmware/demo-images.js';
import { authedFetch, eventually } from '../../support/controller.js';
import { spawnController } from '../../support/controller-process.js';
import { createPostgresDatabase } from '../../support/databases.js';
import { freePort } from '../../support/ports.js';

/**
 * A controller killed (SIGKILL) in the middle of a firmware rollout, on PostgreSQL + BullMQ: the
 * routers away flashing at that moment come back to the restarted controller and are confirmed by
 * their Hello; those mid-transfer get their upgrade again; no router is lost or called upgraded
 * without coming back. The simulated routers run the agent's own upgrader; their flash and reboot
 * are simulated (no router's flash exists here).
 */
describe('a controller killed mid-upgrade (SIGKILL, PostgreSQL + BullMQ)', () => {
  const children: ChildProcess[] = [];
  let fleet: SimulatedRouter[] = [];
  afterAll(async () => {
    for (const c of children) c.kill('SIGKILL');
    await stopFleet(fleet);
  });

  it('loses no router: every target ends upgraded after the restart', async () => {
    const db = await createPostgresDatabase();
    const [httpPort, grpcPort] = [await freePort(), await freePort()];
    const start = () => {
      const child = spawnController(db, { http: httpPort, grpc: grpcPort }, { WRTFLEET_INSECURE_AGENTS: 'true' });
      children.push(child);
      return child;
    };
    try {
      let server = start();
      const url = `http://127.0.0.1:${httpPort}`;
      await eventually(async () => (await fetch(`${url}/healthz`).catch(() => null))?.ok, 30_000, 'controller up');
      const token = (await readFile(path.join(db.dataDir, 'admin-token'), 'utf8')).trim();
      const api = authedFetch(url, token);
      const demo = DEMO_IMAGES.find((i) => i.target === 'ath79/generic')!;
      const uploaded = await fetch(`${url}/v1/firmware/images?fileName=${demo.fileName}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' },
        body: Buffer.from(demoImageBytes(demo)),
      });
      expect(uploaded.status).toBe(201);
      const { sha256 } = (await uploaded.json()) as { sha256: string };
      fleet = await startSimulatedFleet({
        controller: `127.0.0.1:${grpcPort}`,
        fixtureRoots: await fixtureModels(defaultFixturesDir()),
        perModel: 6,
        reconnect: { jitterWindowMs: 500, initialDelayMs: 100, maxDelayMs: 1_000 },
        // Long enough that the kill finds routers away flashing and others transferring.
        firmware: { rebootMs: 6_000, transferDelayMs: 1_500 },
      });
      await eventually(
        async () => (await api('/v1/routers?status=online&limit=100')).body.items?.length === 18,
        30_000,
        '18 online',
      );
      const rollout = (
        await api('/v1/rollouts', {
          method: 'POST',
          body: { firmware: { image: sha256 }, selector: { all: true }, strategy: { canary: 1, batchSize: 5 } },
        })
      ).body;
      expect(rollout).toMatchObject({ kind: 'firmware', total: 18, leftOut: 12 });

      const targets = async () =>
        (await api(`/v1/rollouts/${rollout.id}/targets?limit=100`)).body.items as {
          state: string;
          firmwareStep: string | null;
        }[];
      await eventually(
        async () => (await targets()).some((t) => t.state === 'sent' && t.firmwareStep === 'flashing'),
        60_000,
        'a router flashing',
      );
      server.kill('SIGKILL');
      await new Promise((r) => server.once('exit', r));

      server = start();
      await eventually(async () => (await fetch(`${url}/healthz`).catch(() => null))?.ok, 30_000, 'controller back');
      const done = await eventually(
        async () => {
          const r = (await api(`/v1/rollouts/${rollout.id}`)).body;
          return r.state === 'completed' ? r : undefined;
        },
        90_000,
        'rollout completed after the restart',
      );
      expect(done.counts).toMatchObject({ upgraded: 6, failed: 0, unconfirmed: 0, sent: 0, queued: 0 });
      const flashes = fleet.filter((r) => r.flashes.length > 0).map((r) => r.flashes.length);
      // Each router flashed once: the restart sent no router its upgrade a second time after the flash.
      expect(flashes).toEqual([1, 1, 1, 1, 1, 1]);
    } finally {
      await db.drop();
    }
  }, 240_000);
});
