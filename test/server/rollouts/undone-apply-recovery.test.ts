/**
 * A router applies a revision, the link is cut before the ConfirmApply reaches it, and it rolls
 * back by itself. On its return it sends both results again: the APPLIED one (stored as history,
 * marked undone, since its Hello names the old revision) and the ROLLED_BACK one. The rollout
 * engine's sweep recovers results stored but never passed on; one running between the two must
 * not take the undone APPLIED as the target's outcome. It did (the network-cut test caught it
 * under load): the rollout completed as applied while the router ran the old revision.
 *
 * Rows stand for the routers (no agents), and the test places each step itself, so the order a
 * loaded machine produced only sometimes is produced every time.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApplyResult_Status, type ApplyResult } from '../../../proto/gen/wrtfleet/agent/v1/agent.js';
import type { Controller } from '../../../server/controller.js';
import { BACKENDS } from '../../support/databases.js';
import { eventually, startInjectedController } from '../../support/controller.js';

const ACTOR = { actor: 'token:tester', requestId: 'test' };
const PROFILE = 'undo';

function result(status: ApplyResult_Status, finishedAt: Date, extra: Partial<ApplyResult> = {}): ApplyResult {
  return {
    profile: PROFILE,
    revision: 2,
    status,
    error: '',
    evidence: undefined,
    startedAt: finishedAt,
    finishedAt,
    planHash: '',
    resultId: randomUUID(),
    ...extra,
  };
}

describe.each(BACKENDS)('an APPLIED result undone by a rollback is not a rollout outcome (%s)', (_name, create) => {
  let db: Awaited<ReturnType<typeof create>>;
  let controller: Controller;
  const prisma = () => controller.db.prisma;
  let revision: { 1: string; 2: string };

  beforeAll(async () => {
    db = await create();
    // Long heartbeats: the rows stand for routers online for the whole test.
    ({ controller } = await startInjectedController(db, { heartbeatIntervalSeconds: 3_600 }));
    await controller.profiles.save(PROFILE, { l3Rewrite: { ttl: { value: 65 } } }, undefined, ACTOR);
    await controller.profiles.save(PROFILE, { l3Rewrite: { ttl: { value: 128 } } }, 1, ACTOR);
    const rows = await prisma().profileRevision.findMany({ where: { profile: { name: PROFILE } } });
    revision = {
      1: rows.find((r) => r.number === 1)!.id,
      2: rows.find((r) => r.number === 2)!.id,
    };
  });

  afterAll(async () => {
    await controller?.close();
    await db?.drop();
  });

  /** A router row running revision 1, and a rollout of revision 2 whose target was sent to it. */
  async function rolloutSentTo(name: string) {
    const router = await prisma().router.create({
      data: {
        name,
        identity: `test:${name}`,
        status: 'online',
        lastSeenAt: new Date(),
        appliedRevisionId: revision[1],
      },
    });
    const created = await controller.rollouts.create(
      { profile: PROFILE, revision: 2, selector: { ids: [router.id] }, strategy: { canary: 0, batchSize: 1 } },
      ACTOR,
    );
    await eventually(
      async () =>
        (await prisma().rolloutTarget.findFirst({ where: { rolloutId: created.id, state: 'sent' } })) !== null,
      10_000,
      'the target sent',
    );
    return { routerId: router.id, rolloutId: created.id };
  }

  const targetState = async (rolloutId: string) =>
    (await prisma().rolloutTarget.findFirstOrThrow({ where: { rolloutId } })).state;

  it('a sweep between the undone APPLIED and the ROLLED_BACK leaves the target waiting for the rollback', async () => {
    const { routerId, rolloutId } = await rolloutSentTo('cut-off');
    const sentAt = (await prisma().rolloutTarget.findFirstOrThrow({ where: { rolloutId } })).sentAt!;
    const appliedAt = new Date(sentAt.getTime() + 1_000);

    // The APPLIED result comes back on the new stream, older than its Hello, which names revision 1.
    await controller.registry.recordApplyResult(routerId, result(ApplyResult_Status.STATUS_APPLIED, appliedAt), {
      beforeHello: true,
      undone: true,
    });
    expect(await prisma().applyResult.count({ where: { routerId, revisionId: revision[2] } })).toBe(1);
    // The sweep runs now, before the rollback's own result.
    await controller.rollouts.advance(rolloutId, { recoverMissedResults: true });
    expect(await targetState(rolloutId)).toBe('sent');
    expect((await controller.rollouts.view(rolloutId))!.state).toBe('running');

    await controller.registry.recordApplyResult(
      routerId,
      result(ApplyResult_Status.STATUS_ROLLED_BACK, new Date(appliedAt.getTime() + 3_000), {
        error: 'no ConfirmApply from the controller within 3 s: rolled back to undo@1',
        evidence: { rolledBackTo: { profile: PROFILE, revision: 1 } },
      }),
      { beforeHello: true, undone: false },
    );
    await eventually(async () => (await targetState(rolloutId)) === 'rolled_back', 10_000, 'the target rolled back');
    const view = await eventually(
      async () => {
        const v = (await controller.rollouts.view(rolloutId))!;
        return v.state === 'paused' ? v : undefined;
      },
      10_000,
      'the rollout paused on the rollback',
    );
    expect(view.counts).toMatchObject({ applied: 0, rolled_back: 1, sent: 0 });
    expect(await prisma().router.findUniqueOrThrow({ where: { id: routerId } })).toMatchObject({
      appliedRevisionId: revision[1],
    });
  });

  it('an APPLIED result stored but never passed on is still recovered for a router running it', async () => {
    const { routerId, rolloutId } = await rolloutSentTo('missed');
    const sentAt = (await prisma().rolloutTarget.findFirstOrThrow({ where: { rolloutId } })).sentAt!;
    // What a replica that died between storing and telling the engine leaves behind: the result
    // and the router's applied revision, committed together, and the target still `sent`.
    await prisma().applyResult.create({
      data: {
        routerId,
        revisionId: revision[2],
        status: 'applied',
        startedAt: new Date(sentAt.getTime() + 500),
        finishedAt: new Date(sentAt.getTime() + 500),
      },
    });
    await prisma().router.update({ where: { id: routerId }, data: { appliedRevisionId: revision[2] } });

    await controller.rollouts.advance(rolloutId, { recoverMissedResults: true });
    expect(await targetState(rolloutId)).toBe('applied');
    await eventually(
      async () => (await controller.rollouts.view(rolloutId))!.state === 'completed',
      10_000,
      'the rollout completed',
    );
  });
});
