import type { PrismaClient } from '../../../prisma/generated/client/client.js';
import type { NotificationPayload } from '../notification-payload.js';

/**
 * A channel's delivery log: its notifications, newest first, each with every attempt (outcome,
 * status, error, time taken). Error texts were scrubbed of secrets before they were stored.
 */
export async function readDeliveryLog(db: PrismaClient, channelId: string, limit: number) {
  const rows = await db.alertNotification.findMany({
    where: { channelId },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: limit,
    include: { deliveries: { orderBy: { attempt: 'asc' } } },
  });
  return rows.map((n) => {
    const payload = n.payload as Partial<NotificationPayload>;
    return {
      notificationId: n.id,
      title: payload.title ?? '',
      test: payload.test === true,
      state: n.state,
      attempts: n.attempts,
      createdAt: n.createdAt.toISOString(),
      deliveredAt: n.deliveredAt?.toISOString() ?? null,
      nextAttemptAt: n.state === 'pending' ? n.nextAttemptAt.toISOString() : null,
      deliveries: n.deliveries.map((d) => ({
        attempt: d.attempt,
        outcome: d.outcome as 'delivered' | 'retry' | 'failed',
        statusCode: d.statusCode,
        error: d.error,
        at: d.at.toISOString(),
        durationMs: d.durationMs,
      })),
    };
  });
}
