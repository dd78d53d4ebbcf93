import { credentials } from '@grpc/grpc-js';
import { afterAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../../server/alerts/channels/webhook-signature.js';
import type { NotificationPayload } from '../../../server/alerts/notification-payload.js';
import type { Controller } from '../../../server/controller.js';
import { openStream, type OpenStream } from '../../support/agents.js';
import { eventually, startTestController } from '../../support/controller.js';
import { createPgliteDatabase, type TestDatabase } from '../../support/databases.js';
import { startReceiver, type Receiver } from '../../support/webhook-receiver.js';

const FOR_SECONDS = 2;
const INTERVAL_SECONDS = 10;

/**
 * Agents on real gRPC streams, a webhook receiver on loopback, the evaluator and deliverer ticking
 * in the background as in production: a router whose stream ends stays offline past the rule's
 * `for` and is told once, firing, then once, resolved, when it connects again; a router whose
 * stream drops and returns inside `for` again and again is told nothing.
 */
describe('a router offline past `for`, told through a webhook (PGlite)', () => {
  let db: TestDatabase | undefined;
  let controller: Controller | undefined;
  let receiver: Receiver | undefined;
  const streams: OpenStream[] = [];
  afterAll(async () => {
    for (const s of streams) s.close();
    await controller?.close();
    await receiver?.close();
    await db?.drop();
  });

  it('fires once, resolves once; a flapping router fires nothing', async () => {
    db = await createPgliteDatabase();
    receiver = await startReceiver(() => 200);
    const started = await startTestController(db, {
      // Liveness is the stream's own: no sweep marks a quiet stream offline during the test.
      heartbeatIntervalSeconds: 3_600,
      alerts: { evaluateEveryMs: 250, deliverEveryMs: 250 },
    });
    controller = started.controller;
    const api = started.fetch;
    expect(
      (
        await api('/v1/alert-rules/router-offline', {
          method: 'PATCH',
          body: { forSeconds: FOR_SECONDS, groupWaitSeconds: 0, groupIntervalSeconds: INTERVAL_SECONDS },
        })
      ).status,
    ).toBe(200);
    const channel = await api<{ secret: string }>('/v1/channels', {
      method: 'POST',
      body: { name: 'noc', webhook: { url: `${receiver.url}/noc` } },
    });
    expect(channel.status).toBe(201);
    const connect = async (identity: string) => {
      const stream = openStream(controller!.grpcAddress, credentials.createInsecure(), identity);
      streams.push(stream);
      await stream.welcome;
      return stream;
    };
    const payloads = () => receiver!.received.map((r) => JSON.parse(r.body) as NotificationPayload);

    const steady = await connect('test:ap-steady');
    let flapping = await connect('test:ap-flapping');
    await eventually(
      async () => (await controller!.db.prisma.router.count({ where: { status: 'online' } })) === 2,
      10_000,
      'both online',
    );

    steady.close();
    // The flapping one drops and returns every half second, well inside `for`.
    const wentDown = Date.now();
    while (Date.now() - wentDown < (FOR_SECONDS + 3) * 1000) {
      flapping.close();
      await new Promise((r) => setTimeout(r, 300));
      flapping = await connect('test:ap-flapping');
      await new Promise((r) => setTimeout(r, 200));
    }
    await eventually(async () => receiver!.received.length >= 1, 15_000, 'the firing notification');
    const [firing] = payloads();
    expect(firing).toMatchObject({ status: 'firing', counts: { firing: 1, new: 1, resolved: 0 } });
    expect(firing!.new.map((a) => a.subject.name)).toEqual(['test:ap-steady']);
    const request = receiver.received[0]!;
    expect(
      verifyWebhook(
        channel.body.secret,
        {
          timestamp: request.headers['wrtfleet-timestamp'] as string,
          signature: request.headers['wrtfleet-signature'] as string,
        },
        request.body,
      ),
    ).toEqual({ ok: true });

    await connect('test:ap-steady');
    await eventually(
      async () => receiver!.received.length >= 2,
      (INTERVAL_SECONDS + 10) * 1000,
      'the resolved notification',
    );
    await new Promise((r) => setTimeout(r, 2_000));
    expect(payloads().map((p) => [p.status, p.title, p.counts])).toEqual([
      ['firing', '1 router offline: site:none', { firing: 1, new: 1, resolved: 0 }],
      ['resolved', '1 router back online: site:none', { firing: 0, new: 0, resolved: 1 }],
    ]);
    const alerts = await controller.db.prisma.alert.findMany();
    expect(alerts.map((a) => [a.subjectName, a.state])).toEqual([['test:ap-steady', 'resolved']]);
  });
});
