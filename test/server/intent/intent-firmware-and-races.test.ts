import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Controller } from '../../../server/controller.js';
import { createPostgresDatabase, type TestDatabase } from '../../support/databases.js';
import { startInjectedController, type ApiResponse } from '../../support/controller.js';
import { ARCHER_C7_2410, sysupgradeImage } from '../../support/firmware-images.js';

/**
 * A FirmwarePolicy planned and applied (the image judged against each router as sysupgrade
 * would, the upgrade started through the policy's window), and applies racing each other: each
 * lands whole, the loser planned again on what the winner wrote, never half of both.
 */
describe('the fleet as code: firmware policies and racing applies (PostgreSQL)', () => {
  let db: TestDatabase;
  let controller: Controller;
  let api: <B = any>(path: string, init?: { method?: string; body?: unknown }) => Promise<ApiResponse<B>>; // eslint-disable-line @typescript-eslint/no-explicit-any
  const image = sysupgradeImage(ARCHER_C7_2410);
  const sha256 = createHash('sha256').update(image).digest('hex');

  beforeAll(async () => {
    db = await createPostgresDatabase();
    const started = await startInjectedController(db, { heartbeatIntervalSeconds: 3_600 });
    controller = started.controller;
    api = started.fetch;
    const uploaded = await controller.http.inject({
      method: 'POST',
      url: '/v1/firmware/images?fileName=archer.bin',
      headers: { authorization: `Bearer ${started.token}`, 'content-type': 'application/octet-stream' },
      payload: image,
    });
    expect(uploaded.statusCode, uploaded.body).toBe(201);
    const router = (name: string, board: string, release: string, revision: string) =>
      controller.db.prisma.router.create({
        data: {
          name,
          identity: `id-${name}`,
          status: 'offline',
          tags: ['model:c7'],
          openwrtRelease: release,
          openwrtTarget: ARCHER_C7_2410.target,
          facts: { boardName: board, openwrt: { revision } },
        },
      });
    await router('c7-old', ARCHER_C7_2410.board, '23.05.3', 'r23809-234f1a2efa');
    await router('c7-done', ARCHER_C7_2410.board, ARCHER_C7_2410.release, ARCHER_C7_2410.revision);
    await router('c7-other-board', 'tplink,archer-c6-v3', '23.05.3', 'r23809-234f1a2efa');
  }, 60_000);

  afterAll(async () => {
    await controller?.close();
    await db?.drop();
  });

  const nightly = {
    apiVersion: 'wrtfleet/v1',
    kind: 'RolloutPolicy',
    metadata: { name: 'nightly' },
    spec: { canary: 0, batchSize: 10, window: { start: '02:00', end: '04:00', timeZone: 'Europe/Paris' } },
  };
  const policy = {
    apiVersion: 'wrtfleet/v1',
    kind: 'FirmwarePolicy',
    metadata: { name: 'c7-24-10' },
    spec: { selector: { tags: ['model:c7'] }, image: sha256, rolloutPolicy: 'nightly' },
  };

  it('plans each router against the image and starts the upgrade through the window', async () => {
    const plan = await api('/v1/plan', { method: 'POST', body: { documents: [nightly, policy] } });
    expect(plan.status, JSON.stringify(plan.body)).toBe(200);
    const reach = plan.body.resources.find((r: { kind: string }) => r.kind === 'FirmwarePolicy').reach;
    expect(reach.target).toBe(`${ARCHER_C7_2410.release} ${ARCHER_C7_2410.revision}`);
    const byName = Object.fromEntries(reach.routers.map((r: { name: string }) => [r.name, r]));
    expect(byName['c7-old']).toMatchObject({ verdict: 'change', from: '23.05.3' });
    expect(byName['c7-done']).toMatchObject({ verdict: 'unchanged' });
    expect(byName['c7-other-board'].verdict).toBe('refused');
    expect(byName['c7-other-board'].reason).toMatch(/archer-c6-v3/);
    expect(reach.rollout).toEqual({ policy: 'nightly', routers: 1 });

    const applied = await api('/v1/apply', { method: 'POST', body: { documents: [nightly, policy], source: 'v1.2' } });
    expect(applied.status, JSON.stringify(applied.body)).toBe(200);
    const [started] = applied.body.rollouts;
    const rollout = await api(`/v1/rollouts/${started.id}`);
    expect(rollout.body).toMatchObject({
      kind: 'firmware',
      firmware: { image: sha256, options: { window: { start: '02:00', end: '04:00', timeZone: 'Europe/Paris' } } },
      strategy: { canary: 0, batchSize: 10 },
      total: 2,
      leftOut: 1,
    });
    const again = await api('/v1/plan', { method: 'POST', body: { documents: [nightly, policy] } });
    expect(again.body.changes).toBe(0);
  });

  it('refuses a policy naming an image the controller does not have', async () => {
    const missing = { ...policy, spec: { ...policy.spec, image: 'f'.repeat(64) } };
    const res = await api('/v1/plan', { method: 'POST', body: { documents: [nightly, missing] } });
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual([
      { path: '/documents/1/spec/image', in: 'body', message: `no firmware image ${'f'.repeat(64)} on the controller` },
    ]);
  });

  it('lands racing applies whole, one after the other', async () => {
    const profile = (ttl: number) => ({
      apiVersion: 'wrtfleet/v1',
      kind: 'Profile',
      metadata: { name: 'race' },
      spec: { l3Rewrite: { ttl: { value: ttl } } },
    });
    const policyOf = (batchSize: number) => ({ ...nightly, spec: { ...nightly.spec, batchSize } });
    const results = await Promise.all(
      [10, 20, 30, 40].map((n) =>
        api('/v1/apply', { method: 'POST', body: { documents: [profile(n), policyOf(n), policy] } }),
      ),
    );
    expect(
      results.map((r) => r.status),
      JSON.stringify(results.map((r) => r.body)),
    ).toEqual([200, 200, 200, 200]);
    // Whichever landed last, its profile and its policy landed together.
    const last = await api('/v1/export');
    const docs = Object.fromEntries(
      last.body.documents.map((d: { kind: string; metadata: { name: string }; spec: unknown }) => [
        `${d.kind}/${d.metadata.name}`,
        d.spec,
      ]),
    );
    expect(docs['RolloutPolicy/nightly'].batchSize).toBe(docs['Profile/race'].l3Rewrite.ttl.value);
    const revisions = await controller.db.prisma.profileRevision.count({ where: { profile: { name: 'race' } } });
    expect(revisions).toBe(4);
  });
});
