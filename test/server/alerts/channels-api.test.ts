import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Controller } from '../../../server/controller.js';
import { apiClient, eventually, startInjectedController } from '../../support/controller.js';
import { createPgliteDatabase, type TestDatabase } from '../../support/databases.js';
import { queueNotification } from './queued-notification.js';
import { startReceiver, type Receiver } from '../../support/webhook-receiver.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies as the tests read them
type Body = Record<string, any>;

/**
 * /v1/channels: secrets shown once and sealed at rest, never in a view, a log line or the
 * delivery log; settings refused naming the field; admin scope for writes; removal; the test
 * message; and the Slack message's shape as a real receiver gets it.
 */
describe('notification channels over the REST API (PGlite)', () => {
  let db: TestDatabase;
  let controller: Controller;
  let logs: string[];
  let api: Awaited<ReturnType<typeof startInjectedController>>['fetch'];
  let receiver: Receiver | undefined;

  beforeAll(async () => {
    db = await createPgliteDatabase();
    ({
      controller,
      logs,
      fetch: api,
    } = await startInjectedController(db, {
      alerts: { retryBaseMs: 100, deliverEveryMs: 50, attemptTimeoutMs: 1_000, maxAttempts: 3 },
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

  const create = (body: unknown) => api<Body>('/v1/channels', { method: 'POST', body });

  it('returns a webhook secret once; views and the database never show it in plain text', async () => {
    const created = await create({
      name: 'ops-hook',
      minSeverity: 'warning',
      webhook: { url: 'https://hooks.example/wf' },
    });
    expect(created.status).toBe(201);
    const secret = created.body.secret as string;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(created.body).toMatchObject({
      name: 'ops-hook',
      kind: 'webhook',
      minSeverity: 'warning',
      rules: [],
      webhook: { url: 'https://hooks.example/wf' },
      createdBy: 'token:tester',
    });

    const one = await api<Body>('/v1/channels/ops-hook');
    expect(one.status).toBe(200);
    expect(one.body).toEqual(stripSecret(created.body));
    const all = await api<Body>('/v1/channels');
    expect(all.body.items.map((c: Body) => c.name)).toContain('ops-hook');
    for (const text of [JSON.stringify(one.body), JSON.stringify(all.body)]) expect(text).not.toContain(secret);

    const row = await controller.db.prisma.alertChannel.findUniqueOrThrow({ where: { name: 'ops-hook' } });
    expect(row.sealedSecret).toMatch(/^v1:/);
    expect(row.sealedSecret).not.toContain(secret);
    expect(JSON.stringify(row.settings)).not.toContain(secret);
    expect((await create({ name: 'ops-hook', webhook: { url: 'https://other.example/' } })).status).toBe(409);
  });

  it('keeps a Slack URL secret: views show its host only; the message has text and blocks', async () => {
    receiver = await startReceiver(() => 200);
    const url = `${receiver.url}/services/T0001/B0001/sEcReTtOkEn123`;
    const created = await create({ name: 'chat', slack: { url } });
    expect(created.status).toBe(201);
    expect(created.body.secret).toBeUndefined();
    expect(created.body.slack).toEqual({ url: `${receiver.url}/…` });
    const text =
      JSON.stringify((await api('/v1/channels')).body) + JSON.stringify((await api('/v1/channels/chat')).body);
    expect(text).not.toContain('sEcReTtOkEn123');
    const row = await controller.db.prisma.alertChannel.findUniqueOrThrow({ where: { name: 'chat' } });
    expect(JSON.stringify(row)).not.toContain('sEcReTtOkEn123');

    const id = await queueNotification(controller.db.prisma, row.id, '2 routers offline: site:ams');
    await eventually(async () => receiver!.received.length === 1, 10_000, 'the Slack message');
    const message = JSON.parse(receiver.received[0]!.body) as Body;
    expect(receiver.received[0]!.path).toBe('/services/T0001/B0001/sEcReTtOkEn123');
    expect(message.text).toContain('2 routers offline: site:ams');
    expect(message.blocks[0]).toEqual({
      type: 'header',
      text: { type: 'plain_text', text: '2 routers offline: site:ams' },
    });
    expect(message.blocks[1]).toEqual({
      type: 'section',
      text: { type: 'mrkdwn', text: 'critical · 3 firing · 2 new · 1 resolved' },
    });
    const sections = message.blocks.filter((b: Body) => b.type === 'section').map((b: Body) => b.text.text);
    // mrkdwn's control characters are escaped in subjects.
    expect(sections).toContain(
      '*New*\n• router ap-1: no contact for 5 minutes\n• router ap-&lt;2&gt;: no contact for 6 minutes',
    );
    expect(sections).toContain('*Resolved*\n• router ap-3: back online');
    await eventually(
      async () =>
        (await controller.db.prisma.alertNotification.findUniqueOrThrow({ where: { id } })).state === 'delivered',
      5_000,
      'delivered',
    );

    // A refusing Slack: the log's error never quotes the URL.
    receiver.answer(() => 404);
    const refused = await api<Body>('/v1/channels/chat/test', { method: 'POST' });
    expect(refused.body).toMatchObject({ outcome: 'failed', statusCode: 404, error: 'HTTP 404: answer 404' });
    const log = JSON.stringify((await api('/v1/channels/chat/deliveries')).body);
    expect(log).not.toContain('sEcReTtOkEn123');
    expect(logs.join('\n')).not.toContain('sEcReTtOkEn123');
  });

  it('refuses bad settings with a 400 naming the field', async () => {
    const cases: [unknown, string][] = [
      [{ name: 'x1', webhook: { url: 'ftp://files.example/' } }, '/webhook/url'],
      [{ name: 'x2', webhook: { url: 'https://user:pw@hooks.example/' } }, '/webhook/url'],
      [{ name: 'Bad_Name', webhook: { url: 'https://hooks.example/' } }, '/name'],
      [{ name: 'x3' }, '/'],
      [{ name: 'x4', webhook: { url: 'https://a.example/' }, slack: { url: 'https://b.example/' } }, '/'],
      [{ name: 'x5', email: { host: 'smtp.example', from: 'a@b.example', to: [] } }, '/email/to'],
      [{ name: 'x6', email: { host: 'smtp.example', from: 'not an address', to: ['a@b.example'] } }, '/email/from'],
      [
        { name: 'x7', email: { host: 'smtp.example', from: 'a@b.example', to: ['a@b.example'], port: 70000 } },
        '/email/port',
      ],
      [
        {
          name: 'x8',
          email: {
            host: 'smtp.example',
            tls: 'none',
            user: 'u',
            password: 'p',
            from: 'a@b.example',
            to: ['c@d.example'],
          },
        },
        '/email/password',
      ],
      [
        { name: 'x9', email: { host: 'smtp.example', password: 'p', from: 'a@b.example', to: ['c@d.example'] } },
        '/email/user',
      ],
      [{ name: 'x10', minSeverity: 'urgent', webhook: { url: 'https://hooks.example/' } }, '/minSeverity'],
      [{ name: 'x11', webhook: { url: 'https://hooks.example/', secret: 'mine' } }, '/webhook/secret'],
    ];
    for (const [body, path] of cases) {
      const res = await create(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.details?.[0]?.path, JSON.stringify(res.body)).toBe(path);
    }
    expect((await api<Body>('/v1/channels')).body.items.map((c: Body) => c.name)).not.toContain('x8');
  });

  it('needs the admin scope to create, remove or test; reading needs read', async () => {
    await create({ name: 'scoped', webhook: { url: 'https://hooks.example/' } });
    for (const scope of ['read', 'write'] as const) {
      const { secret } = await controller.tokens.create({
        name: scope,
        owner: 't',
        scopes: [scope],
        createdBy: 'test',
      });
      const other = apiClient(controller, secret);
      expect((await other('/v1/channels')).status).toBe(200);
      expect((await other('/v1/channels/scoped/deliveries')).status).toBe(200);
      const body = { name: `by-${scope}`, webhook: { url: 'https://hooks.example/' } };
      expect((await other('/v1/channels', { method: 'POST', body })).status).toBe(403);
      expect((await other('/v1/channels/scoped', { method: 'DELETE' })).status).toBe(403);
      expect((await other('/v1/channels/scoped/test', { method: 'POST' })).status).toBe(403);
    }
  });

  it('removes a channel (204, then 404) and frees its name', async () => {
    const first = await create({ name: 'short-lived', webhook: { url: 'https://hooks.example/1' } });
    expect((await api('/v1/channels/short-lived', { method: 'DELETE' })).status).toBe(204);
    expect((await api('/v1/channels/short-lived')).status).toBe(404);
    expect((await api('/v1/channels/short-lived', { method: 'DELETE' })).status).toBe(404);
    expect((await api('/v1/channels/short-lived/deliveries')).status).toBe(404);
    expect((await api('/v1/channels/short-lived/test', { method: 'POST' })).status).toBe(404);
    const again = await create({ name: 'short-lived', webhook: { url: 'https://hooks.example/2' } });
    expect(again.status).toBe(201);
    expect(again.body.id).not.toBe(first.body.id);
    const removed = await controller.db.prisma.alertChannel.findUniqueOrThrow({ where: { id: first.body.id } });
    expect(removed.name).toBe(`short-lived~deleted~${first.body.id}`);
    expect(removed.deletedAt).not.toBeNull();
    const events = await controller.db.prisma.auditEvent.findMany({
      where: { targetType: 'alert_channel', targetId: first.body.id },
      orderBy: { seq: 'asc' },
    });
    expect(events.map((e) => e.action)).toEqual(['alert_channel.created', 'alert_channel.removed']);
  });

  it('sends a test message now and answers with its outcome; the delivery log shows it', async () => {
    receiver = await startReceiver(() => 200);
    const created = await create({ name: 'tested', webhook: { url: `${receiver.url}/t` } });
    const res = await api<Body>('/v1/channels/tested/test', { method: 'POST' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ outcome: 'delivered', statusCode: 200, error: null });
    expect(res.body.durationMs).toBeGreaterThanOrEqual(0);
    const sent = JSON.parse(receiver.received[0]!.body) as Body;
    expect(sent).toMatchObject({ id: res.body.notificationId, test: true, title: 'Test notification from wrtfleet' });
    expect(receiver.received[0]!.headers['wrtfleet-delivery']).toBe(res.body.notificationId);

    receiver.answer(() => 503);
    const failing = await api<Body>('/v1/channels/tested/test', { method: 'POST' });
    expect(failing.body).toMatchObject({ outcome: 'retry', statusCode: 503, error: 'HTTP 503: answer 503' });

    const log = (await api<Body>('/v1/channels/tested/deliveries?limit=10')).body.items as Body[];
    expect(log.map((n) => [n.notificationId, n.test, n.state, n.attempts])).toEqual([
      [failing.body.notificationId, true, 'failed', 1],
      [res.body.notificationId, true, 'delivered', 1],
    ]);
    expect(log[0]!.deliveries).toMatchObject([{ attempt: 1, outcome: 'retry', statusCode: 503 }]);
    // A failed test is not retried: one request for each.
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.received).toHaveLength(2);
    const events = await controller.db.prisma.auditEvent.findMany({
      where: { targetType: 'alert_channel', targetId: created.body.id, action: 'alert_channel.tested' },
    });
    expect(events).toHaveLength(2);
    expect(logs.join('\n')).not.toContain(created.body.secret);
  });
});

function stripSecret(body: Body): Body {
  const { secret: _secret, ...view } = body;
  return view;
}
