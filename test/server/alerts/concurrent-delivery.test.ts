import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { ChannelStore } from '../../../server/alerts/channels/channel-store.js';
import { NotificationDelivery } from '../../../server/alerts/notification-delivery.js';
import { AuditLog } from '../../../server/audit/audit-log.js';
import { DEFAULT_ALERTS } from '../../../server/alerts/alerts-config.js';
import { SecretBox } from '../../../server/secrets/secret-box.js';
import { openDatabase, type Database } from '../../../server/storage/index.js';
import { eventually } from '../../support/controller.js';
import { BACKENDS } from '../../support/databases.js';
import { openedDatabase } from '../../support/opened-database.js';
import { queueNotification } from './queued-notification.js';
import { startReceiver } from '../../support/webhook-receiver.js';

const NOTIFICATIONS = 50;

/**
 * Two deliverers (as two replicas run them) over one database and 50 due notifications: the
 * claim (UPDATE ... FOR UPDATE SKIP LOCKED) gives each notification to one of them, so the
 * receiver gets every delivery id exactly once. On PostgreSQL each deliverer has its own
 * connection pool, a real race; PGlite has one connection, which both share.
 */
describe.each(BACKENDS)('two deliverers racing over the same notifications (%s)', (backend, create) => {
  const opened = openedDatabase(create);
  const closing: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const close of closing.reverse()) await close();
  });

  it('delivers each of 50 notifications exactly once', async () => {
    const receiver = await startReceiver(() => 200, { delayMs: 15 });
    closing.push(() => receiver.close());
    let second: Database | undefined;
    if (backend === 'PostgreSQL') {
      second = await openDatabase({
        databaseUrl: opened.testDatabase.databaseUrl,
        dataDir: opened.testDatabase.dataDir,
      });
      closing.push(() => second!.close());
    }
    const box = new SecretBox(randomBytes(32));
    const config = { ...DEFAULT_ALERTS, deliverEveryMs: 10 };
    const log = pino({ level: 'silent' });
    const deliverers = [opened.db, second ?? opened.db].map((db) => {
      const store = new ChannelStore(db.prisma, new AuditLog(db.prisma), box);
      return new NotificationDelivery(db.prisma, store, log, config);
    });
    const prisma = opened.db.prisma;
    const store = new ChannelStore(prisma, new AuditLog(prisma), box);
    const { channel } = await store.create(
      { name: 'race', webhook: { url: `${receiver.url}/race` } },
      { actor: 'test' },
    );
    const ids: string[] = [];
    for (let i = 0; i < NOTIFICATIONS; i++) ids.push(await queueNotification(prisma, channel.id, `alert ${i}`));

    // How many notifications each claimed: together all, each some (a race, not one doing all).
    const claimed = deliverers.map(() => 0);
    deliverers.forEach((d, i) => {
      const deliverDue = d.deliverDue.bind(d);
      d.deliverDue = async () => {
        const n = await deliverDue();
        claimed[i]! += n;
        return n;
      };
    });
    for (const d of deliverers) d.start();
    try {
      await eventually(
        async () => (await prisma.alertNotification.count({ where: { state: 'delivered' } })) === NOTIFICATIONS,
        60_000,
        'every notification delivered',
      );
    } finally {
      await Promise.all(deliverers.map((d) => d.stop()));
    }
    expect(claimed[0]! + claimed[1]!).toBe(NOTIFICATIONS);
    expect(
      claimed.every((n) => n > 0),
      `claimed ${claimed.join(' and ')}`,
    ).toBe(true);
    const hits = new Map<string, number>();
    for (const r of receiver.received) {
      const id = r.headers['wrtfleet-delivery'] as string;
      hits.set(id, (hits.get(id) ?? 0) + 1);
    }
    expect([...hits.keys()].sort()).toEqual([...ids].sort());
    expect([...hits.values()].every((n) => n === 1)).toBe(true);
    expect(receiver.received).toHaveLength(NOTIFICATIONS);
    const attempts = await prisma.alertDelivery.groupBy({ by: ['notificationId'], _count: true });
    expect(attempts).toHaveLength(NOTIFICATIONS);
    expect(attempts.every((a) => a._count === 1)).toBe(true);
    expect(await prisma.alertNotification.count({ where: { attempts: { not: 1 } } })).toBe(0);
  });
});
