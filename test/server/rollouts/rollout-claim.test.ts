import { describe, expect, it } from 'vitest';
import { DEFAULT_PROFILE_SPEC } from '../../../core/profile-spec.js';
import { claimBatch, onlyWaitingForResults } from '../../../server/rollouts/rollout-targets.js';
import { BACKENDS } from '../../support/databases.js';
import { openedDatabase } from '../../support/opened-database.js';

/**
 * What claiming a rollout batch writes, row by row, on both backends (the statements are SQL
 * of our own, not Prisma's): the targets' states, the assignments and the desired revisions;
 * then whether the batch only waits for results, which lets an advance return at once.
 */
describe.each(BACKENDS)('claiming a rollout batch on %s', (_name, create) => {
  const opened = openedDatabase(create);

  it('sends to online routers, skips offline ones, and moves assignments to the rollout', async () => {
    const prisma = opened.db.prisma;
    const spec = DEFAULT_PROFILE_SPEC as object;
    const home = await prisma.profile.create({ data: { name: 'home', latestRevision: 2 } });
    const other = await prisma.profile.create({ data: { name: 'other', latestRevision: 1 } });
    const revision = await prisma.profileRevision.create({
      data: { profileId: home.id, number: 2, spec, createdBy: 'test' },
    });
    const router = (name: string, status: 'online' | 'offline', decommissionedAt: Date | null = null) =>
      prisma.router.create({ data: { name, identity: `id-${name}`, status, decommissionedAt } });
    const same = await router('same-profile', 'online');
    const moved = await router('other-profile', 'online');
    const fresh = await router('no-assignment', 'online');
    const away = await router('offline', 'offline');
    const gone = await router('decommissioned', 'online', new Date());
    const overrides = { l3Rewrite: { ttl: { value: 42 } } };
    await prisma.assignment.create({
      data: { routerId: same.id, profileId: home.id, pinnedRevision: 1, overrides },
    });
    await prisma.assignment.create({ data: { routerId: moved.id, profileId: other.id, overrides } });
    const routers = [same, moved, fresh, away, gone];
    const rollout = await prisma.rollout.create({
      data: { revisionId: revision.id, selector: {}, strategy: {}, batchCount: 1, createdBy: 'test' },
    });
    await prisma.rolloutTarget.createMany({
      data: routers.map((r) => ({ rolloutId: rollout.id, routerId: r.id, batch: 0 })),
    });
    const batch = {
      rolloutId: rollout.id,
      revisionId: revision.id,
      profileId: home.id,
      revisionNumber: 2,
      routers: routers.map(({ id, status, decommissionedAt }) => ({ id, status, decommissionedAt })),
    };
    const before = Date.now();

    const claimed = await claimBatch(prisma, batch);
    const ids = (xs: { routerId: string }[]) => xs.map((x) => x.routerId).sort();
    expect(ids(claimed.sent)).toEqual([same.id, moved.id, fresh.id].sort());
    expect(ids(claimed.skipped)).toEqual([away.id, gone.id].sort());

    const targets = new Map(
      (await prisma.rolloutTarget.findMany({ where: { rolloutId: rollout.id } })).map((t) => [t.routerId, t]),
    );
    for (const id of [same.id, moved.id, fresh.id]) {
      expect(targets.get(id)).toMatchObject({ state: 'sent', error: null, finishedAt: null });
      expect(targets.get(id)!.sentAt!.getTime()).toBeGreaterThanOrEqual(before - 5);
    }
    for (const id of [away.id, gone.id]) {
      expect(targets.get(id)).toMatchObject({ state: 'skipped', sentAt: null });
      expect(targets.get(id)!.error).toMatch(/offline/);
      expect(targets.get(id)!.finishedAt).not.toBeNull();
    }

    const assignments = new Map((await prisma.assignment.findMany()).map((a) => [a.routerId, a]));
    // Same profile: the overrides stay. Another profile: they go. None: one is created.
    expect(assignments.get(same.id)).toMatchObject({ profileId: home.id, pinnedRevision: 2, overrides });
    expect(assignments.get(moved.id)).toMatchObject({ profileId: home.id, pinnedRevision: 2, overrides: null });
    expect(assignments.get(fresh.id)).toMatchObject({ profileId: home.id, pinnedRevision: 2, overrides: null });
    expect(assignments.get(away.id)).toMatchObject({ profileId: home.id, pinnedRevision: 2 });
    // A decommissioned router is skipped and left as it was.
    expect(assignments.has(gone.id)).toBe(false);

    const desired = new Map(
      (await prisma.router.findMany({ select: { id: true, desiredRevisionId: true, desiredRolloutId: true } })).map(
        (r) => [r.id, r],
      ),
    );
    for (const id of [same.id, moved.id, fresh.id, away.id])
      expect(desired.get(id)).toMatchObject({ desiredRevisionId: revision.id, desiredRolloutId: rollout.id });
    expect(desired.get(gone.id)).toMatchObject({ desiredRevisionId: null, desiredRolloutId: null });

    // Claimed once: a second advance finds nothing queued and claims nothing.
    expect(await claimBatch(prisma, batch)).toEqual({ sent: [], skipped: [] });

    // The batch only waits for results while the rollout runs, something is sent, nothing is
    // pending and nothing is overdue; otherwise the advance must take its full step.
    const waiting = (at: number) => onlyWaitingForResults(prisma, rollout.id, at);
    const now = Date.now();
    expect(await waiting(now)).toBe(false); // still scheduled
    await prisma.rollout.update({
      where: { id: rollout.id },
      data: { state: 'running', strategy: { resultTimeoutSeconds: 60 } },
    });
    expect(await waiting(now)).toBe(true);
    expect(await waiting(now + 61_000)).toBe(false); // the oldest sent is overdue
    await prisma.rolloutTarget.update({
      where: { rolloutId_routerId: { rolloutId: rollout.id, routerId: fresh.id } },
      data: { state: 'queued' },
    });
    expect(await waiting(now)).toBe(false); // a target of the batch is queued
    await prisma.rolloutTarget.updateMany({
      where: { rolloutId: rollout.id, state: { in: ['sent', 'queued'] } },
      data: { state: 'applied' },
    });
    expect(await waiting(now)).toBe(false); // nothing in flight: the batch is to be judged
  });
});
