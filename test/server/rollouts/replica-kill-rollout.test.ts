import type { ChildProcess } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { startSimulatedFleet, stopFleet } from '../../../agent/sim/simulated-fleet.js';
import { defaultFixturesDir, fixtureModels } from '../../../agent/sim/fixtures.js';
import type { SimulatedRouter } from '../../../agent/sim/simulated-router.js';
import type { Controller } from '../../../server/controller.js';
import type { RolloutView } from '../../../server/rollouts/rollout-engine.js';
import { authedFetch, eventually, startTestController, testConfig } from '../../support/controller.js';
import { spawnController } from '../../support/controller-process.js';
import { createPostgresDatabase, type TestDatabase } from '../../support/databases.js';
import { freePort } from '../../support/ports.js';

const REDIS_URL = process.env.WRTFLEET_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
/**
 * Two kinds of router in every batch: fast ones, and slow ones still applying when a fast one
 * answers, and (mostly) still applying when they reach B after A died.
 */
const FAST_APPLY_MS = 300;
const SLOW_APPLY_MS = 2_000;
/** The shortest commit-confirm window a spec allows: a router nobody confirms rolls back inside the test. */
const CONFIRM_WINDOW_SECONDS = 10;

interface ApplyResultItem {
  status: 'pending' | 'applied' | 'failed' | 'rolled_back';
  revision: { profile: string; revision: number } | null;
  evidence: { unchanged?: boolean } | null;
}

/**
 * Issue #22: two replicas on one PostgreSQL + Redis, a rollout created on replica A (a child
 * process), A killed with SIGKILL while a batch is being applied. Every agent is given both
 * addresses; those on A fail over to B, B takes the rollout over, and nothing is lost or
 * counted twice on the way.
 */
describe('a replica killed mid-rollout (SIGKILL; PostgreSQL + BullMQ on Redis)', () => {
  let child: ChildProcess | undefined;
  let replicaB: Controller | undefined;
  let fleet: SimulatedRouter[] = [];
  let db: TestDatabase | undefined;
  afterAll(async () => {
    child?.kill('SIGKILL');
    await stopFleet(fleet);
    await replicaB?.close();
    await db?.drop();
  });

  it('its agents move to B within 30 s and the rollout completes on B, every router applied once', async () => {
    db = await createPostgresDatabase();
    const [httpA, grpcA] = [await freePort(), await freePort()];
    child = spawnController(
      db,
      { http: httpA, grpc: grpcA },
      {
        // The installation B joins below: the same queue and fleet bus.
        WRTFLEET_REDIS_PREFIX: testConfig(db).redisPrefix!,
        // About fail-over, not transport security (test/security covers mTLS).
        WRTFLEET_INSECURE_AGENTS: 'true',
      },
    );
    const replicaA = child;
    // B starts while A does (migrations wait on each other's lock); its token is in the shared
    // database, so it is good on A too.
    const b = await startTestController(db, { redisUrl: REDIS_URL });
    replicaB = b.controller;
    const viaB = b.fetch;
    await eventually(
      async () => (await fetch(`http://127.0.0.1:${httpA}/healthz`).catch(() => null))?.ok,
      // Under tsx on a loaded machine a cold start can take half a minute; not what is measured here.
      60_000,
      'replica A up',
    );
    const viaA = authedFetch(`http://127.0.0.1:${httpA}`, b.token);
    const addressA = `127.0.0.1:${grpcA}`;
    const addressB = replicaB.grpcAddress;

    // Serials 1-3 of each model slow, 4-6 fast: routers register in the order they start, and
    // batches follow that order, so batches hold both kinds. (Not by parity: with two addresses
    // the home hash follows the serial's parity, so every slow router would have one home.)
    const isSlow = (identity: string) => Number(identity.split(':').at(-1)) <= 3;
    fleet = await startSimulatedFleet({
      controller: `${addressA},${addressB}`,
      fixtureRoots: await fixtureModels(defaultFixturesDir()),
      perModel: 6,
      applyDelayMs: (identity) => (isSlow(identity) ? SLOW_APPLY_MS : FAST_APPLY_MS),
      // A never returns here: no agent needs to check for its home.
      reconnect: { jitterWindowMs: 500, initialDelayMs: 100, maxDelayMs: 1_000, homeCheckMs: 0 },
    });
    const slow = fleet.filter((r) => isSlow(r.identity));
    const fast = fleet.filter((r) => !slow.includes(r));
    expect(slow.length).toBe(fast.length);
    const onA = fleet.filter((r) => r.link.homeAddress === addressA);
    expect(onA.length).toBeGreaterThan(2);
    expect(onA.length).toBeLessThan(fleet.length - 2);
    await eventually(
      async () =>
        fleet.every((r) => r.link.state === 'connected' && r.link.address === r.link.homeAddress) &&
        (await viaB('/v1/routers?status=online&limit=100')).body.items?.length === fleet.length,
      20_000,
      'every router online on its home replica',
    );

    // The rollout is A's: created through A, its first advance queued by A.
    const saved = await viaA('/v1/profiles/site', {
      method: 'PUT',
      body: { spec: { l3Rewrite: { ttl: { value: 128 } }, commitConfirm: { windowSeconds: CONFIRM_WINDOW_SECONDS } } },
    });
    expect(saved.status).toBe(201);
    const created = await viaA<RolloutView>('/v1/rollouts', {
      method: 'POST',
      body: { profile: 'site', selector: { all: true }, strategy: { canary: 1, batchSize: 3 } },
    });
    expect(created.status).toBe(201);
    const rolloutId = created.body.id;
    expect(created.body.batchCount).toBe(1 + Math.ceil((fleet.length - 1) / 3));

    // A dies as a fast router of its own writes its apply result (past the canary) while a slow
    // one of its own is still applying: that result is written but never read, and the slow one
    // answers after the failover. The kill comes first, so A cannot read the result before it dies.
    const applyingOnA = () => onA.filter((r) => r.lastDesired && r.history.length === 0);
    let killedAt = 0;
    let inFlight: SimulatedRouter | undefined;
    // Listened for before the kill can happen: an exit already past is never emitted again.
    const exited = new Promise((r) => replicaA.once('exit', r));
    for (const r of fast.filter((x) => onA.includes(x))) {
      const send = r.link.send.bind(r.link);
      r.link.send = (body) => {
        const pastCanary = fleet.some((x) => x !== r && x.history.length > 0);
        if (!killedAt && body.$case === 'applyResult' && pastCanary && applyingOnA().some((x) => slow.includes(x))) {
          replicaA.kill('SIGKILL');
          killedAt = Date.now();
          inFlight = r;
        }
        return send(body);
      };
    }
    await eventually(async () => killedAt > 0, 40_000, 'a fast router on A answering while a slow one applies');
    const midApply = applyingOnA();
    const unconfirmed = onA.filter((r) => r.applied?.pendingConfirm);
    await exited;
    expect(inFlight?.history.at(-1)?.status).toBe('applied');
    expect(midApply.length).toBeGreaterThan(0);
    const before = (await viaB<RolloutView>(`/v1/rollouts/${rolloutId}`)).body;
    expect(before.state).toBe('running');
    expect(before.counts.applied).toBeLessThan(fleet.length);

    // Failed over: each of A's agents has a stream on B, and B's API shows it online.
    const movedAt = new Map<SimulatedRouter, number>();
    await eventually(
      async () => {
        for (const r of onA) {
          const routerId = r.link.welcome?.routerId;
          const onB = r.link.state === 'connected' && r.link.address === addressB;
          if (!movedAt.has(r) && onB && routerId && replicaB!.gateway.sessions.has(routerId))
            movedAt.set(r, Date.now() - killedAt);
        }
        return movedAt.size === onA.length;
      },
      30_000,
      "every one of A's agents on B",
    );
    const slowest = Math.max(...movedAt.values());
    await eventually(
      async () => (await viaB('/v1/routers?status=online&limit=100')).body.items?.length === fleet.length,
      30_000 - (Date.now() - killedAt),
      'every router online through B',
    );
    const online = Date.now() - killedAt;
    console.log(
      `replica-kill: ${onA.length} of ${fleet.length} routers were on A; at the kill ${midApply.length} mid-apply, ` +
        `${unconfirmed.length} unconfirmed (one of them with its result in flight); ` +
        `slowest stream on B after ${slowest} ms, all online through B after ${online} ms`,
    );
    expect(slowest).toBeLessThan(30_000);
    expect(online).toBeLessThan(30_000);

    // B takes the rollout over to the end.
    const done = await eventually(
      async () => {
        const view = (await viaB<RolloutView>(`/v1/rollouts/${rolloutId}`)).body;
        return view.state !== 'running' ? view : undefined;
      },
      40_000,
      'the rollout to end',
    );
    console.log(`replica-kill: rollout ${done.state} ${Date.now() - killedAt} ms after the kill`);
    expect(done).toMatchObject({ state: 'completed', total: fleet.length, finished: fleet.length });
    expect(done.counts).toEqual({
      queued: 0,
      sent: 0,
      applied: fleet.length,
      failed: 0,
      rolled_back: 0,
      skipped: 0,
      upgraded: 0,
      unconfirmed: 0,
    });

    // Each router runs revision 1, confirmed: none waits to roll back by itself later.
    for (const r of fleet) expect(r.applied, r.identity).toMatchObject({ revision: 1, pendingConfirm: false });
    // The ones caught mid-apply ended confirmed, or rolled back and then applied again: never stuck.
    for (const r of [...midApply, ...unconfirmed, inFlight!]) {
      expect(r.confirmations, r.identity).toBeGreaterThanOrEqual(1);
      expect(r.history.at(-1), r.identity).toEqual({ profile: 'site', revision: 1, status: 'applied' });
    }

    let repeated = 0;
    for (const r of fleet) {
      const routerId = r.link.welcome!.routerId;
      // What the operator sees of the router: online, running and wanting revision 1.
      const revisions = (await viaB(`/v1/routers/${routerId}/revisions`)).body;
      expect(revisions.applied, r.identity).toEqual({ profile: 'site', revision: 1 });
      // Its apply history is the router's own, one stored result per report: none lost, none twice.
      const results = (await viaB<{ items: ApplyResultItem[] }>(`/v1/routers/${routerId}/apply-results?limit=50`)).body
        .items;
      const changed = results
        .filter((x) => !x.evidence?.unchanged)
        .reverse()
        .map((x) => ({ ...x.revision, status: x.status }));
      expect(changed, r.identity).toEqual(r.history);
      repeated += results.length - changed.length;
      // A router that stayed on B had one stream all along: one desired state, one result.
      if (!onA.includes(r)) expect(results.length, r.identity).toBe(1);
      // Applied twice would be two applies of revision 1 with no rollback between them.
      const applies = r.history.filter((h) => h.status === 'applied').length;
      const rollbacks = r.history.filter((h) => h.status === 'rolled_back').length;
      expect(applies, r.identity).toBe(rollbacks + 1);
      // One audit event per stored result, with the agent as its actor.
      const events = await replicaB.db.prisma.auditEvent.findMany({
        where: { targetType: 'router', targetId: routerId, action: { startsWith: 'apply.' } },
      });
      expect(events.length, r.identity).toBe(results.length);
    }

    // A router that reached B while still applying was sent its desired state again, and said it
    // already ran it: stored, but not an apply.
    console.log(`replica-kill: ${repeated} desired state(s) sent again to a router already running it`);
    const verdict = (await viaB('/v1/audit/verify')).body;
    expect(verdict).toMatchObject({ ok: true, missingCount: 0 });
  }, 180_000);
});
