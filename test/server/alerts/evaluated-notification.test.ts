import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../../server/alerts/channels/webhook-signature.js';
import type { NotificationPayload } from '../../../server/alerts/notification-payload.js';
import type { Controller } from '../../../server/controller.js';
import { eventually, startInjectedController } from '../../support/controller.js';
import { createPgliteDatabase, type TestDatabase } from '../../support/databases.js';
import { startReceiver, type Receiver } from '../../support/webhook-receiver.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies as the tests read them
type Body = Record<string, any>;

/**
 * From an alert to a receiver: the evaluator queues a notification for the channels that admit
 * the rule, and the deliverer, nudged by the evaluation, sends it at once (its own period is an
 * hour here), signed; a channel whose minSeverity the rule does not reach gets nothing.
 */
describe('an evaluated alert reaches a webhook (PGlite)', () => {
  let db: TestDatabase;
  let controller: Controller;
  let api: Awaited<ReturnType<typeof startInjectedController>>['fetch'];
  let receiver: Receiver;

  beforeAll(async () => {
    db = await createPgliteDatabase();
    receiver = await startReceiver(() => 200);
    ({ controller, fetch: api } = await startInjectedController(db, {
      alerts: { evaluateEveryMs: 3_600_000, deliverEveryMs: 3_600_000 },
    }));
    await controller.alerting.evaluator.stop();
  });
  afterAll(async () => {
    await controller?.close();
    await db?.drop();
    await receiver?.close();
  });

  it('sends the notification when the evaluation queued it, not at the next period', async () => {
    // router-offline is a warning: a channel for critical alerts only gets nothing.
    expect((await api<Body>('/v1/alert-rules/router-offline')).body.severity).toBe('warning');
    const patched = await api('/v1/alert-rules/router-offline', {
      method: 'PATCH',
      body: { forSeconds: 60, groupWaitSeconds: 0 },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    const hook = await api<Body>('/v1/channels', {
      method: 'POST',
      body: { name: 'ops', webhook: { url: `${receiver.url}/ops` } },
    });
    const above = await api<Body>('/v1/channels', {
      method: 'POST',
      body: { name: 'too-high', minSeverity: 'critical', webhook: { url: `${receiver.url}/too-high` } },
    });
    expect([hook.status, above.status]).toEqual([201, 201]);
    await controller.db.prisma.router.create({
      data: {
        name: 'ap-1',
        identity: 'test:1',
        status: 'offline',
        lastSeenAt: new Date(Date.now() - 90_000),
        tags: ['site:ams'],
      },
    });

    const outcome = await controller.alerting.evaluator.evaluate({ force: true });
    expect(outcome).toMatchObject({ fired: 1 });
    await eventually(async () => receiver.received.length > 0, 5_000, 'the notification');
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.received.map((r) => r.path)).toEqual(['/ops']);
    const request = receiver.received.find((r) => r.path === '/ops')!;
    const payload = JSON.parse(request.body) as NotificationPayload;
    expect(payload).toMatchObject({ status: 'firing', rule: { name: 'router-offline' }, counts: { new: 1 } });
    expect(payload.new[0]!.subject.name).toBe('ap-1');
    expect(request.headers['wrtfleet-delivery']).toBe(payload.id);
    expect(
      verifyWebhook(
        hook.body.secret as string,
        {
          timestamp: request.headers['wrtfleet-timestamp'] as string,
          signature: request.headers['wrtfleet-signature'] as string,
        },
        request.body,
      ),
    ).toEqual({ ok: true });
    const log = await api<Body>('/v1/channels/ops/deliveries');
    expect(log.body.items).toMatchObject([{ notificationId: payload.id, state: 'delivered', attempts: 1 }]);
  });
});
