import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulatedFleet, stopFleet } from '../../../agent/sim/simulated-fleet.js';
import { defaultFixturesDir, fixtureModels } from '../../../agent/sim/fixtures.js';
import type { SimulatedRouter } from '../../../agent/sim/simulated-router.js';
import type { PlanDecision, PlannedProgram } from '../../../core/plan.js';
import type { auditEventView } from '../../../server/routes/v1/audit/index.js';
import type { Controller } from '../../../server/controller.js';
import type { RouterSummary } from '../../../server/fleet/router-directory.js';
import { createPostgresDatabase, type TestDatabase } from '../../support/databases.js';
import { authedFetch, eventually, startTestController } from '../../support/controller.js';

const REDIS_URL = process.env.WRTFLEET_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const FAST = { jitterWindowMs: 300, initialDelayMs: 50, maxDelayMs: 500 };
type AuditEventView = ReturnType<typeof auditEventView>;

/**
 * Rollouts on the production shape: PostgreSQL, BullMQ on Redis, a simulated fleet over
 * real gRPC streams (the routers are simulated above the contract: MIPS boxes cannot run here).
 */
describe('rollouts to a simulated fleet over real gRPC (PostgreSQL + BullMQ on Redis)', () => {
  let db: TestDatabase;
  let controller: Controller;
  let api: ReturnType<typeof authedFetch>;
  let token: string;
  let fleet: SimulatedRouter[] = [];
  /** Identities whose next applies fail, or that never answer (scripted by each test). */
  const failing = new Set<string>();
  const silent = new Set<string>();

  beforeAll(async () => {
    db = await createPostgresDatabase();
    // Plaintext agents on purpose: this file is about rollouts; test/security covers mTLS.
    ({
      controller,
      token,
      fetch: api,
    } = await startTestController(db, { redisUrl: REDIS_URL, security: { insecureAgents: true } }));
    expect(controller.tasks.kind).toBe('bullmq');
    const roots = await fixtureModels(defaultFixturesDir());
    fleet = await startSimulatedFleet({
      controller: controller.grpcAddress,
      fixtureRoots: roots,
      perModel: 4,
      reconnect: FAST,
      outcome: (identity) => (failing.has(identity) ? 'fail' : silent.has(identity) ? 'silent' : 'apply'),
    });
    await eventually(async () => controller.gateway.sessions.size === 12, 15_000, '12 agents connected');
  });

  afterAll(async () => {
    await stopFleet(fleet);
    await controller?.close();
    await db?.drop();
  });

  const waitFor = (id: string, state: string, timeoutMs = 20_000) =>
    eventually(
      async () => {
        const r = await api(`/v1/rollouts/${id}`);
        return r.body.state === state ? r.body : undefined;
      },
      timeoutMs,
      `rollout ${state}`,
    );

  it('profiles: create, revise with optimistic concurrency (stale base: 409), unknown fields named', async () => {
    const created = await api('/v1/profiles/home', {
      method: 'PUT',
      body: { spec: { l3Rewrite: { ttl: { value: 65 } } } },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ revision: 1, created: true });
    const same = await api('/v1/profiles/home', {
      method: 'PUT',
      body: { spec: { l3Rewrite: { ttl: { value: 65 } } }, baseRevision: 1 },
    });
    expect(same.status).toBe(200);
    expect(same.body.changed).toBe(false);
    const r2 = await api('/v1/profiles/home', {
      method: 'PUT',
      body: { spec: { l3Rewrite: { ttl: { value: 128 } } }, baseRevision: 1 },
    });
    expect(r2.body.revision).toBe(2);
    const stale = await api('/v1/profiles/home', {
      method: 'PUT',
      body: { spec: { l3Rewrite: { ttl: { value: 100 } } }, baseRevision: 1 },
    });
    expect(stale.status).toBe(409);
    expect(stale.body.message).toMatch(/revision 2/);
    const typo = await api('/v1/profiles/home', {
      method: 'PUT',
      body: { spec: { l3Rewrite: { tll: 1 } }, baseRevision: 2 },
    });
    expect(typo.status).toBe(400);
    expect(typo.body.details[0].path).toContain('/spec/l3Rewrite');
    const range = await api('/v1/profiles/home', {
      method: 'PUT',
      body: { spec: { l3Rewrite: { ttl: { value: 300 } } }, baseRevision: 2 },
    });
    expect(range.status).toBe(400);
    expect(range.body.details[0].path).toBe('/spec/l3Rewrite/ttl/value');
    const asString = await api('/v1/profiles/home', {
      method: 'PUT',
      body: { spec: { l3Rewrite: { ttl: { value: '64' } } }, baseRevision: 2 },
    });
    expect(asString.status).toBe(400);
    const revs = await api('/v1/profiles/home/revisions');
    expect(revs.body.items.map((r: { revision: number }) => r.revision)).toEqual([2, 1]);
    const audit = await api('/v1/audit?profile=home');
    expect(audit.body.items.map((e: AuditEventView) => e.action)).toEqual(['profile.created', 'profile.revised']);
    expect(audit.body.items[1].diff).toEqual([{ path: '/l3Rewrite/ttl/value', op: 'replace', before: 65, after: 128 }]);
    expect(audit.body.items[1].actor).toBe('token:tester');
  });

  it('concurrent edits from the same base: exactly one wins, the other gets 409 (no lost update)', async () => {
    const base = (await api('/v1/profiles/home')).body.revision;
    const [a, b] = await Promise.all([
      api('/v1/profiles/home', {
        method: 'PUT',
        body: { spec: { l3Rewrite: { ttl: { value: 70 } } }, baseRevision: base },
      }),
      api('/v1/profiles/home', {
        method: 'PUT',
        body: { spec: { l3Rewrite: { ttl: { value: 71 } } }, baseRevision: base },
      }),
    ]);
    expect([a.status, b.status].sort()).toEqual([201, 409]);
    const latest = await api('/v1/profiles/home');
    expect(latest.body.revision).toBe(base + 1);
  });

  it('a plan preview touches nothing and explains the MT7621 hardware-offload conflict', async () => {
    const mt7621 = (await api('/v1/routers?soc=MT7621&limit=1')).body.items[0];
    const preview = await api(`/v1/routers/${mt7621.id}/plan?profile=home`);
    expect(preview.status).toBe(200);
    expect(preview.body.plan.satisfiable).toBe(true);
    expect(preview.body.plan.offload.mode).toBe('software'); // prefer-rewrite: TTL rewriting keeps flows on the CPU
    expect(preview.body.plan.decisions.every((d: PlanDecision) => d.reason.length > 0)).toBe(true);
    expect(preview.body.changes.length).toBeGreaterThan(0);
    const fleetPreview = await api('/v1/plan-preview', {
      method: 'POST',
      body: { profile: 'home', selector: { all: true } },
    });
    expect(fleetPreview.body.matched).toBe(12);
    expect(fleetPreview.body.summary.satisfiable).toBe(12);
    expect(fleet.every((r) => r.history.length === 0)).toBe(true);
  });

  it('refuses a rollout that targets nothing, and explains an invalid selector', async () => {
    const none = await api('/v1/rollouts', {
      method: 'POST',
      body: { profile: 'home', selector: { soc: ['NOPE9999'] } },
    });
    expect(none.status).toBe(400);
    expect(none.body.message).toMatch(/matches no router/);
    const empty = await api('/v1/rollouts', { method: 'POST', body: { profile: 'home', selector: {} } });
    expect(empty.status).toBe(400);
    expect(empty.body.message).toMatch(/selector/);
    const unknown = await api('/v1/rollouts', {
      method: 'POST',
      body: { profile: 'home', selector: { colour: ['red'] } },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.details[0].path).toMatch(/colour/);
  });

  it('rolls out canary then batches to done; every router applies and confirms; progress streams as SSE', async () => {
    const created = await api('/v1/rollouts', {
      method: 'POST',
      body: { profile: 'home', selector: { all: true }, strategy: { canary: 1, batchSize: 5 } },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.batchCount).toBe(4); // 1 + 5 + 5 + 1
    // Watch it live, as the CLI does: server-sent progress events until the end event.
    const sse = await fetch(`${controller.httpUrl}/v1/rollouts/${created.body.id}/events`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(sse.headers.get('content-type')).toMatch(/text\/event-stream/);
    const frames = (await sse.text()).split('\n\n').filter(Boolean);
    const progress = frames
      .filter((f) => f.startsWith('event: progress'))
      .map((f) => JSON.parse(f.split('data: ')[1]!));
    expect(progress.length).toBeGreaterThan(1);
    expect(progress.map((p) => p.finished)).toEqual([...progress.map((p) => p.finished)].sort((a, b) => a - b));
    expect(progress.at(-1).state).toBe('completed');
    expect(frames.at(-1)).toMatch(/^event: end/);
    const done = await waitFor(created.body.id, 'completed');
    expect(done.counts).toMatchObject({ applied: 12, failed: 0, queued: 0, sent: 0 });
    const revision = done.revision;
    await eventually(
      async () => fleet.every((r) => r.applied?.revision === revision && !r.applied?.pendingConfirm),
      10_000,
      'all confirmed',
    );
    const routers = (await api('/v1/routers?limit=100')).body.items;
    expect(routers.every((r: RouterSummary) => r.appliedRevision?.revision === revision)).toBe(true);
  });

  /** A new revision of "home" with this TTL, on top of its latest. */
  const reviseHome = async (ttl: number) => {
    const revise = await api('/v1/profiles/home', {
      method: 'PUT',
      body: {
        spec: { l3Rewrite: { ttl: { value: ttl } } },
        baseRevision: (await api('/v1/profiles/home')).body.revision,
      },
    });
    expect(revise.status).toBe(201);
  };

  it('pauses by itself when the canary fails, resumes on request, and aborts', async () => {
    await reviseHome(99);
    for (const r of fleet) failing.add(r['options'].identity);
    const created = await api('/v1/rollouts', {
      method: 'POST',
      body: { profile: 'home', selector: { all: true }, strategy: { canary: 2, batchSize: 5, maxFailureRatio: 0.25 } },
    });
    const paused = await waitFor(created.body.id, 'paused');
    expect(paused.counts.failed).toBe(2);
    expect(paused.pauseReason).toMatch(/2 of 2 routers failed/);
    expect(paused.counts.queued).toBe(10);
    failing.clear();
    const resumed = await api(`/v1/rollouts/${created.body.id}/resume`, { method: 'POST' });
    expect(resumed.status).toBe(200);
    const done = await waitFor(created.body.id, 'completed');
    expect(done.counts).toMatchObject({ applied: 10, failed: 2 });
    const again = await api(`/v1/rollouts/${created.body.id}/resume`, { method: 'POST' });
    expect(again.status).toBe(409);
    // Abort a scheduled rollout: nothing is sent.
    const later = await api('/v1/rollouts', {
      method: 'POST',
      body: { profile: 'home', selector: { all: true }, startAt: new Date(Date.now() + 3_600_000).toISOString() },
    });
    expect(later.body.state).toBe('scheduled');
    const aborted = await api(`/v1/rollouts/${later.body.id}/cancel`, { method: 'POST' });
    expect(aborted.body.state).toBe('cancelled');
    expect(aborted.body.counts.skipped).toBe(12);
    const actions = (await api(`/v1/audit?rollout=${created.body.id}`)).body.items.map((e: AuditEventView) => e.action);
    expect(actions).toEqual(
      expect.arrayContaining(['rollout.created', 'rollout.paused', 'rollout.resumed', 'rollout.completed']),
    );
  });

  it('a router that never answers fails its target after the result timeout, and the rollout pauses', async () => {
    await reviseHome(77);
    const [quiet, answering] = (await api('/v1/routers?limit=2')).body.items as RouterSummary[];
    silent.add(quiet!.identity);
    try {
      const created = await api('/v1/rollouts', {
        method: 'POST',
        body: {
          profile: 'home',
          selector: { ids: [quiet!.id, answering!.id] },
          strategy: { canary: 0, batchSize: 2, resultTimeoutSeconds: 5 },
        },
      });
      expect(created.status).toBe(201);
      // The answering router's result comes first: its advance finds the batch still waiting.
      // The silent one is judged by a later advance, once its 5 s have passed.
      const paused = await waitFor(created.body.id, 'paused', 30_000);
      expect(paused.counts).toMatchObject({ applied: 1, failed: 1 });
      expect(paused.pauseReason).toMatch(/1 of 2 routers failed/);
      const targets = await controller.db.prisma.rolloutTarget.findMany({ where: { rolloutId: created.body.id } });
      expect(targets.find((t) => t.routerId === quiet!.id)).toMatchObject({
        state: 'failed',
        error: 'no apply result within 5 s',
      });
      // `abort`, cancel's spelling of 0.1, still works until 0.3.
      const cancelled = await api(`/v1/rollouts/${created.body.id}/abort`, { method: 'POST' });
      expect(cancelled.body.state).toBe('cancelled');
    } finally {
      silent.clear();
    }
  });

  it('the audit chain verifies, and an edited row is named as the first broken link', async () => {
    const ok = await api('/v1/audit/verify');
    expect(ok.body.ok).toBe(true);
    expect(ok.body.checked).toBeGreaterThan(20);
    const victim = await controller.db.prisma.auditEvent.findFirstOrThrow({
      where: { action: 'profile.revised' },
      orderBy: { seq: 'asc' },
    });
    const { withTriggerDisabled } = await import('../../../server/storage/index.js');
    await withTriggerDisabled(
      controller.db.prisma,
      'AuditEvent',
      (tx) => tx.$executeRaw`UPDATE "AuditEvent" SET actor = 'token:mallory' WHERE seq = ${victim.seq}`,
    );
    const broken = await api('/v1/audit/verify');
    expect(broken.body.ok).toBe(false);
    expect(broken.body.firstBroken.seq).toBe(victim.seq.toString());
    expect(broken.body.firstBroken.reason).toMatch(/edited/);
    const exported = await fetch(`${controller.httpUrl}/v1/audit/export?actor=token:tester`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(exported.headers.get('content-type')).toMatch(/ndjson/);
    const lines = (await exported.text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.length).toBeGreaterThan(5);
    expect(lines.every((e) => e.actor === 'token:tester')).toBe(true);
    expect(lines.map((e) => Number(e.seq))).toEqual([...lines.map((e) => Number(e.seq))].sort((a, b) => a - b));
  });

  it("per-router overrides change that router's preview and what it is sent; invalid overrides are refused by path", async () => {
    const router = (await api('/v1/routers?soc=QCA9558&limit=1')).body.items[0];
    const bad = await api(`/v1/routers/${router.id}/assignment`, {
      method: 'PUT',
      body: { profile: 'home', overrides: { l3Rewrite: { ttl: { value: 0 } } } },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.details[0].path).toBe('/overrides/l3Rewrite/ttl/value');
    const ok = await api(`/v1/routers/${router.id}/assignment`, {
      method: 'PUT',
      body: { profile: 'home', overrides: { l3Rewrite: { ttl: { value: 42 } } } },
    });
    expect(ok.status).toBe(200);
    const preview = (await api(`/v1/routers/${router.id}/plan`)).body;
    expect(preview.effective.overrides).toEqual({ l3Rewrite: { ttl: { value: 42 } } });
    expect(preview.plan.datapath.programs.find((p: PlannedProgram) => p.name === 'set_ip_ttl').config.ttl).toBe(42);
    const rollout = await api('/v1/rollouts', {
      method: 'POST',
      body: { profile: 'home', selector: { ids: [router.id] } },
    });
    await waitFor(rollout.body.id, 'completed');
    const sim = fleet.find((r) => r['options'].identity === router.identity)!;
    expect(sim.lastDesired?.spec?.l3Rewrite?.ttl?.value).toBe(42);
    const audit = (await api(`/v1/audit?router=${router.id}&action=router.assignment.set`)).body.items;
    expect(audit.at(-1).diff).toEqual(expect.arrayContaining([expect.objectContaining({ path: '/overrides' })]));
  });

  it('mounts Bull Board for the Redis queue, for admin tokens only', async () => {
    const board = await fetch(`${controller.httpUrl}/admin/queues`, { headers: { authorization: `Bearer ${token}` } });
    expect(board.status).toBe(200);
    expect(await board.text()).toMatch(/bull/i);
    const { secret } = await controller.tokens.create({
      name: 'reader',
      owner: 'reader',
      scopes: ['read'],
      createdBy: 'test',
    });
    expect(
      (await fetch(`${controller.httpUrl}/admin/queues`, { headers: { authorization: `Bearer ${secret}` } })).status,
    ).toBe(403);
    expect((await fetch(`${controller.httpUrl}/admin/queues`)).status).toBe(401);
  });

  it('serves Prometheus metrics', async () => {
    const m = await api('/metrics');
    expect(m.status).toBe(200);
    expect(m.body).toMatch(/wrtfleet_connected_agents 12/);
    expect(m.body).toMatch(/wrtfleet_apply_results_total\{status="applied"\}/);
    expect(m.body).toMatch(/wrtfleet_job_queue_depth/);
  });
});
