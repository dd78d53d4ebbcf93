import { createHash } from 'node:crypto';
import { status as GrpcStatus, type ServiceError } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FirmwareProgress_Step } from '../../../proto/gen/wrtfleet/agent/v1/firmware.js';
import type { Controller } from '../../../server/controller.js';
import { eventually, startTestController } from '../../support/controller.js';
import { createPgliteDatabase, type TestDatabase } from '../../support/databases.js';
import { ARCHER_C7_2410, sysupgradeImage } from '../../support/firmware-images.js';
import { ScriptedRouter, type ScriptedFacts } from './scripted-router.js';

const OLD: Omit<ScriptedFacts, 'bootId'> = {
  board: ARCHER_C7_2410.board,
  target: ARCHER_C7_2410.target,
  release: '23.05.3',
  revision: 'r23809-234f1a2efa',
};

/**
 * The controller's side of a firmware rollout, with routers scripted message by message over
 * real gRPC: who is left out, what each router is sent and may download, and how each outcome
 * is decided: upgraded only by a Hello with a new boot id on the image's release.
 */
describe('firmware rollouts, routers scripted over gRPC (PGlite)', () => {
  let db: TestDatabase;
  let controller: Controller;
  let api: Awaited<ReturnType<typeof startTestController>>['fetch'];
  let sha256: string;
  let image: Buffer;
  const routers: ScriptedRouter[] = [];

  const router = async (identity: string, facts: Partial<ScriptedFacts> = {}) => {
    const r = new ScriptedRouter(controller.grpcAddress, identity, { ...OLD, bootId: `${identity}-boot-1`, ...facts });
    routers.push(r);
    await r.connect();
    return r;
  };
  const rollout = async (ids: string[], extra: Record<string, unknown> = {}) => {
    const res = await api('/v1/rollouts', {
      method: 'POST',
      body: { firmware: { image: sha256 }, selector: { ids }, strategy: { canary: 0, maxFailureRatio: 1 }, ...extra },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body as { id: string; kind: string; leftOut: number; firmware: { release: string } };
  };
  const idOf = async (identity: string) =>
    (await controller.db.prisma.router.findUniqueOrThrow({ where: { identity } })).id;
  const target = async (rolloutId: string, identity: string) =>
    controller.db.prisma.rolloutTarget.findUniqueOrThrow({
      where: { rolloutId_routerId: { rolloutId, routerId: await idOf(identity) } },
    });

  beforeAll(async () => {
    db = await createPgliteDatabase();
    ({ controller, fetch: api } = await startTestController(db));
    image = sysupgradeImage(ARCHER_C7_2410);
    sha256 = createHash('sha256').update(image).digest('hex');
    await controller.images.upload([image], 'archer-c7-24.10.0-sysupgrade.bin', { actor: 'test' });
  });
  afterAll(async () => {
    for (const r of routers) r.close();
    await controller?.close();
    await db?.drop();
  });

  it('upgrades a router that comes back on the image, fails one back on the old release, and leaves out one the image does not fit', async () => {
    const good = await router('fw-good');
    const fellBack = await router('fw-fellback');
    const other = await router('fw-other-board', { board: 'glinet,gl-mt6000', target: 'mediatek/filogic' });
    const ids = await Promise.all(['fw-good', 'fw-fellback', 'fw-other-board'].map(idOf));
    const r = await rollout(ids);
    expect(r).toMatchObject({ kind: 'firmware', leftOut: 1, firmware: { release: '24.10.0' } });
    expect((await target(r.id, 'fw-other-board')).error).toMatch(/left out, the image does not fit it: .*gl-mt6000/);

    const upgrade = await good.waitFor('firmwareUpgrade');
    expect(upgrade).toMatchObject({ upgradeId: r.id, sha256, sizeBytes: image.length, keepConfig: true });
    await fellBack.waitFor('firmwareUpgrade');
    expect(other.upgrades()).toHaveLength(0);

    // The bytes: only to a router being upgraded to this image, from any offset.
    expect(Buffer.compare((await good.download(sha256)) as Buffer, image)).toBe(0);
    expect(Buffer.compare((await good.download(sha256, 123_456)) as Buffer, image.subarray(123_456))).toBe(0);
    expect(((await other.download(sha256)) as ServiceError).code).toBe(GrpcStatus.PERMISSION_DENIED);
    expect(((await good.download('f'.repeat(64))) as ServiceError).code).toBe(GrpcStatus.NOT_FOUND);

    good.flash(r.id);
    fellBack.flash(r.id);
    await eventually(async () => expect((await target(r.id, 'fw-good')).firmwareStep).toBe('flashing'));
    await eventually(async () => expect((await target(r.id, 'fw-fellback')).firmwareStep).toBe('flashing'));
    // Flashing is not an outcome: the router is still on its way.
    expect((await target(r.id, 'fw-good')).state).toBe('sent');

    await good.reboot(ARCHER_C7_2410.release, ARCHER_C7_2410.revision);
    await fellBack.reboot(OLD.release, OLD.revision);
    await eventually(async () => expect((await target(r.id, 'fw-good')).state).toBe('upgraded'));
    const failed = await target(r.id, 'fw-fellback');
    expect(failed.state).toBe('failed');
    expect(failed.error).toMatch(/came back on 23\.05\.3 .*the bootloader fell back or the flash was refused/);
    await eventually(async () =>
      expect((await api(`/v1/rollouts/${r.id}`)).body).toMatchObject({
        state: 'completed',
        counts: { upgraded: 1, failed: 1, skipped: 1 },
      }),
    );

    // Every step is in the audit, with the agent as actor; then the router re-probes and re-applies.
    const events = await controller.db.prisma.auditEvent.findMany({
      where: { targetId: await idOf('fw-good'), action: { startsWith: 'firmware.' } },
      orderBy: { seq: 'asc' },
    });
    expect(events.map((e) => `${e.actor} ${e.action}`)).toEqual(
      ['checking', 'transferring', 'verifying', 'testing', 'flashing', 'upgraded'].map(
        (s) => `agent:fw-good firmware.${s}`,
      ),
    );
    await eventually(async () => {
      const commands = await controller.db.prisma.command.findMany({
        where: { createdBy: 'system', targets: { some: { routerId: await idOf('fw-good') } } },
      });
      return expect(commands.map((c) => c.kind).sort()).toEqual(['reapply', 'reprobe']);
    });
  });

  it('calls a router that flashed and never came back unconfirmed, never upgraded', async () => {
    const gone = await router('fw-gone');
    const r = await rollout([await idOf('fw-gone')]);
    await gone.waitFor('firmwareUpgrade');
    gone.flash(r.id);
    await eventually(async () => expect((await target(r.id, 'fw-gone')).firmwareStep).toBe('flashing'));
    gone.drop();
    // The deadline passed (900 s by default): moved back rather than waited for.
    await controller.db.prisma.rolloutTarget.updateMany({
      where: { rolloutId: r.id },
      data: { flashedAt: new Date(Date.now() - 3_600_000) },
    });
    await controller.rollouts.sweep();
    const t = await target(r.id, 'fw-gone');
    expect(t.state).toBe('unconfirmed');
    expect(t.error).toMatch(/did not come back within 900 s/);
    expect((await api(`/v1/rollouts/${r.id}`)).body).toMatchObject({ state: 'completed', counts: { unconfirmed: 1 } });
  });

  it('sends the upgrade again to a router that reconnects without a reboot, and pauses on a failed canary', async () => {
    const first = await router('fw-first');
    const second = await router('fw-second');
    const r = await rollout([await idOf('fw-first'), await idOf('fw-second')], {
      strategy: { canary: 1, maxFailureRatio: 0 },
    });
    // The canary is whichever of the two the rollout put first: that one reconnects and fails.
    await eventually(async () => first.upgrades().length + second.upgrades().length > 0);
    const [flaky, later] = first.upgrades().length > 0 ? [first, second] : [second, first];
    flaky.progress(r.id, FirmwareProgress_Step.STEP_CHECKING);
    flaky.drop();
    const seen = flaky.received.length;
    await flaky.connect();
    expect(await flaky.waitFor('firmwareUpgrade', seen)).toMatchObject({ upgradeId: r.id });
    flaky.progress(r.id, FirmwareProgress_Step.STEP_TESTING, {
      failed: true,
      detail: 'Device tplink,archer-c7-v2 not supported by this image',
    });
    await eventually(async () =>
      expect((await api(`/v1/rollouts/${r.id}`)).body).toMatchObject({ state: 'paused', counts: { failed: 1 } }),
    );
    expect((await target(r.id, flaky.identity)).error).toBe(
      'testing: Device tplink,archer-c7-v2 not supported by this image',
    );
    expect(later.upgrades()).toHaveLength(0);
    // Cancelled: the router never sent anything stays as it is.
    expect((await api(`/v1/rollouts/${r.id}/cancel`, { method: 'POST' })).status).toBe(200);
    expect((await target(r.id, later.identity)).state).toBe('skipped');
    expect(later.upgrades()).toHaveLength(0);
  });

  it('stops a transfer when the rollout is cancelled: the router may no longer download the image', async () => {
    const slow = await router('fw-slow');
    const r = await rollout([await idOf('fw-slow')]);
    await slow.waitFor('firmwareUpgrade');
    slow.progress(r.id, FirmwareProgress_Step.STEP_TRANSFERRING);
    await eventually(async () => expect((await target(r.id, 'fw-slow')).firmwareStep).toBe('transferring'));
    expect((await api(`/v1/rollouts/${r.id}/cancel`, { method: 'POST' })).status).toBe(200);
    const t = await target(r.id, 'fw-slow');
    expect(t.state).toBe('skipped');
    expect(t.error).toMatch(/cancelled before the image was on the router/);
    expect(((await slow.download(sha256)) as ServiceError).code).toBe(GrpcStatus.PERMISSION_DENIED);
    // An image an unfinished rollout carries cannot be removed; once none does, it can.
    expect((await api(`/v1/firmware/images/${sha256}`, { method: 'DELETE' })).status).toBe(204);
  });

  it('refuses a rollout naming both a profile and an image, or an image that fits no router', async () => {
    const both = await api('/v1/rollouts', {
      method: 'POST',
      body: { profile: 'home', firmware: { image: sha256 }, selector: { all: true } },
    });
    expect(both.status).toBe(400);
    const neither = await api('/v1/rollouts', { method: 'POST', body: { selector: { all: true } } });
    expect(neither.status).toBe(400);
    expect(JSON.stringify(neither.body)).toContain('/profile');
    const other = sysupgradeImage({ ...ARCHER_C7_2410, board: 'linksys,e8450' }, { seed: 5 });
    const stored = await controller.images.upload([other], 'e8450.bin', { actor: 'test' });
    const none = await api('/v1/rollouts', {
      method: 'POST',
      body: { firmware: { image: stored.image.sha256 }, selector: { all: true } },
    });
    expect(none.status).toBe(400);
    expect(none.body.message).toMatch(/fits none of the/);
    const badZone = await api('/v1/rollouts', {
      method: 'POST',
      body: {
        firmware: { image: stored.image.sha256, window: { start: '02:00', end: '05:00', timeZone: 'Mars/Olympus' } },
        selector: { all: true },
      },
    });
    expect(badZone.status).toBe(400);
    expect(badZone.body.message).toMatch(/timeZone/);
  });
});
