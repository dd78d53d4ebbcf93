import { afterAll, describe, expect, it } from 'vitest';
import type { Controller } from '../../../server/controller.js';
import type { NotificationPayload } from '../../../server/alerts/notification-payload.js';
import { eventually, startInjectedController } from '../../support/controller.js';
import { createPostgresDatabase, type TestDatabase } from '../../support/databases.js';

const GROUP_WAIT_SECONDS = 10;

/**
 * 10,000 routers, 3,000 of them (one site) going offline at once, the evaluator ticking in the
 * background as in production: one notification, within the group's wait, naming 3,000 and
 * listing fifty; nothing more while nothing changes. The evaluation's cost is measured in
 * bench/alerts/ (docs/BENCHMARKS.md, "Alert evaluation").
 */
describe('alerts over 10,000 routers (PostgreSQL)', () => {
  let db: TestDatabase | undefined;
  let controller: Controller | undefined;
  afterAll(async () => {
    await controller?.close();
    await db?.drop();
  });

  it('sends one grouped notification when 3,000 routers of a site go offline at once', async () => {
    db = await createPostgresDatabase();
    const started = await startInjectedController(db, {
      // No offline sweep: the test writes the routers' status and last contact itself.
      heartbeatIntervalSeconds: 3_600,
      alerts: { evaluateEveryMs: 1_000 },
    });
    controller = started.controller;
    const prisma = controller.db.prisma;
    await started.fetch('/v1/alert-rules/router-offline', {
      method: 'PATCH',
      body: { groupWaitSeconds: GROUP_WAIT_SECONDS, groupIntervalSeconds: 300 },
    });
    const channel = await prisma.alertChannel.create({
      data: { name: 'noc', kind: 'webhook', settings: { url: 'http://127.0.0.1:9/hook' }, createdBy: 'test' },
    });
    const sites = ['ams', 'fra', 'lon', 'par', 'mad', 'mil', 'vie'];
    const rows = Array.from({ length: 10_000 }, (_, i) => ({
      name: `r${String(i).padStart(5, '0')}`,
      identity: `scale:${i}`,
      status: 'online' as const,
      lastSeenAt: new Date(),
      tags: [i < 3_000 ? 'site:ams' : `site:${sites[1 + (i % 6)]}`],
    }));
    for (let i = 0; i < rows.length; i += 2_000) await prisma.router.createMany({ data: rows.slice(i, i + 2_000) });

    // Their last contact six minutes ago: past the rule's 300 s `for` as soon as they are marked.
    const wentDark = Date.now();
    await prisma.router.updateMany({
      where: { tags: { has: 'site:ams' } },
      data: { status: 'offline', lastSeenAt: new Date(wentDark - 360_000) },
    });
    const [first] = await eventually(
      async () => {
        const sent = await prisma.alertNotification.findMany({ where: { channelId: channel.id } });
        return sent.length ? sent : null;
      },
      (GROUP_WAIT_SECONDS + 20) * 1000,
      'the grouped notification',
    );
    const tookMs = first!.createdAt.getTime() - wentDark;
    const payload = first!.payload as unknown as NotificationPayload;
    expect(payload.title).toBe('3000 routers offline: site:ams');
    expect(payload.counts).toEqual({ firing: 3000, new: 3000, resolved: 0 });
    expect(payload.new).toHaveLength(50);
    // Within the group's wait and the ticks around it.
    expect(tookMs).toBeLessThan((GROUP_WAIT_SECONDS + 5) * 1000);
    expect(tookMs).toBeGreaterThanOrEqual(GROUP_WAIT_SECONDS * 1000 - 1_000);
    await new Promise((r) => setTimeout(r, 5_000));
    expect(await prisma.alertNotification.count()).toBe(1);
    expect(await prisma.alert.count({ where: { state: 'firing' } })).toBe(3_000);
  });
});
