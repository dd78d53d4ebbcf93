import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulatedFleet, stopFleet } from '../../../agent/sim/simulated-fleet.js';
import { defaultFixturesDir, fixtureModels } from '../../../agent/sim/fixtures.js';
import type { SimulatedRouter } from '../../../agent/sim/simulated-router.js';
import type { Controller } from '../../../server/controller.js';
import type { RolloutView } from '../../../server/rollouts/rollout-engine.js';
import { createPgliteDatabase, type TestDatabase } from '../../support/databases.js';
import { authedFetch, eventually, startTestController } from '../../support/controller.js';

const run = promisify(execFile);
const repo = path.resolve(import.meta.dirname, '../../..');
const FAST = { jitterWindowMs: 300, initialDelayMs: 50, maxDelayMs: 500 };
/** Hardware offload kept over rewriting: the QCA9558 has no PPE, so its plan is refused. */
const HW_SPEC = {
  l3Rewrite: { ttl: { value: 64 } },
  flowOffload: { mode: 'hardware' },
  conflictPolicy: 'prefer-offload',
};
/**
 * Long enough for a telemetry sample of every soaked router to be stored: one every 4 heartbeats
 * of 1 s, written within the 1 s flush.
 */
const SOAK = 7;

interface RouterItem {
  id: string;
  identity: string;
  soc: string;
}
interface AuditItem {
  action: string;
  actor: string;
  targetId: string;
  before: unknown;
  after: Record<string, unknown>;
}

/**
 * Rollouts that leave out what the plan refuses, aborts that give back what they never applied,
 * and a canary that waits (soak, health gates, manual promote), against the embedded default and
 * the demo's 12 simulated routers (4 of them QCA9558, which cannot offload in hardware).
 */
describe('rollouts: refused routers, abort, soak and promote (embedded default, 12 simulated routers)', () => {
  let db: TestDatabase;
  let controller: Controller;
  let api: ReturnType<typeof authedFetch>;
  let token: string;
  let fleet: SimulatedRouter[] = [];
  let routers: RouterItem[] = [];
  const failing = new Set<string>();

  beforeAll(async () => {
    db = await createPgliteDatabase();
    ({
      controller,
      token,
      fetch: api,
    } = await startTestController(db, {
      heartbeatIntervalSeconds: 1,
      missedHeartbeatsBeforeOffline: 10,
      telemetry: { flushSeconds: 1 },
    }));
    fleet = await startSimulatedFleet({
      controller: controller.grpcAddress,
      fixtureRoots: await fixtureModels(defaultFixturesDir()),
      perModel: 4,
      reconnect: FAST,
      outcome: (identity) => (failing.has(identity) ? 'fail' : 'apply'),
    });
    await eventually(async () => controller.gateway.sessions.size === 12, 20_000, '12 agents connected');
    routers = (await api<{ items: RouterItem[] }>('/v1/routers?limit=100')).body.items;
    expect(routers.filter((r) => r.soc === 'QCA9558')).toHaveLength(4);
  }, 60_000);

  afterAll(async () => {
    await stopFleet(fleet);
    await controller?.close();
    await db?.drop();
  });

  const ofSoc = (soc: string) => routers.filter((r) => r.soc === soc);
  const sim = (router: RouterItem) => fleet.find((s) => s.identity === router.identity)!;
  const view = async (id: string) => (await api<RolloutView>(`/v1/rollouts/${id}`)).body;
  const waitFor = (id: string, state: string, timeoutMs = 30_000) =>
    eventually(async () => ((await view(id)).state === state ? view(id) : undefined), timeoutMs, `rollout ${state}`);
  const save = async (name: string, spec: unknown) => {
    const current = await api<{ revision?: number }>(`/v1/profiles/${name}`);
    const saved = await api(`/v1/profiles/${name}`, {
      method: 'PUT',
      body: { spec, ...(current.status === 200 ? { baseRevision: current.body.revision } : {}) },
    });
    expect([200, 201]).toContain(saved.status);
  };
  const create = async (body: Record<string, unknown>) => {
    const created = await api<RolloutView>('/v1/rollouts', { method: 'POST', body });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body;
  };
  const desiredOf = (routerId: string) =>
    controller.db.prisma.router.findUniqueOrThrow({
      where: { id: routerId },
      select: {
        desiredRevisionId: true,
        desiredRolloutId: true,
        assignment: { select: { profileId: true, pinnedRevision: true, overrides: true } },
      },
    });

  it('counts what the plan refuses over every matched router, and a rollout can leave those routers out', async () => {
    await save('hw', HW_SPEC);
    const preview = await api<{ matched: number; items: unknown[]; summary: Record<string, number> }>(
      '/v1/plan-preview',
      { method: 'POST', body: { profile: 'hw', selector: { all: true }, limit: 1 } },
    );
    expect(preview.body.items).toHaveLength(1);
    // The summary covers all 12, not just the one item.
    expect(preview.body.summary).toEqual({ satisfiable: 8, refused: 4, changing: 8, unchanged: 0 });

    const qca = ofSoc('QCA9558');
    const before = await Promise.all(qca.map((r) => desiredOf(r.id)));
    const rollout = await create({
      profile: 'hw',
      selector: { all: true },
      skipRefused: true,
      strategy: { canary: 1, batchSize: 4 },
    });
    expect(rollout).toMatchObject({ total: 12, leftOut: 4, batchCount: 3 });
    const done = await waitFor(rollout.id, 'completed');
    expect(done.counts).toMatchObject({ applied: 8, failed: 0, skipped: 4 });
    const targets = (
      await api<{ items: { routerId: string; batch: number; state: string; error: string | null }[] }>(
        `/v1/rollouts/${rollout.id}/targets?state=skipped`,
      )
    ).body.items;
    expect(targets.map((t) => t.routerId).sort()).toEqual(qca.map((r) => r.id).sort());
    for (const t of targets) {
      expect(t.batch).toBe(-1);
      expect(t.error).toMatch(/^left out, the plan refuses it: flowOffload.mode is hardware .* QCA9558: /);
    }
    // Never sent, never pinned: the refused routers are as they were.
    expect(await Promise.all(qca.map((r) => desiredOf(r.id)))).toEqual(before);
    for (const r of qca) expect(sim(r).history.filter((h) => h.profile === 'hw')).toEqual([]);
    const created = (await api<{ items: AuditItem[] }>(`/v1/audit?rollout=${rollout.id}&action=rollout.created`)).body
      .items[0]!;
    expect(created.after).toMatchObject({ targets: 8, skipRefused: true, leftOut: 4 });

    // Nothing left to roll out: said so, and nothing is created.
    const none = await api('/v1/rollouts', {
      method: 'POST',
      body: { profile: 'hw', selector: { soc: ['QCA9558'] }, skipRefused: true },
    });
    expect(none.status).toBe(400);
    expect((none.body as { message: string }).message).toMatch(/the plan refuses every router/);
  });

  it('abort gives routers that did not apply the revision back their desired revision and assignment', async () => {
    // Every router runs "base" first: the state an abort must give back.
    await save('base', { l3Rewrite: { ttl: { value: 65 } } });
    const baseRollout = await create({
      profile: 'base',
      selector: { all: true },
      strategy: { canary: 0, batchSize: 12 },
    });
    await waitFor(baseRollout.id, 'completed');
    const before = new Map(await Promise.all(routers.map(async (r) => [r.id, await desiredOf(r.id)] as const)));
    expect(before.get(ofSoc('QCA9558')[0]!.id)!.desiredRolloutId).toBe(baseRollout.id);

    // The operator's mistake: the offload profile to everyone, the refused routers included.
    await save('hw', { ...HW_SPEC, l3Rewrite: { ttl: { value: 63 } } });
    const rollout = await create({ profile: 'hw', selector: { all: true }, strategy: { canary: 0, batchSize: 12 } });
    const paused = await waitFor(rollout.id, 'paused');
    expect(paused.counts).toMatchObject({ applied: 8, failed: 4 });
    const qca = ofSoc('QCA9558');
    for (const r of qca) expect((await desiredOf(r.id)).desiredRolloutId).toBe(rollout.id);

    const aborted = await api<RolloutView>(`/v1/rollouts/${rollout.id}/cancel`, { method: 'POST' });
    expect(aborted.status).toBe(200);
    expect(aborted.body).toMatchObject({ state: 'cancelled', pauseReason: null });
    // The failed ones are back on "base", desired revision and assignment both; the others keep "hw".
    for (const r of qca) expect(await desiredOf(r.id), r.identity).toEqual(before.get(r.id));
    for (const r of routers.filter((x) => x.soc !== 'QCA9558'))
      expect((await desiredOf(r.id)).desiredRolloutId).toBe(rollout.id);
    const restored = (await api<{ items: AuditItem[] }>('/v1/audit?action=router.desired.restored&limit=50')).body
      .items;
    expect(restored.map((e) => e.targetId).sort()).toEqual(qca.map((r) => r.id).sort());
    for (const e of restored) {
      expect(e.actor).toBe('token:tester');
      expect(e.after).toMatchObject({
        desiredRevision: { profile: 'base', revision: 1 },
        assignment: { profile: 'base', pinnedRevision: 1 },
        rollout: rollout.id,
        target: 'failed',
      });
    }
    const abortEvent = (await api<{ items: AuditItem[] }>(`/v1/audit?rollout=${rollout.id}&action=rollout.cancelled`))
      .body.items[0]!;
    expect(abortEvent.after).toMatchObject({ state: 'cancelled', released: 4 });
  });

  it('soaks after the canary before the next batch, then goes on when the gates pass', async () => {
    await save('soak', { l3Rewrite: { ttl: { value: 70 } } });
    const mt = ofSoc('MT7621');
    const started = Date.now();
    const rollout = await create({
      profile: 'soak',
      selector: { soc: ['MT7621'] },
      strategy: { canary: 1, batchSize: 3, soakSeconds: SOAK },
    });
    const soaking = await waitFor(rollout.id, 'soaking');
    expect(soaking.counts).toMatchObject({ applied: 1, queued: 3 });
    expect(Date.parse(soaking.soakUntil!) - Date.now()).toBeGreaterThan((SOAK - 3) * 1000);
    // Halfway through the soak, still nothing sent to the next batch.
    await new Promise((r) => setTimeout(r, (SOAK * 1000) / 2));
    expect((await view(rollout.id)).state).toBe('soaking');
    expect(mt.filter((r) => sim(r).history.some((h) => h.profile === 'soak'))).toHaveLength(1);
    const done = await waitFor(rollout.id, 'completed');
    expect(done.counts).toMatchObject({ applied: 4 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(SOAK * 1000);
  });

  it('waits for a promote after the canary: a reader may not, a writer may, once', async () => {
    await save('soak', { l3Rewrite: { ttl: { value: 71 } } });
    const rollout = await create({
      profile: 'soak',
      selector: { soc: ['MT7621'] },
      strategy: { canary: 1, batchSize: 3, soakSeconds: SOAK, promote: 'manual' },
    });
    const early = await api(`/v1/rollouts/${rollout.id}/promote`, { method: 'POST' });
    expect(early.status).toBe(409);
    expect((early.body as { message: string }).message).toMatch(/can only be promoted from awaiting_approval/);
    const waiting = await waitFor(rollout.id, 'awaiting_approval', 40_000);
    expect(waiting).toMatchObject({ currentBatch: 1, soakUntil: null });
    expect(waiting.counts).toMatchObject({ applied: 1, queued: 3, sent: 0 });
    // It stays there.
    await new Promise((r) => setTimeout(r, 2_500));
    expect((await view(rollout.id)).state).toBe('awaiting_approval');

    const reader = await controller.tokens.create({ name: 'r', owner: 'rita', scopes: ['read'], createdBy: 'test' });
    const refused = await fetch(`${controller.httpUrl}/v1/rollouts/${rollout.id}/promote`, {
      method: 'POST',
      headers: { authorization: `Bearer ${reader.secret}` },
    });
    expect(refused.status).toBe(403);
    const promoted = await api<RolloutView>(`/v1/rollouts/${rollout.id}/promote`, { method: 'POST' });
    expect(promoted.status).toBe(200);
    expect(promoted.body.state).toBe('running');
    const done = await waitFor(rollout.id, 'completed');
    expect(done.counts).toMatchObject({ applied: 4 });
    const actions = (await api<{ items: AuditItem[] }>(`/v1/audit?rollout=${rollout.id}`)).body.items;
    expect(actions.find((e) => e.action === 'rollout.awaiting_approval')).toMatchObject({ actor: 'system' });
    expect(actions.find((e) => e.action === 'rollout.promoted')).toMatchObject({ actor: 'token:tester' });
  }, 60_000);

  it('pauses when a health gate fails, in words, and resuming goes on without soaking that batch again', async () => {
    await save('soak', { l3Rewrite: { ttl: { value: 72 } } });
    const [canary] = ofSoc('MT7621');
    // The canary goes quiet: its telemetry stops during the soak.
    sim(canary!).pauseTelemetry(true);
    try {
      const rollout = await create({
        profile: 'soak',
        selector: { soc: ['MT7621'] },
        strategy: { canary: 1, batchSize: 3, soakSeconds: SOAK },
      });
      const paused = await waitFor(rollout.id, 'paused', 40_000);
      expect(paused.pauseGate).toBe('telemetry');
      expect(paused.pauseReason).toMatch(
        new RegExp(
          `^health gate failed: 1 of 1 routers of the first batch sent no telemetry during the ${SOAK} s soak`,
        ),
      );
      expect(paused.counts).toMatchObject({ applied: 1, queued: 3 });
      const resumed = await api<RolloutView>(`/v1/rollouts/${rollout.id}/resume`, { method: 'POST' });
      expect(resumed.body).toMatchObject({ state: 'running', pauseGate: null, pauseReason: null });
      const done = await waitFor(rollout.id, 'completed', 15_000);
      expect(done.counts).toMatchObject({ applied: 4 });
    } finally {
      sim(canary!).pauseTelemetry(false);
    }
  }, 60_000);

  it('a drift reported during the soak pauses the rollout at the drift gate', async () => {
    await save('soak', { l3Rewrite: { ttl: { value: 73 } } });
    const rollout = await create({
      profile: 'soak',
      selector: { soc: ['MT7621'] },
      strategy: { canary: 1, batchSize: 3, soakSeconds: SOAK },
    });
    await waitFor(rollout.id, 'soaking');
    const target = (
      await api<{ items: { routerId: string; name: string }[] }>(`/v1/rollouts/${rollout.id}/targets?state=applied`)
    ).body.items[0]!;
    await controller.registry.recordDrift(target.routerId, {
      profile: 'soak',
      revision: 4,
      differences: [{ path: 'nft/table', expected: 'present', actual: 'absent' }],
    });
    const paused = await waitFor(rollout.id, 'paused', 40_000);
    expect(paused.pauseGate).toBe('drift');
    expect(paused.pauseReason).toContain(
      `health gate failed: 1 of 1 routers of the first batch reported drift during the soak (${target.name})`,
    );
    const event = (await api<{ items: AuditItem[] }>(`/v1/audit?rollout=${rollout.id}&action=rollout.paused`)).body
      .items[0]!;
    expect(event).toMatchObject({ actor: 'system', after: { gate: 'drift', batch: 0 } });
    await api(`/v1/rollouts/${rollout.id}/cancel`, { method: 'POST' });
  }, 60_000);

  /** The CLI's bin, as cli.test.ts runs it: exit code and output. */
  const cli = async (...args: string[]) => {
    try {
      const { stdout, stderr } = await run(process.execPath, ['cli/bin.mjs', ...args], {
        cwd: repo,
        env: { ...process.env, WRTFLEET_URL: controller.httpUrl, WRTFLEET_TOKEN: token },
        timeout: 60_000,
      });
      return { code: 0, stdout, stderr };
    } catch (err) {
      const e = err as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
  };

  it('the CLI: soak and promote flags, the time left, `rollout promote`, and leaving refused routers out', async () => {
    expect((await cli('rollouts', 'create', '--profile', 'soak', '--soc', 'MT7986', '--promote', 'later')).code).toBe(
      2,
    );
    await save('soak', { l3Rewrite: { ttl: { value: 74 } } });
    const created = await cli(
      'rollouts',
      'create',
      '--profile',
      'soak',
      '--soc',
      'MT7986',
      '--canary',
      '1',
      '--batch',
      '3',
      '--soak',
      String(SOAK),
      '--promote',
      'manual',
      '--json',
    );
    expect(created.code, created.stderr).toBe(0);
    const rollout = JSON.parse(created.stdout) as RolloutView;
    expect(rollout.strategy).toMatchObject({ soakSeconds: SOAK, promote: 'manual' });
    await waitFor(rollout.id, 'soaking');
    expect((await cli('rollouts', 'status', rollout.id)).stdout).toMatch(/ soaking \(\d+ s left\)/);
    await waitFor(rollout.id, 'awaiting_approval', 40_000);
    const promoted = await cli('rollouts', 'promote', rollout.id);
    expect(promoted).toMatchObject({ code: 0, stdout: `rollout ${rollout.id}: running\n` });
    expect((await waitFor(rollout.id, 'completed')).counts).toMatchObject({ applied: 4 });

    const leftOut = await cli(
      'rollouts',
      'create',
      '--profile',
      'hw',
      '--soc',
      'QCA9558',
      '--soc',
      'MT7986',
      '--skip-refused',
    );
    expect(leftOut.code, leftOut.stderr).toBe(0);
    expect(leftOut.stdout).toMatch(/to 4 routers in 2 batches \(running\); 4 left out, the plan refuses them/);
  }, 60_000);

  it('refuses a strategy out of bounds by its field', async () => {
    const bad = await api<{ details: { path: string }[] }>('/v1/rollouts', {
      method: 'POST',
      body: { profile: 'soak', selector: { all: true }, strategy: { soakSeconds: -1, promote: 'later' } },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.details.map((d) => d.path).join(' ')).toMatch(/\/strategy\/(soakSeconds|promote)/);
  });
});
