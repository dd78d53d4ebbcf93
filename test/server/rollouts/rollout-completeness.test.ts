import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Controller } from '../../../server/controller.js';
import type { RolloutView } from '../../../server/rollouts/rollout-engine.js';
import { createPostgresDatabase, type TestDatabase } from '../../support/databases.js';
import { startTestController } from '../../support/controller.js';

const REDIS_URL = process.env.WRTFLEET_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const ACTOR = { actor: 'token:tester' };

/**
 * `completed` must mean that every target has an outcome, at fleet sizes where storing the
 * targets takes several statements. The routers are rows (no agents): the test answers for the
 * online ones itself and drives `advance` itself, so that no step depends on which worker of
 * the shared Redis queue picks up a job.
 */
describe('a rollout is completed only when every target has an outcome (PostgreSQL + BullMQ on Redis)', () => {
  let db: TestDatabase;
  let controller: Controller;

  beforeAll(async () => {
    db = await createPostgresDatabase();
    // Long heartbeats: the rows stand for routers that stay online for the whole test.
    ({ controller } = await startTestController(db, { redisUrl: REDIS_URL, heartbeatIntervalSeconds: 60 }));
    expect(controller.tasks.kind).toBe('bullmq');
    await controller.profiles.save('fleet', { l3Rewrite: { ttl: { value: 65 } } }, undefined, ACTOR);
  });

  afterAll(async () => {
    await controller?.close();
    await db?.drop();
  });

  const prisma = () => controller.db.prisma;

  /** `count` routers tagged `tag`, every tenth of them offline. */
  async function addRouters(tag: string, count: number) {
    const now = new Date();
    await prisma().router.createMany({
      data: Array.from({ length: count }, (_, i) => ({
        name: `${tag}-${i}`,
        identity: `${tag}:${i}`,
        status: i % 10 === 9 ? ('offline' as const) : ('online' as const),
        lastSeenAt: now,
        tags: [tag],
      })),
    });
  }

  /**
   * Plays the fleet: every sent target applies, and the rollout is advanced, until it stops
   * running. With `perRouter` each result goes through `onApplyResult` as the gateway passes
   * it on; otherwise a batch answers in one UPDATE (what `onApplyResult` does per router),
   * which keeps fleets of thousands to seconds.
   */
  async function driveToEnd(rolloutId: string, perRouter = false, timeoutMs = 90_000): Promise<RolloutView> {
    const { revisionId } = await prisma().rollout.findUniqueOrThrow({ where: { id: rolloutId } });
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const view = (await controller.rollouts.view(rolloutId))!;
      if (view.state !== 'running' && view.state !== 'scheduled') return view;
      if (perRouter) {
        const sent = await prisma().rolloutTarget.findMany({ where: { rolloutId, state: 'sent' } });
        for (const t of sent) await controller.rollouts.onApplyResult(t.routerId, revisionId, 'applied', null);
      } else {
        await prisma().rolloutTarget.updateMany({
          where: { rolloutId, state: 'sent' },
          data: { state: 'applied', finishedAt: new Date() },
        });
      }
      await controller.rollouts.advance(rolloutId);
    }
    throw new Error(`rollout ${rolloutId} still running after ${timeoutMs} ms`);
  }

  /** Every target has an outcome; each batch was sent only after the one before had finished. */
  async function expectEveryTargetFinished(rolloutId: string, routers: number) {
    const targets = await prisma().rolloutTarget.findMany({ where: { rolloutId } });
    expect(targets).toHaveLength(routers);
    const unfinished = targets.filter((t) => t.state === 'queued' || t.state === 'sent');
    expect(unfinished.length, `unfinished targets in batches ${[...new Set(unfinished.map((t) => t.batch))]}`).toBe(0);
    expect(targets.filter((t) => t.state === 'skipped' && !t.error)).toEqual([]);
    const batches = Math.max(...targets.map((t) => t.batch)) + 1;
    for (let b = 1; b < batches; b++) {
      const lastFinished = Math.max(...targets.filter((t) => t.batch === b - 1).map((t) => t.finishedAt!.getTime()));
      const sent = targets.filter((t) => t.batch === b && t.sentAt).map((t) => t.sentAt!.getTime());
      if (sent.length)
        expect(Math.min(...sent), `batch ${b} sent before batch ${b - 1} finished`).toBeGreaterThanOrEqual(
          lastFinished,
        );
    }
  }

  for (const routers of [3_000, 5_004]) {
    it(`${routers} targets: a sweep running while create stores them never skips a batch`, async () => {
      const tag = `gap${routers}`;
      await addRouters(tag, routers);
      // Each statement inserting targets takes 300 ms longer, so the sweeps below surely run
      // while create is storing them.
      await prisma().$executeRawUnsafe(`CREATE OR REPLACE FUNCTION slow_target_insert() RETURNS trigger
        LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(0.3); RETURN NULL; END $$`);
      await prisma().$executeRawUnsafe(`CREATE TRIGGER slow_target_insert BEFORE INSERT ON "RolloutTarget"
        FOR EACH STATEMENT EXECUTE FUNCTION slow_target_insert()`);
      let sweeps = 0;
      let created: Awaited<ReturnType<Controller['rollouts']['create']>>;
      try {
        let storing = true;
        const sweeping = (async () => {
          while (storing) {
            await controller.rollouts.sweep();
            sweeps++;
            await sleep(10);
          }
        })();
        created = await controller.rollouts
          .create(
            { profile: 'fleet', selector: { tags: [tag] }, strategy: { canary: 10, batchSize: 250 } },
            { ...ACTOR, requestId: 'test' },
          )
          .finally(() => (storing = false));
        await sweeping;
      } finally {
        await prisma().$executeRawUnsafe(`DROP TRIGGER slow_target_insert ON "RolloutTarget"`);
      }
      // More than one sweep ran while create was storing the targets (each statement takes 300 ms).
      expect(sweeps).toBeGreaterThan(1);
      const done = await driveToEnd(created.id);
      expect(done.state).toBe('completed');
      const offline = Math.floor(routers / 10);
      expect(done.counts).toMatchObject({ queued: 0, sent: 0, applied: routers - offline, skipped: offline });
      await expectEveryTargetFinished(created.id, routers);
    }, 180_000);
  }

  it('a rollout that stands past a batch with pending targets goes back to it instead of completing', async () => {
    const tag = 'behind';
    await addRouters(tag, 30);
    const routers = await prisma().router.findMany({ where: { tags: { has: tag } }, orderBy: { name: 'asc' } });
    const revision = await prisma().profileRevision.findFirstOrThrow({ where: { profile: { name: 'fleet' } } });
    // As the gap between a rollout and its targets used to leave it: moved on to the last batch
    // while the first two were never sent.
    const rollout = await prisma().rollout.create({
      data: {
        revisionId: revision.id,
        selector: { tags: [tag] },
        strategy: { canary: 10, batchSize: 10, maxFailureRatio: 0, resultTimeoutSeconds: 180 },
        state: 'running',
        currentBatch: 2,
        batchCount: 3,
        createdBy: ACTOR.actor,
        targets: { createMany: { data: routers.map((r, i) => ({ routerId: r.id, batch: Math.floor(i / 10) })) } },
      },
    });
    const done = await driveToEnd(rollout.id, true);
    expect(done.state).toBe('completed');
    expect(done.counts).toMatchObject({ queued: 0, sent: 0, applied: 27, skipped: 3 });
    const targets = await prisma().rolloutTarget.findMany({ where: { rolloutId: rollout.id } });
    expect(targets.filter((t) => t.state === 'queued' || t.state === 'sent')).toEqual([]);
  });
});
