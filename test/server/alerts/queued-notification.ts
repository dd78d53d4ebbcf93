import { randomUUID } from 'node:crypto';
import type { PrismaClient } from '../../../prisma/generated/client/client.js';
import type { NotificationPayload } from '../../../server/alerts/notification-payload.js';

/** A notification as the evaluator queues one: pending, due now, its payload's id its row's. */
export function notificationPayload(id: string, title = 'router ap-1 offline'): NotificationPayload {
  const now = new Date().toISOString();
  return {
    id,
    version: 1,
    status: 'firing',
    title,
    rule: { name: 'routers-offline', kind: 'router_offline', severity: 'critical' },
    group: { key: 'site:ams', sequence: 1 },
    counts: { firing: 3, new: 2, resolved: 1 },
    new: [
      {
        id: randomUUID(),
        subject: { kind: 'router', id: 'r1', name: 'ap-1' },
        summary: 'no contact for 5 minutes',
        since: now,
        firedAt: now,
      },
      {
        id: randomUUID(),
        subject: { kind: 'router', id: 'r2', name: 'ap-<2>' },
        summary: 'no contact for 6 minutes',
        since: now,
        firedAt: now,
      },
    ],
    resolved: [
      {
        id: randomUUID(),
        subject: { kind: 'router', id: 'r3', name: 'ap-3' },
        summary: 'back online',
        since: now,
        firedAt: now,
        resolvedAt: now,
      },
    ],
    createdAt: now,
  };
}

export async function queueNotification(db: PrismaClient, channelId: string, title?: string): Promise<string> {
  const id = randomUUID();
  await db.alertNotification.create({
    data: { id, channelId, groupKey: 'site:ams', sequence: 1, payload: notificationPayload(id, title) },
  });
  return id;
}
