import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulatedFleet, stopFleet } from '../../../agent/sim/simulated-fleet.js';
import { defaultFixturesDir, fixtureModels } from '../../../agent/sim/fixtures.js';
import type { SimulatedRouter } from '../../../agent/sim/simulated-router.js';
import type { Controller } from '../../../server/controller.js';
import { waitForJob } from '../../support/commands.js';
import { authedFetch, eventually, startTestController } from '../../support/controller.js';
import { createPgliteDatabase, type TestDatabase } from '../../support/databases.js';

const FAST = { jitterWindowMs: 300, initialDelayMs: 50, maxDelayMs: 500 };
const PROFILE = 'ttl64-offload';

/**
 * After a rollback, what the controller says of a router is what the router runs: applied,
 * desired, assignment, live programs, offload and drift agree, and the API says what happens
 * next. The routers are simulated above the contract (MIPS boxes cannot run here); their
 * rollback follows the real agent's (agent/apply/confirm-window.ts).
 */
describe('the state after an operator rolls a router back (PGlite, simulated QCA9558 routers over gRPC)', () => {
  let db: TestDatabase;
  let controller: Controller;
  let api: ReturnType<typeof authedFetch>;
  let fleet: SimulatedRouter[] = [];
  let qca: { id: string; router: SimulatedRouter }[] = [];

  beforeAll(async () => {
    db = await createPgliteDatabase();
    ({ controller, fetch: api } = await startTestController(db, { security: { insecureAgents: true } }));
    fleet = await startSimulatedFleet({
      controller: controller.grpcAddress,
      fixtureRoots: await fixtureModels(defaultFixturesDir()),
      perModel: 2,
      reconnect: FAST,
    });
    await eventually(async () => controller.gateway.sessions.size === 6, 15_000, 'six agents');
    const rows = await controller.db.prisma.router.findMany({
      where: { soc: 'QCA9558' },
      select: { id: true, identity: true },
    });
    qca = rows.map((r) => ({ id: r.id, router: fleet.find((f) => f.identity === r.identity)! }));
    expect(qca).toHaveLength(2);
  });

  afterAll(async () => {
    await stopFleet(fleet);
    await controller?.close();
    await db?.drop();
  });

  const rollOut = async (revision: number) => {
    const created = await api('/v1/rollouts', {
      method: 'POST',
      body: { profile: PROFILE, revision, selector: { soc: ['QCA9558'] }, strategy: { canary: 0, batchSize: 10 } },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    await eventually(
      async () => (await api(`/v1/rollouts/${created.body.id}`)).body.state === 'completed',
      20_000,
      `rollout of @${revision} completed`,
    );
    return created.body.id as string;
  };

  it('a rollback moves desired and the assignment to what the router runs; programs, offload and drift follow', async () => {
    // Revision 1 without timestamp clearing, revision 2 with it: their programs differ.
    const r1 = await api(`/v1/profiles/${PROFILE}`, {
      method: 'PUT',
      body: { spec: { l3Rewrite: { ttl: { value: 64 }, tcpts: false } } },
    });
    expect(r1.status, JSON.stringify(r1.body)).toBe(201);
    await rollOut(1);
    const r2 = await api(`/v1/profiles/${PROFILE}`, {
      method: 'PUT',
      body: { spec: { l3Rewrite: { ttl: { value: 64 } } }, baseRevision: 1 },
    });
    expect(r2.body.revision).toBe(2);
    await rollOut(2);

    const { id, router } = qca[0]!;
    const programsNow = async () =>
      ((await api(`/v1/routers/${id}`)).body.liveState?.datapath?.programs ?? []) as string[];
    expect(await programsNow()).toContain('clear_tcp_syn_ts');

    const command = await api(`/v1/routers/${id}/commands`, { method: 'POST', body: { kind: 'rollback' } });
    expect(command.status, JSON.stringify(command.body)).toBe(201);
    const done = await waitForJob(api, command.body.id, (j) => j.state === 'completed');
    expect(done.counts.succeeded).toBe(1);

    // Applied, desired and assignment agree on revision 1, and the API says why and what next.
    const revisions = await eventually(
      async () => {
        const r = (await api(`/v1/routers/${id}/revisions`)).body;
        return r.applied?.revision === 1 ? r : undefined;
      },
      10_000,
      'the rollback recorded',
    );
    expect(revisions).toMatchObject({
      applied: { profile: PROFILE, revision: 1 },
      desired: { profile: PROFILE, revision: 1, rolloutId: null },
      assignment: { profile: PROFILE, pinnedRevision: 1 },
      state: 'held_after_rollback',
      rollback: {
        revision: { profile: PROFILE, revision: 2 },
        to: { profile: PROFILE, revision: 1 },
        reason: 'rollback requested by the controller',
      },
    });
    expect(revisions.next).toMatch(new RegExp(`^Stays on ${PROFILE}@1\\. ${PROFILE}@2 was rolled back`));
    expect(revisions.next).toMatch(/applied again only by a new rollout or an assignment/);

    // The live programs are revision 1's.
    expect(await programsNow()).not.toContain('clear_tcp_syn_ts');
    const listed = (await api(`/v1/routers/${id}`)).body;
    expect(listed).toMatchObject({
      appliedRevision: { profile: PROFILE, revision: 1 },
      desiredRevision: { profile: PROFILE, revision: 1 },
    });

    // A drift check reports against the revision the router runs, and the controller agrees.
    const drift = await api(`/v1/routers/${id}/commands`, { method: 'POST', body: { kind: 'check_drift' } });
    await waitForJob(api, drift.body.id, (j) => j.state === 'completed');
    const report = await eventually(
      async () => (await api(`/v1/routers/${id}/drift`)).body.report ?? undefined,
      10_000,
      'a drift report',
    );
    expect(report.revision).toEqual({ profile: PROFILE, revision: 1 });

    // The agent event says where the controller now wants the router.
    const audit = (await api(`/v1/audit?router=${id}&order=desc&action=apply.rolled_back`)).body.items;
    expect(audit[0].after).toMatchObject({ revision: 2, desiredNow: { profile: PROFILE, revision: 1 } });

    // Reconnecting does not bring revision 2 back: nothing sends what was rolled back.
    const applies = router.history.length;
    const sessions = router.link.sessions;
    router.link.drop(200);
    await eventually(async () => router.link.sessions > sessions, 10_000, 'the router back on a new stream');
    await new Promise((r) => setTimeout(r, 2_000));
    expect(router.history.slice(applies)).toEqual([]);
    expect(router.applied).toMatchObject({ profile: PROFILE, revision: 1 });

    // The other QCA9558 router was not touched and is in step on revision 2.
    const other = (await api(`/v1/routers/${qca[1]!.id}/revisions`)).body;
    expect(other).toMatchObject({ state: 'in_step', applied: { revision: 2 }, desired: { revision: 2 } });
    expect(other.next).toMatch(/^In step: stays on ttl64-offload@2/);
  });

  it("the router page's offload state is the one the router reports now, not the Hello's from before the apply", async () => {
    const { id } = qca[1]!;
    // QCA9558: no flow-offload engine, so auto means software offloading once applied.
    const offload = await eventually(
      async () => {
        const live = (await api(`/v1/routers/${id}`)).body.liveState;
        const mode = live?.offload?.mode;
        return mode === 2 || mode === 'MODE_SOFTWARE' || mode === 'software' ? live.offload : undefined;
      },
      20_000,
      'liveState.offload says software',
    );
    expect(offload).toBeTruthy();
  });
});
