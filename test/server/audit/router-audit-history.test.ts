/**
 * A router's audit history answers "who rolled this router back, and why?": `GET /v1/audit?router=`
 * holds the router's own events and those of the commands and rollouts that targeted it
 * (each keeping its own target), pages by keyset both ways without a gap or a repeat, and the
 * export streams exactly the same events. Each page names its targets (`targetName`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApplyResult_Status } from '../../../proto/gen/wrtfleet/agent/v1/agent.js';
import type { Controller } from '../../../server/controller.js';
import { createPgliteDatabase, type TestDatabase } from '../../support/databases.js';
import { authedFetch, operatorApi, startInjectedController } from '../../support/controller.js';

interface Event {
  seq: string;
  actor: string;
  action: string;
  targetType: string;
  targetId: string | null;
  targetName?: string | null;
  after: Record<string, unknown> | null;
}
interface EventPage {
  items: Event[];
  nextCursor: string | null;
}

describe('REST: a router audit history includes the commands and rollouts that targeted it', () => {
  let db: TestDatabase;
  let controller: Controller;
  let api: ReturnType<typeof authedFetch>;
  let alice: ReturnType<typeof authedFetch>;
  let token: string;
  let lyon: string;
  let paris: string;
  let rollbackJob: string;
  let bothJob: string;
  let parisJob: string;
  let lyonRollout: string;
  let parisRollout: string;

  beforeAll(async () => {
    db = await createPgliteDatabase();
    ({ controller, fetch: api, token } = await startInjectedController(db));
    alice = await operatorApi(controller, ['write']);
    const prisma = controller.db.prisma;
    const [a, b] = await Promise.all([
      prisma.router.create({ data: { name: 'lyon-1', identity: 'test:lyon-1', soc: 'MT7621' } }),
      prisma.router.create({ data: { name: 'paris-1', identity: 'test:paris-1', soc: 'MT7621' } }),
    ]);
    lyon = a.id;
    paris = b.id;
    for (const ttl of [64, 65]) {
      const put = await api('/v1/profiles/ttl64-office', {
        method: 'PUT',
        body: { spec: { l3Rewrite: { ttl: { value: ttl } } }, ...(ttl === 65 ? { baseRevision: 1 } : {}) },
      });
      expect([200, 201], JSON.stringify(put.body)).toContain(put.status);
    }
    // Both revisions applied on both routers: each has an earlier revision to roll back to.
    for (const routerId of [lyon, paris])
      for (const revision of [1, 2])
        await controller.registry.recordApplyResult(routerId, {
          profile: 'ttl64-office',
          revision,
          status: ApplyResult_Status.STATUS_APPLIED,
          error: '',
          evidence: { datapath: { mode: 'ebpf', attach: 'tcx' }, summary: `revision ${revision}` },
          startedAt: new Date(Date.now() - 60_000 + revision * 1000),
          finishedAt: new Date(Date.now() - 59_000 + revision * 1000),
          planHash: 'ab'.repeat(32),
          resultId: `${routerId}-${revision}`,
        });

    const rollout = async (ids: string[]) => {
      const r = await alice('/v1/rollouts', {
        method: 'POST',
        body: { profile: 'ttl64-office', revision: 1, selector: { ids } },
      });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      return r.body.id as string;
    };
    const command = async (kind: string, ids: string[]) => {
      const r =
        ids.length === 1
          ? await alice(`/v1/routers/${ids[0]}/commands`, { method: 'POST', body: { kind } })
          : await alice('/v1/commands', { method: 'POST', body: { kind, selector: { ids } } });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      return r.body.id as string;
    };
    lyonRollout = await rollout([lyon]);
    parisRollout = await rollout([paris]);
    rollbackJob = await command('rollback', [lyon]);
    bothJob = await command('check_drift', [lyon, paris]);
    parisJob = await command('reprobe', [paris]);
    // An event of the router itself after them all.
    await controller.registry.recordDrift(lyon, { profile: 'ttl64-office', revision: 2, differences: [] });
  });

  afterAll(async () => {
    await controller?.close();
    await db?.drop();
  });

  const all = async (query: string): Promise<Event[]> =>
    (await api<EventPage>(`/v1/audit?${query}&limit=1000`)).body.items;

  it('names the operator who rolled the router back, and the rollout that reached it', async () => {
    const events = await all(`router=${lyon}`);
    const rollback = events.find((e) => e.action === 'command.created' && e.targetId === rollbackJob);
    expect(rollback).toMatchObject({
      actor: 'token:alice',
      targetType: 'command_job',
      targetName: 'rollback on lyon-1',
      after: { kind: 'rollback', selector: { ids: [lyon] } },
    });
    expect(events).toContainEqual(
      expect.objectContaining({
        action: 'rollout.created',
        actor: 'token:alice',
        targetType: 'rollout',
        targetId: lyonRollout,
        targetName: 'ttl64-office@1',
      }),
    );
    // A command on several routers is in each one's history, and names no single router.
    expect(events).toContainEqual(
      expect.objectContaining({ action: 'command.created', targetId: bothJob, targetName: 'check_drift' }),
    );
    // The router's own events are still there, named by the router's name.
    expect(events).toContainEqual(
      expect.objectContaining({ action: 'apply.applied', targetType: 'router', targetId: lyon, targetName: 'lyon-1' }),
    );
    // Nothing of another router's own commands, rollouts or events.
    const ids = new Set(events.map((e) => e.targetId));
    for (const other of [paris, parisJob, parisRollout]) expect(ids.has(other)).toBe(false);
    expect(events.map((e) => e.targetType).sort()).toEqual(
      events
        .map((e) => e.targetType)
        .filter((t) => ['router', 'command_job', 'rollout'].includes(t))
        .sort(),
    );
    const seqs = events.map((e) => BigInt(e.seq));
    expect(seqs).toEqual([...seqs].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0)));
  });

  it('pages through the same events both ways, a few at a time', async () => {
    const everything = (await all(`router=${lyon}`)).map((e) => e.seq);
    expect(everything.length).toBeGreaterThanOrEqual(6);
    for (const order of ['asc', 'desc'] as const) {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page: EventPage = (
          await api<EventPage>(`/v1/audit?router=${lyon}&order=${order}&limit=2${cursor ? `&cursor=${cursor}` : ''}`)
        ).body;
        expect(page.items.length).toBeLessThanOrEqual(2);
        seen.push(...page.items.map((e) => e.seq));
        cursor = page.nextCursor;
      } while (cursor);
      expect(seen).toEqual(order === 'asc' ? everything : [...everything].reverse());
    }
  });

  it('combines the router with the other filters', async () => {
    const created = await all(`router=${lyon}&action=command.created`);
    expect(created.map((e) => e.targetId).sort()).toEqual([rollbackJob, bothJob].sort());
    expect(await all(`router=${lyon}&command=${parisJob}`)).toEqual([]);
    expect((await all(`router=${lyon}&rollout=${lyonRollout}`)).map((e) => e.action)).toContain('rollout.created');
    const future = new Date(Date.now() + 3_600_000).toISOString();
    expect(await all(`router=${lyon}&from=${encodeURIComponent(future)}`)).toEqual([]);
    expect((await all(`router=${lyon}&actor=token:alice`)).every((e) => e.actor === 'token:alice')).toBe(true);
  });

  it('names the targets on any page, whatever kind comes first', async () => {
    expect((await all(`rollout=${lyonRollout}`)).map((e) => e.targetName)).toContain('ttl64-office@1');
    expect((await all(`command=${rollbackJob}`))[0]).toMatchObject({ targetName: 'rollback on lyon-1' });
    expect((await all(`profile=ttl64-office`))[0]).toMatchObject({ targetName: 'ttl64-office' });
    const tokens = await all('action=api_token.created');
    expect(tokens.map((e) => e.targetName)).toEqual(expect.arrayContaining(['test', 'operator']));
  });

  it('exports exactly the events the page lists', async () => {
    const listed = await all(`router=${lyon}`);
    const res = await controller.http.inject({
      url: `/v1/audit/export?router=${lyon}`,
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.statusCode).toBe(200);
    const lines = res.body
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Event);
    expect(lines.map((e) => e.seq)).toEqual(listed.map((e) => e.seq));
    expect(lines.map(({ targetName, ...rest }) => (expect(targetName).toBeUndefined(), rest))).toEqual(
      listed.map(({ targetName: _, ...rest }) => rest),
    );
  });
});
