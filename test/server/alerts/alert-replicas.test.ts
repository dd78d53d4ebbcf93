import { afterEach, describe, expect, it } from 'vitest';
import type { Controller } from '../../../server/controller.js';
import type { NotificationPayload } from '../../../server/alerts/notification-payload.js';
import { eventually, startInjectedController } from '../../support/controller.js';
import { createPostgresDatabase, type TestDatabase } from '../../support/databases.js';
import { startReceiver, type Receiver } from '../../support/webhook-receiver.js';

const REDIS_URL = process.env.WRTFLEET_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * Two replicas on one PostgreSQL and Redis, each ticking its evaluator every 100 ms: the
 * advisory lock lets one evaluate at a time and the alerts and notifications are written in
 * its transaction, so every alert opens once and every group is told once.
 */
describe('alerts with two replicas (PostgreSQL + Redis)', () => {
  let db: TestDatabase | undefined;
  const controllers: Controller[] = [];
  let receiver: Receiver | undefined;
  afterEach(async () => {
    await Promise.all(controllers.map((c) => c.close()));
    await receiver?.close();
    await db?.drop();
  });

  it('opens each alert once and sends each group one notification per channel, delivered once', async () => {
    db = await createPostgresDatabase();
    // No offline sweep: the test writes the routers' status and last contact itself.
    receiver = await startReceiver(() => 200);
    const overrides = {
      redisUrl: REDIS_URL,
      heartbeatIntervalSeconds: 3_600,
      alerts: { evaluateEveryMs: 100, deliverEveryMs: 100 },
    };
    const a = await startInjectedController(db, { ...overrides, replicaName: 'a' });
    controllers.push(a.controller);
    const b = await startInjectedController(db, { ...overrides, replicaName: 'b' });
    controllers.push(b.controller);
    const prisma = a.controller.db.prisma;
    const patch = await a.fetch('/v1/alert-rules/router-offline', {
      method: 'PATCH',
      body: { forSeconds: 60, groupWaitSeconds: 1, groupIntervalSeconds: 3600 },
    });
    expect(patch.status).toBe(200);
    for (const name of ['one', 'two'])
      expect(
        (
          await a.fetch('/v1/channels', {
            method: 'POST',
            body: { name, webhook: { url: `${receiver!.url}/${name}` } },
          })
        ).status,
      ).toBe(201);
    await prisma.router.createMany({
      data: Array.from({ length: 200 }, (_, i) => ({
        name: `r${i}`,
        identity: `test:${i}`,
        status: 'online' as const,
        lastSeenAt: new Date(),
        tags: [`site:s${i % 5}`],
      })),
    });
    // Let both evaluators take turns over the quiet fleet first.
    await new Promise((r) => setTimeout(r, 1_000));
    await prisma.router.updateMany({ data: { status: 'offline', lastSeenAt: new Date(Date.now() - 120_000) } });

    await eventually(async () => (await prisma.alertNotification.count()) >= 10, 20_000, 'ten notifications');
    // Past every group's wait and many ticks of both replicas: nothing more comes.
    await new Promise((r) => setTimeout(r, 2_500));
    expect(await prisma.alert.count()).toBe(200);
    const sent = await prisma.alertNotification.findMany();
    expect(sent).toHaveLength(10);
    const byChannelAndGroup = new Map<string, number>();
    for (const n of sent) {
      const key = `${n.channelId}/${n.groupKey}`;
      byChannelAndGroup.set(key, (byChannelAndGroup.get(key) ?? 0) + 1);
      expect((n.payload as unknown as NotificationPayload).counts).toEqual({ firing: 40, new: 40, resolved: 0 });
    }
    expect([...byChannelAndGroup.values()]).toEqual(Array(10).fill(1));
    // Delivered by whichever replica claimed each: every one reached its receiver exactly once.
    await eventually(async () => receiver!.received.length >= 10, 10_000, 'ten deliveries');
    await new Promise((r) => setTimeout(r, 1_000));
    const deliveries = receiver!.received.map((r) => r.headers['wrtfleet-delivery'] as string);
    expect(deliveries.sort()).toEqual(sent.map((n) => n.id).sort());
    // Both replicas evaluated; each tick the other held the lock was left alone.
    const counts = [a, b].map((r) => r.controller.alerting.evaluator.counts);
    expect(counts.every((c) => c.evaluated > 0)).toBe(true);
  });
});
