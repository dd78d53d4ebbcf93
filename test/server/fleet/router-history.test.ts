/**
 * A router's history as its console page reads it: apply results with evidence (newest first,
 * keyset pages), the last drift report, applied and desired revisions; and the audit
 * timeline newest first. Stored through the same registry calls the agent gateway makes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApplyResult_Status } from '../../../proto/gen/wrtfleet/agent/v1/agent.js';
import type { Controller } from '../../../server/controller.js';
import { createPgliteDatabase, type TestDatabase } from '../../support/databases.js';
import { authedFetch, startTestController, type ApiResponse } from '../../support/controller.js';

describe('REST: a router history (apply results, drift, revisions) and the audit timeline order', () => {
  let db: TestDatabase;
  let controller: Controller;
  let api: ReturnType<typeof authedFetch>;
  let routerId: string;
  let quietId: string;

  beforeAll(async () => {
    db = await createPgliteDatabase();
    ({ controller, fetch: api } = await startTestController(db));
    const prisma = controller.db.prisma;
    const [router, quiet] = await Promise.all([
      prisma.router.create({ data: { name: 'lyon-1', identity: 'test:lyon-1', soc: 'MT7621' } }),
      prisma.router.create({ data: { name: 'quiet', identity: 'test:quiet' } }),
    ]);
    routerId = router.id;
    quietId = quiet.id;
    for (const ttl of [64, 65]) {
      const put = await api('/v1/profiles/home', {
        method: 'PUT',
        body: { spec: { l3Rewrite: { ttl: { value: ttl } } }, ...(ttl === 65 ? { baseRevision: 1 } : {}) },
      });
      expect([200, 201], JSON.stringify(put.body)).toContain(put.status);
    }
    const base = Date.parse('2026-03-01T10:00:00Z');
    // Five results, two of them at the same instant: the cursor must break the tie by id.
    const results = [
      { revision: 1, status: ApplyResult_Status.STATUS_APPLIED, at: base },
      { revision: 2, status: ApplyResult_Status.STATUS_FAILED, at: base + 60_000, error: 'tc: attach failed' },
      { revision: 2, status: ApplyResult_Status.STATUS_APPLIED, at: base + 120_000 },
      { revision: 2, status: ApplyResult_Status.STATUS_APPLIED, at: base + 120_000 },
      { revision: 2, status: ApplyResult_Status.STATUS_ROLLED_BACK, at: base + 180_000, error: 'not confirmed' },
    ];
    for (const [i, r] of results.entries()) {
      await controller.registry.recordApplyResult(routerId, {
        profile: 'home',
        revision: r.revision,
        status: r.status,
        error: r.error ?? '',
        evidence: { datapath: { mode: 'ebpf', attach: 'tcx' }, summary: `result ${i}` },
        startedAt: new Date(r.at),
        finishedAt: new Date(r.at + 1500),
        planHash: 'ab'.repeat(32),
        resultId: `result-${i}`,
      });
    }
    await controller.registry.recordDrift(routerId, {
      profile: 'home',
      revision: 2,
      differences: [{ path: 'datapath.wan0.set_ip_ttl', expected: 'attached', actual: 'missing' }],
    });
    await controller.registry.recordDrift(routerId, {
      profile: 'home',
      revision: 2,
      differences: [{ path: 'offload.flow_offloading', expected: '1', actual: '0' }],
    });
    await prisma.router.update({
      where: { id: routerId },
      data: {
        desiredRevision: {
          connect: {
            profileId_number: {
              profileId: (await prisma.profile.findUniqueOrThrow({ where: { name: 'home' } })).id,
              number: 2,
            },
          },
        },
      },
    });
  });

  afterAll(async () => {
    await controller?.close();
    await db?.drop();
  });

  it('pages apply results newest first with their evidence, each exactly once', async () => {
    const seen: { status: string; revision: unknown; evidence: { summary: string }; error: string | null }[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const r: ApiResponse<{ items: typeof seen; nextCursor: string | null }> = await api(
        `/v1/routers/${routerId}/apply-results?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      seen.push(...r.body.items);
      cursor = r.body.nextCursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen.map((s) => s.evidence.summary).sort()).toEqual(['0', '1', '2', '3', '4'].map((i) => `result ${i}`));
    expect(seen[0]).toMatchObject({
      status: 'rolled_back',
      revision: { profile: 'home', revision: 2 },
      error: 'not confirmed',
    });
    expect(seen.at(-1)).toMatchObject({ status: 'applied', revision: { profile: 'home', revision: 1 }, error: null });
    expect(seen.find((s) => s.status === 'failed')?.error).toBe('tc: attach failed');
  });

  it('gives the last drift report, and null for a router that never sent one', async () => {
    const r = await api(`/v1/routers/${routerId}/drift`);
    expect(r.status).toBe(200);
    expect(r.body.report).toMatchObject({
      revision: { profile: 'home', revision: 2 },
      actor: 'agent:test:lyon-1',
      differences: [{ path: 'offload.flow_offloading', expected: '1', actual: '0' }],
    });
    expect(Date.parse(r.body.report.at)).toBeGreaterThan(0);
    const none = await api(`/v1/routers/${quietId}/drift`);
    expect(none).toMatchObject({ status: 200, body: { report: null } });
  });

  it('says which revision the router runs and which it should run', async () => {
    const r = await api(`/v1/routers/${routerId}/revisions`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      applied: { profile: 'home', revision: 2 },
      desired: { profile: 'home', revision: 2, rolloutId: null },
      assignment: null,
      state: 'in_step',
      rollback: null,
    });
    expect(r.body.next).toMatch(/^In step: stays on home@2/);
    const quiet = await api(`/v1/routers/${quietId}/revisions`);
    expect(quiet.body).toEqual({
      applied: null,
      desired: null,
      assignment: null,
      state: 'nothing_to_run',
      next: 'Nothing to run: no rollout or assignment has given this router a revision.',
      rollback: null,
    });
  });

  it.each([
    ['/apply-results?limit=0', 'limit'],
    ['/apply-results?limit=201', 'limit'],
    ['/apply-results?cursor=not-a-cursor', 'cursor'],
    ['/apply-results?colour=blue', 'colour'],
    ['/drift?since=1', 'since'],
    ['/revisions?x=1', 'x'],
  ])('%s is a 400 naming "%s"', async (suffix, field) => {
    const r = await api(`/v1/routers/${routerId}${suffix}`);
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    expect(r.body.error).toBe('invalid_request');
    expect(JSON.stringify(r.body.details ?? r.body.message)).toContain(field);
  });

  it.each(['apply-results', 'drift', 'revisions'])('/%s of an unknown router is a 404', async (what) => {
    const r = await api(`/v1/routers/no-such-router/${what}`);
    expect(r.status).toBe(404);
    expect(r.body.error).toBe('not_found');
  });

  it('needs a token', async () => {
    const r = await fetch(`${controller.httpUrl}/v1/routers/${routerId}/apply-results`);
    expect(r.status).toBe(401);
  });

  it('lists audit events newest first with order=desc, paging backwards through the same events', async () => {
    const asc = await api(`/v1/audit?router=${routerId}&limit=1000`);
    const all: string[] = asc.body.items.map((e: { seq: string }) => e.seq);
    expect(all.length).toBeGreaterThanOrEqual(7);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const r: ApiResponse<{ items: { seq: string }[]; nextCursor: string | null }> = await api(
        `/v1/audit?router=${routerId}&order=desc&limit=3${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(r.status).toBe(200);
      seen.push(...r.body.items.map((e: { seq: string }) => e.seq));
      cursor = r.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual([...all].reverse());
    const first = await api(`/v1/audit?router=${routerId}&order=desc&limit=1`);
    expect(first.body.items[0].action).toBe('drift.reported');
    const bad = await api('/v1/audit?order=sideways');
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('order');
  });
});
