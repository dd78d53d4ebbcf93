import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApplyResult_Status } from '../../../proto/gen/wrtfleet/agent/v1/agent.js';
import type { Controller } from '../../../server/controller.js';
import { BACKENDS, type TestDatabase } from '../../support/databases.js';
import { eventually, startInjectedController, type ApiResponse } from '../../support/controller.js';

/**
 * Applying the same files converges: a router whose apply failed is set to run the revision but
 * does not, and once no rollout is bringing it the next plan names it `retry` and the next apply
 * sends it again. Rows stand for the routers (no agents); the test answers for them through the
 * registry, as the gateway does.
 */
const documents = [
  {
    apiVersion: 'wrtfleet/v1',
    kind: 'Profile',
    metadata: { name: 'home' },
    spec: { l3Rewrite: { ttl: { value: 65 } } },
  },
  { apiVersion: 'wrtfleet/v1', kind: 'RolloutPolicy', metadata: { name: 'all' }, spec: { canary: 0, batchSize: 10 } },
  {
    apiVersion: 'wrtfleet/v1',
    kind: 'Assignment',
    metadata: { name: 'x-home' },
    spec: { selector: { tags: ['site:x'] }, profile: 'home', rolloutPolicy: 'all' },
  },
];

type Reach = {
  counts: Record<string, number>;
  routers: { name: string; verdict: string; reason: string | null; from: string | null }[];
  rollout: { routers: number } | null;
};

describe.each(BACKENDS)('the fleet as code retries a failed apply (%s)', (_name, create) => {
  let db: TestDatabase;
  let controller: Controller;
  let api: <B = any>(path: string, init?: { method?: string; body?: unknown }) => Promise<ApiResponse<B>>; // eslint-disable-line @typescript-eslint/no-explicit-any
  const ids: Record<string, string> = {};
  const prisma = () => controller.db.prisma;
  const reachOf = async () => {
    const res = await api('/v1/plan', { method: 'POST', body: { documents } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const a = res.body.resources.find((r: { kind: string }) => r.kind === 'Assignment');
    return { changes: res.body.changes as number, reach: a.reach as Reach };
  };
  const answer = (name: string, status: ApplyResult_Status, error = '') =>
    controller.registry.recordApplyResult(ids[name]!, {
      profile: 'home',
      revision: 1,
      status,
      error,
      evidence: undefined,
      startedAt: new Date(),
      finishedAt: new Date(),
      planHash: '',
      resultId: randomUUID(),
    });

  beforeAll(async () => {
    db = await create();
    // Long heartbeats: the rows stand for routers online for the whole test.
    ({ controller, fetch: api } = await startInjectedController(db, { heartbeatIntervalSeconds: 3_600 }));
    for (const name of ['x-ok', 'x-bad'])
      ids[name] = (
        await prisma().router.create({
          data: { name, identity: `id-${name}`, status: 'online', lastSeenAt: new Date(), tags: ['site:x'] },
        })
      ).id;
  }, 60_000);

  afterAll(async () => {
    await controller?.close();
    await db?.drop();
  });

  it('names the failed router `retry` once its rollout is over, and the next apply sends it again', async () => {
    const first = await api('/v1/apply', { method: 'POST', body: { documents } });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const rolloutId = first.body.rollouts[0].id as string;
    await eventually(
      async () => (await prisma().rolloutTarget.count({ where: { rolloutId, state: 'sent' } })) === 2,
      10_000,
      'both targets sent',
    );
    // While the rollout waits for them, both are on their way.
    expect((await reachOf()).reach.counts).toMatchObject({ unchanged: 2, retry: 0 });

    await answer('x-ok', ApplyResult_Status.STATUS_APPLIED);
    await answer('x-bad', ApplyResult_Status.STATUS_FAILED, 'uci commit firewall: I/O error');
    await eventually(
      async () => !['running', 'scheduled'].includes((await controller.rollouts.view(rolloutId))!.state),
      10_000,
      'the rollout stopped on the failure',
    );

    const { changes, reach } = await reachOf();
    expect(changes).toBe(1);
    expect(reach.counts).toMatchObject({ change: 0, revision: 0, retry: 1, unchanged: 1, refused: 0 });
    expect(reach.routers).toEqual([
      {
        id: ids['x-bad'],
        name: 'x-bad',
        verdict: 'retry',
        reason: 'runs nothing; its last apply failed',
        from: 'home@1',
      },
      { id: ids['x-ok'], name: 'x-ok', verdict: 'unchanged', reason: null, from: 'home@1' },
    ]);
    expect(reach.rollout).toEqual({ policy: 'all', routers: 1 });

    const second = await api('/v1/apply', { method: 'POST', body: { documents } });
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    expect(second.body.rollouts).toEqual([expect.objectContaining({ kind: 'Assignment', name: 'x-home', routers: 1 })]);
    const retried = await prisma().rolloutTarget.findMany({ where: { rolloutId: second.body.rollouts[0].id } });
    expect(retried.map((t) => t.routerId)).toEqual([ids['x-bad']]);
    // On its way again: nothing more to do until it answers.
    expect((await reachOf()).changes).toBe(0);

    await eventually(
      async () =>
        (await prisma().rolloutTarget.count({ where: { rolloutId: second.body.rollouts[0].id, state: 'sent' } })) === 1,
      10_000,
      'the retry sent',
    );
    await answer('x-bad', ApplyResult_Status.STATUS_APPLIED);
    await eventually(async () => (await reachOf()).reach.counts.unchanged === 2, 10_000, 'both routers there');
    expect((await reachOf()).changes).toBe(0);
  });
});
