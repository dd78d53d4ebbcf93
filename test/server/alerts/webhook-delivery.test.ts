import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../../server/alerts/channels/webhook-signature.js';
import type { Controller } from '../../../server/controller.js';
import { eventually, startInjectedController } from '../../support/controller.js';
import { createPgliteDatabase, type TestDatabase } from '../../support/databases.js';
import { queueNotification } from './queued-notification.js';
import { startReceiver, type Answer, type Receiver } from '../../support/webhook-receiver.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies as the tests read them
type Body = Record<string, any>;

/**
 * Webhook notifications through a controller's own deliverer to a real HTTP receiver: the
 * signature, retries with backoff on 5xx and timeouts, no retry on a 4xx, giving up after
 * maxAttempts, and a channel removed with a notification pending.
 */
describe('webhook delivery (PGlite)', () => {
  let db: TestDatabase;
  let controller: Controller;
  let api: Awaited<ReturnType<typeof startInjectedController>>['fetch'];
  let receiver: Receiver | undefined;
  let channels = 0;

  beforeAll(async () => {
    db = await createPgliteDatabase();
    ({ controller, fetch: api } = await startInjectedController(db, {
      alerts: { retryBaseMs: 100, deliverEveryMs: 50, attemptTimeoutMs: 500, maxAttempts: 4 },
    }));
  });
  afterEach(async () => {
    await receiver?.close();
    receiver = undefined;
  });
  afterAll(async () => {
    await controller?.close();
    await db?.drop();
  });

  /** A receiver answering as scripted and a webhook channel pointing at it. */
  const webhookTo = async (answer: Answer) => {
    receiver = await startReceiver(answer);
    const name = `hook-${++channels}`;
    const created = await api<Body>('/v1/channels', {
      method: 'POST',
      body: { name, webhook: { url: `${receiver.url}/alerts` } },
    });
    expect(created.status).toBe(201);
    return { name, id: created.body.id as string, secret: created.body.secret as string, receiver };
  };
  const notificationState = (id: string) => controller.db.prisma.alertNotification.findUniqueOrThrow({ where: { id } });
  const settled = (id: string) =>
    eventually(async () => (await notificationState(id)).state !== 'pending', 15_000, `notification ${id} settled`);
  const log = async (name: string) => (await api<Body>(`/v1/channels/${name}/deliveries`)).body.items as Body[];

  it('delivers a queued notification once, signed so that verify accepts it and another secret does not', async () => {
    const hook = await webhookTo(() => 200);
    const id = await queueNotification(controller.db.prisma, hook.id);
    await settled(id);
    // Another period or two: nothing is sent again.
    await new Promise((r) => setTimeout(r, 300));
    expect(hook.receiver.received).toHaveLength(1);
    const [request] = hook.receiver.received;
    expect(request!.path).toBe('/alerts');
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.headers['wrtfleet-delivery']).toBe(id);
    const timestamp = request!.headers['wrtfleet-timestamp'] as string;
    const signature = request!.headers['wrtfleet-signature'] as string;
    expect(signature).toMatch(/^v1=[0-9a-f]{64}$/);
    expect(Math.abs(Number(timestamp) - Date.now() / 1000)).toBeLessThan(10);
    expect(JSON.parse(request!.body)).toMatchObject({ id, version: 1, status: 'firing', counts: { firing: 3 } });

    expect(verifyWebhook(hook.secret, { timestamp, signature }, request!.body)).toEqual({ ok: true });
    const other = 'whsec_' + Buffer.alloc(32, 7).toString('base64url');
    expect(verifyWebhook(other, { timestamp, signature }, request!.body)).toEqual({
      ok: false,
      reason: 'signature_mismatch',
    });
    expect(verifyWebhook(hook.secret, { timestamp, signature }, request!.body.replace('firing', 'resolved'))).toEqual({
      ok: false,
      reason: 'signature_mismatch',
    });
    expect(
      verifyWebhook(hook.secret, { timestamp, signature }, request!.body, { nowSeconds: Number(timestamp) + 301 }),
    ).toEqual({ ok: false, reason: 'timestamp_outside_tolerance' });

    const row = await notificationState(id);
    expect(row).toMatchObject({ state: 'delivered', attempts: 1, claimedUntil: null });
    expect(row.deliveredAt).not.toBeNull();
    const [entry] = await log(hook.name);
    expect(entry).toMatchObject({ notificationId: id, title: 'router ap-1 offline', state: 'delivered', attempts: 1 });
    expect(entry!.deliveries).toMatchObject([{ attempt: 1, outcome: 'delivered', statusCode: 200, error: null }]);
  });

  it('retries 500, 500 with backoff, then 200: three attempts, the same delivery id, re-signed', async () => {
    const hook = await webhookTo((_request, n) => (n < 2 ? 500 : 200));
    const id = await queueNotification(controller.db.prisma, hook.id);
    await settled(id);
    expect((await notificationState(id)).state).toBe('delivered');
    const hits = hook.receiver.received;
    expect(hits).toHaveLength(3);
    expect(new Set(hits.map((h) => h.headers['wrtfleet-delivery']))).toEqual(new Set([id]));
    expect(new Set(hits.map((h) => h.body)).size).toBe(1);
    for (const h of hits)
      expect(
        verifyWebhook(
          hook.secret,
          {
            timestamp: h.headers['wrtfleet-timestamp'] as string,
            signature: h.headers['wrtfleet-signature'] as string,
          },
          h.body,
        ),
      ).toEqual({ ok: true });
    // retryBaseMs 100, doubling, ±20%: at least 80 ms, then at least 160 ms.
    expect(hits[1]!.at - hits[0]!.at).toBeGreaterThanOrEqual(80);
    expect(hits[2]!.at - hits[1]!.at).toBeGreaterThanOrEqual(160);

    const [entry] = await log(hook.name);
    expect(entry).toMatchObject({ notificationId: id, state: 'delivered', attempts: 3, nextAttemptAt: null });
    expect(entry!.deliveries.map((d: Body) => [d.attempt, d.outcome, d.statusCode])).toEqual([
      [1, 'retry', 500],
      [2, 'retry', 500],
      [3, 'delivered', 200],
    ]);
    expect(entry!.deliveries[0].error).toBe('HTTP 500: answer 500');
  });

  it('retries a receiver that does not answer in time; a 400 is not retried', async () => {
    const slow = await webhookTo((_request, n) => (n === 0 ? 'hang' : 200));
    const late = await queueNotification(controller.db.prisma, slow.id);
    await settled(late);
    const [entry] = await log(slow.name);
    expect(entry!.deliveries.map((d: Body) => [d.outcome, d.statusCode])).toEqual([
      ['retry', null],
      ['delivered', 200],
    ]);
    expect(entry!.deliveries[0].error).toBe('no answer within 500 ms');
    expect(entry!.deliveries[0].durationMs).toBeGreaterThanOrEqual(450);
    await receiver!.close();

    const refusing = await webhookTo(() => 400);
    const refused = await queueNotification(controller.db.prisma, refusing.id);
    await settled(refused);
    await new Promise((r) => setTimeout(r, 300));
    expect(refusing.receiver.received).toHaveLength(1);
    expect(await notificationState(refused)).toMatchObject({ state: 'failed', attempts: 1 });
    const [failed] = await log(refusing.name);
    expect(failed!.deliveries).toMatchObject([{ outcome: 'failed', statusCode: 400, error: 'HTTP 400: answer 400' }]);
  });

  it('gives up after maxAttempts', async () => {
    const hook = await webhookTo(() => 503);
    const id = await queueNotification(controller.db.prisma, hook.id);
    await settled(id);
    expect(await notificationState(id)).toMatchObject({ state: 'failed', attempts: 4 });
    expect(hook.receiver.received).toHaveLength(4);
    const [entry] = await log(hook.name);
    expect(entry!.deliveries.map((d: Body) => d.outcome)).toEqual(['retry', 'retry', 'retry', 'failed']);
    expect(entry!.deliveries[3].error).toBe('HTTP 503: answer 503 (given up after 4 attempts)');
  });

  it('fails the pending notifications of a channel removed meanwhile, saying so', async () => {
    const hook = await webhookTo(() => 200);
    expect((await api(`/v1/channels/${hook.name}`, { method: 'DELETE' })).status).toBe(204);
    const id = await queueNotification(controller.db.prisma, hook.id);
    await settled(id);
    expect(hook.receiver.received).toHaveLength(0);
    expect(await notificationState(id)).toMatchObject({ state: 'failed', attempts: 1 });
    const attempts = await controller.db.prisma.alertDelivery.findMany({ where: { notificationId: id } });
    expect(attempts).toMatchObject([
      { attempt: 1, outcome: 'failed', error: 'the channel was deleted before the notification was sent' },
    ]);
  });
});
