import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulatedFleet, stopFleet } from '../../../agent/sim/simulated-fleet.js';
import { defaultFixturesDir, fixtureModels } from '../../../agent/sim/fixtures.js';
import type { SimulatedRouter } from '../../../agent/sim/simulated-router.js';
import { firmwareScriptByRules } from '../../../agent/sim/simulated-firmware-script.js';
import type { Controller } from '../../../server/controller.js';
import { addDemoImages, DEMO_IMAGES } from '../../../server/firmware/demo-images.js';
import { enrollThroughController } from '../../../server/pki/local-enrollment.js';
import { eventually, startTestController } from '../../support/controller.js';
import { createPgliteDatabase, type TestDatabase } from '../../support/databases.js';

const FAST = { jitterWindowMs: 300, initialDelayMs: 50, maxDelayMs: 500 };

/**
 * The demo's upgrade end to end: the simulated fleet (the agent's own upgrader, enrolled with
 * mutual TLS, downloading the image for real) takes the demo image of its model through a firmware
 * rollout. Simulated above the contract: the flash and the reboot (no router's flash exists here).
 * Scripted by name: router 002 of each model never comes back, 003 comes back on the old release.
 */
describe('firmware rollout to the simulated demo fleet over mTLS (PGlite)', () => {
  let db: TestDatabase;
  let controller: Controller;
  let api: Awaited<ReturnType<typeof startTestController>>['fetch'];
  let fleet: SimulatedRouter[] = [];

  beforeAll(async () => {
    db = await createPgliteDatabase();
    ({ controller, fetch: api } = await startTestController(db, { security: { insecureAgents: false } }));
    await addDemoImages(controller.images);
    fleet = await startSimulatedFleet({
      controller: controller.grpcAddress,
      fixtureRoots: await fixtureModels(defaultFixturesDir()),
      perModel: 4,
      credentialsFor: (identity, name) =>
        enrollThroughController(controller.security, controller.grpcAddress, { identity, name }, 'test'),
      reconnect: FAST,
      firmware: { rebootMs: 500, transferDelayMs: 200 },
      firmwareScript: firmwareScriptByRules([
        { match: /-002$/, ending: 'never-returns' },
        { match: /-003$/, ending: 'old-release' },
      ]),
    });
    await eventually(
      async () => (await controller.db.prisma.router.count({ where: { status: 'online' } })) === 12,
      30_000,
      'the fleet online',
    );
  }, 120_000);
  afterAll(async () => {
    await stopFleet(fleet);
    await controller?.close();
    await db?.drop();
  });

  it('upgrades each model with its image: upgraded, failed and unconfirmed, never a silent success', async () => {
    const { body: images } = await api('/v1/firmware/images');
    expect(images.items).toHaveLength(DEMO_IMAGES.length);
    for (const image of images.items) expect(image.fit).toMatchObject({ routers: 12, fits: 4 });

    const archer = images.items.find((i: { target: string }) => i.target === 'ath79/generic');
    const res = await api('/v1/rollouts', {
      method: 'POST',
      body: {
        firmware: { image: archer.sha256, confirmTimeoutSeconds: 60 },
        selector: { all: true },
        // One batch: a canary of one could be router 002, which never comes back and would hold the
        // others until its deadline.
        strategy: { canary: 0, batchSize: 10, maxFailureRatio: 1 },
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ kind: 'firmware', total: 12, leftOut: 8 });
    const rolloutId = res.body.id as string;

    const stateOf = async (suffix: string) => {
      const t = await controller.db.prisma.rolloutTarget.findFirstOrThrow({
        where: { rolloutId, router: { name: `tplink-archer-c7-v2-${suffix}` } },
      });
      return t;
    };
    await eventually(async () => (await stateOf('001')).state === 'upgraded', 60_000, 'router 001 upgraded');
    await eventually(async () => (await stateOf('004')).state === 'upgraded', 60_000, 'router 004 upgraded');
    await eventually(async () => (await stateOf('003')).state === 'failed', 60_000, 'router 003 failed');
    expect((await stateOf('003')).error).toMatch(/came back on 23\.05\.3/);
    // Router 002 flashed and stays away: not upgraded, waiting until the deadline says unconfirmed.
    await eventually(async () => (await stateOf('002')).firmwareStep === 'flashing', 60_000, 'router 002 flashing');
    expect((await stateOf('002')).state).toBe('sent');
    await controller.db.prisma.rolloutTarget.updateMany({
      where: { rolloutId, state: 'sent' },
      data: { flashedAt: new Date(Date.now() - 120_000) },
    });
    await controller.rollouts.sweep();
    expect((await stateOf('002')).state).toBe('unconfirmed');
    await eventually(
      async () => (await api(`/v1/rollouts/${rolloutId}`)).body.state === 'completed',
      30_000,
      'the rollout completed',
    );
    expect((await api(`/v1/rollouts/${rolloutId}`)).body.counts).toMatchObject({
      upgraded: 2,
      failed: 1,
      unconfirmed: 1,
      skipped: 8,
    });

    // An upgraded router runs the new release, on the new kernel, and TCX is predicted there.
    const upgraded = await controller.db.prisma.router.findFirstOrThrow({
      where: { name: 'tplink-archer-c7-v2-001' },
    });
    expect(upgraded.openwrtRelease).toBe('24.10.0');
    expect(upgraded.kernel).toMatch(/^6\.6/);
    expect((upgraded.capabilities as { predicted: { tcx: { value: boolean } } }).predicted.tcx.value).toBe(true);
    // Then it re-probed (reprobe and reapply commands, the system as actor).
    await eventually(
      async () => {
        const commands = await controller.db.prisma.command.findMany({
          where: { createdBy: 'system', targets: { some: { routerId: upgraded.id } } },
          include: { targets: { where: { routerId: upgraded.id } } },
        });
        return (
          commands.length === 2 &&
          commands.every((c) => c.targets[0]!.state !== 'sent' && c.targets[0]!.state !== 'queued')
        );
      },
      30_000,
      'the after-upgrade commands answered',
    );
  }, 180_000);
});
