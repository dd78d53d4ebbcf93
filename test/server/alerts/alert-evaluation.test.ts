import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Controller } from '../../../server/controller.js';
import type { NotificationPayload } from '../../../server/alerts/notification-payload.js';
import { startInjectedController, type apiClient } from '../../support/controller.js';
import { BACKENDS, type TestDatabase } from '../../support/databases.js';

/**
 * The evaluator over rows in a real database (PGlite and PostgreSQL): routers are written as the
 * registry writes them (status, lastSeenAt, tags), and each evaluation is run by hand, so the
 * test decides when time has passed instead of waiting for the background tick.
 */
describe.each(BACKENDS)('alert evaluation (%s)', (_name, createDb) => {
  let db: TestDatabase;
  let controller: Controller;
  let api: ReturnType<typeof apiClient>;
  let channelId: string;

  beforeEach(async () => {
    db = await createDb();
    // The background tick is out of the way: the test evaluates.
    const started = await startInjectedController(db, {
      // No offline sweep: the test writes the routers' status and last contact itself.
      heartbeatIntervalSeconds: 3_600,
      alerts: { evaluateEveryMs: 3_600_000 },
    });
    controller = started.controller;
    api = started.fetch;
    await controller.alerting.evaluator.stop();
    const channel = await controller.db.prisma.alertChannel.create({
      data: { name: 'ops', kind: 'webhook', settings: { url: 'http://127.0.0.1:9/hook' }, createdBy: 'test' },
    });
    channelId = channel.id;
  });
  afterEach(async () => {
    await controller?.close();
    await db?.drop();
  });

  const prisma = () => controller.db.prisma;
  const evaluate = () => controller.alerting.evaluator.evaluate({ force: true });
  const secondsAgo = (s: number) => new Date(Date.now() - s * 1000);
  let routerSeq = 0;
  async function routers(n: number, tags: string[], status: 'online' | 'offline', lastSeenSecondsAgo: number) {
    const rows = Array.from({ length: n }, () => {
      routerSeq += 1;
      return {
        name: `r${routerSeq}`,
        identity: `test:${routerSeq}`,
        status,
        lastSeenAt: secondsAgo(lastSeenSecondsAgo),
        tags,
      };
    });
    await prisma().router.createMany({ data: rows });
    return rows.map((r) => r.name);
  }
  const setStatus = (names: string[], status: 'online' | 'offline', lastSeenSecondsAgo: number) =>
    prisma().router.updateMany({
      where: { name: { in: names } },
      data: { status, lastSeenAt: secondsAgo(lastSeenSecondsAgo) },
    });
  async function notifications(): Promise<NotificationPayload[]> {
    const rows = await prisma().alertNotification.findMany({ where: { channelId }, orderBy: { createdAt: 'asc' } });
    return rows.map((r) => r.payload as unknown as NotificationPayload);
  }
  const tune = (rule: string, patch: Record<string, unknown>) =>
    api(`/v1/alert-rules/${rule}`, { method: 'PATCH', body: patch }).then((r) => {
      expect(r.status, JSON.stringify(r.body)).toBe(200);
    });

  it('fires once for a router offline longer than `for`, resolves once when it returns', async () => {
    await tune('router-offline', { forSeconds: 60, groupWaitSeconds: 0, groupIntervalSeconds: 10 });
    const [name] = await routers(1, ['site:ams'], 'offline', 90);
    const first = await evaluate();
    expect(first).toMatchObject({ fired: 1, notifications: 1 });
    expect(await evaluate()).toMatchObject({ fired: 0, resolved: 0, notifications: 0 });

    const firing = await api<{ items: { status: string; subject: { name: string }; group: string }[] }>(
      '/v1/alerts?status=firing',
    );
    expect(firing.body.items).toEqual([
      expect.objectContaining({ status: 'firing', subject: expect.objectContaining({ name }), group: 'site:ams' }),
    ]);

    await setStatus([name!], 'online', 0);
    expect(await evaluate()).toMatchObject({ fired: 0, resolved: 1 });
    // The group was told less than groupIntervalSeconds ago: the resolution waits for it.
    await prisma().alertGroup.updateMany({ data: { lastNotifiedAt: secondsAgo(11) } });
    expect(await evaluate()).toMatchObject({ notifications: 1 });
    expect(await evaluate()).toMatchObject({ fired: 0, resolved: 0, notifications: 0 });

    const sent = await notifications();
    expect(sent.map((n) => [n.status, n.title, n.counts])).toEqual([
      ['firing', '1 router offline: site:ams', { firing: 1, new: 1, resolved: 0 }],
      ['resolved', '1 router back online: site:ams', { firing: 0, new: 0, resolved: 1 }],
    ]);
    expect(sent[0]!.new[0]!.subject.name).toBe(name);
    const all = await api<{ items: { status: string; resolvedAt: string | null }[] }>('/v1/alerts');
    expect(all.body.items).toEqual([expect.objectContaining({ status: 'resolved', resolvedAt: expect.any(String) })]);
  });

  it('fires nothing for a router that flaps inside `for`', async () => {
    await tune('router-offline', { forSeconds: 60, groupWaitSeconds: 0 });
    const [name] = await routers(1, [], 'offline', 20);
    for (let i = 0; i < 3; i++) {
      expect(await evaluate()).toMatchObject({ fired: 0 });
      await setStatus([name!], 'online', 0);
      expect(await evaluate()).toMatchObject({ fired: 0 });
      await setStatus([name!], 'offline', 30);
    }
    expect(await evaluate()).toMatchObject({ fired: 0 });
    expect(await prisma().alert.count()).toBe(0);
    expect(await notifications()).toEqual([]);
    // The deadline of the held condition is kept, so the next tick knows when to look again.
    const mark = await prisma().alertEvaluation.findUnique({ where: { id: 1 } });
    expect(mark?.nextDueAt?.getTime()).toBeGreaterThan(Date.now());
  });

  it('groups a site going dark into one notification, later changes into one update', async () => {
    await tune('router-offline', { forSeconds: 60, groupWaitSeconds: 2, groupIntervalSeconds: 600 });
    const ams = await routers(300, ['site:ams', 'model:x'], 'offline', 120);
    await routers(5, ['site:fra'], 'offline', 120);
    await routers(20, ['site:ams'], 'online', 0);
    expect(await evaluate()).toMatchObject({ fired: 305, notifications: 0 });
    await new Promise((r) => setTimeout(r, 2_100));
    expect(await evaluate()).toMatchObject({ fired: 0, notifications: 2 });
    const sent = await notifications();
    expect(sent.map((n) => n.title).sort()).toEqual(['300 routers offline: site:ams', '5 routers offline: site:fra']);
    const amsMessage = sent.find((n) => n.group.key === 'site:ams')!;
    expect(amsMessage.counts).toEqual({ firing: 300, new: 300, resolved: 0 });
    expect(amsMessage.new).toHaveLength(50);

    // Ten come back and four more go: one update, at the interval, saying exactly that.
    await setStatus(ams.slice(0, 10), 'online', 0);
    const more = await routers(4, ['site:ams'], 'offline', 120);
    expect(await evaluate()).toMatchObject({ fired: 4, resolved: 10, notifications: 0 });
    await prisma().alertGroup.updateMany({
      where: { groupKey: 'site:ams' },
      data: { lastNotifiedAt: secondsAgo(601) },
    });
    expect(await evaluate()).toMatchObject({ notifications: 1 });
    const update = (await notifications()).at(-1)!;
    expect(update).toMatchObject({
      title: '294 routers offline: site:ams',
      counts: { firing: 294, new: 4, resolved: 10 },
      group: { key: 'site:ams', sequence: 2 },
    });
    expect(update.new.map((a) => a.subject.name).sort()).toEqual([...more].sort());
  });

  it('holds back exactly what a silence names, and tells it once the silence ends', async () => {
    await tune('router-offline', { forSeconds: 0, groupWaitSeconds: 0 });
    await routers(3, ['site:ams'], 'offline', 10);
    await routers(2, ['site:fra'], 'offline', 10);
    const made = await api<{ id: string }>('/v1/silences', {
      method: 'POST',
      body: {
        rule: 'router-offline',
        selector: { tags: ['site:ams'] },
        comment: 'power work at ams',
        endsAt: new Date(Date.now() + 3_600_000).toISOString(),
      },
    });
    expect(made.status).toBe(201);
    expect(await evaluate()).toMatchObject({ fired: 5, notifications: 1 });
    expect((await notifications()).map((n) => n.title)).toEqual(['2 routers offline: site:fra']);
    const silenced = await api<{ items: { subject: { name: string }; silence: { id: string } | null }[] }>(
      '/v1/alerts?status=silenced',
    );
    expect(silenced.body.items).toHaveLength(3);
    expect(silenced.body.items.every((a) => a.silence?.id === made.body.id)).toBe(true);

    expect((await api(`/v1/silences/${made.body.id}`, { method: 'DELETE' })).status).toBe(204);
    // ams was never told: its group starts now (groupWaitSeconds 0), fra's is not touched.
    expect(await evaluate()).toMatchObject({ notifications: 1 });
    expect(await evaluate()).toMatchObject({ notifications: 0 });
    expect((await notifications()).at(-1)).toMatchObject({ title: '3 routers offline: site:ams', counts: { new: 3 } });
  });

  it('acknowledges a firing alert with a note, audited; an acknowledged alert is not announced', async () => {
    await tune('router-offline', { forSeconds: 0, groupWaitSeconds: 30 });
    await routers(1, ['site:ams'], 'offline', 10);
    await evaluate();
    const [alert] = (await api<{ items: { id: string }[] }>('/v1/alerts?status=firing')).body.items;
    const acked = await api<{ status: string; acknowledged: { by: string; note: string } }>(
      `/v1/alerts/${alert!.id}/acknowledge`,
      { method: 'POST', body: { note: 'on site, replacing the PSU' } },
    );
    expect(acked.status).toBe(200);
    expect(acked.body).toMatchObject({ status: 'acknowledged', acknowledged: { note: 'on site, replacing the PSU' } });
    const events = await prisma().auditEvent.findMany({ where: { action: 'alert.acknowledged' } });
    expect(events).toHaveLength(1);
    await prisma().alert.updateMany({ data: { firedAt: secondsAgo(60) } });
    expect(await evaluate()).toMatchObject({ notifications: 0 });
    const summary = await api<{ firing: number; acknowledged: number }>('/v1/alerts/summary');
    expect(summary.body).toMatchObject({ firing: 0, acknowledged: 1 });
    expect(
      (await api(`/v1/alerts/${alert!.id}/acknowledge`, { method: 'POST', body: { note: '\u0001' } })).status,
    ).toBe(400);
    expect((await api('/v1/alerts/nope/acknowledge', { method: 'POST', body: {} })).status).toBe(404);
  });

  it('fires for drift, failed applies, paused rollouts and expiring certificates', async () => {
    for (const rule of ['drift-detected', 'apply-failed', 'rollout-paused', 'certificate-expiring'])
      await tune(rule, { groupWaitSeconds: 0 });
    const [drifted, failed, expiring, renewing] = await routers(4, ['site:lyon'], 'online', 0);
    // A day-long certificate with 20 h left is healthy: agents renew after two thirds of its life.
    const fresh = await prisma().router.findUniqueOrThrow({ where: { name: renewing! } });
    await prisma().agentCertificate.create({
      data: {
        serial: 'bb01',
        routerId: fresh.id,
        fingerprint: 'g1',
        notBefore: secondsAgo(4 * 3600),
        notAfter: new Date(Date.now() + 20 * 3600_000),
      },
    });
    await prisma().router.update({ where: { name: drifted! }, data: { drifted: true } });
    await prisma().router.update({ where: { name: failed! }, data: { lastApplyStatus: 'rolled_back' } });
    const r = await prisma().router.findUniqueOrThrow({ where: { name: expiring! } });
    await prisma().agentCertificate.create({
      data: {
        serial: 'aa01',
        routerId: r.id,
        fingerprint: 'f1',
        notBefore: secondsAgo(86_400 * 80),
        notAfter: new Date(Date.now() + 86_400_000 * 3),
      },
    });
    const outcome = await evaluate();
    expect(outcome).toMatchObject({ fired: 3, notifications: 3 });
    const titles = (await notifications()).map((n) => n.title).sort();
    expect(titles).toEqual([
      '1 router drifted from their plan: site:lyon',
      '1 router failed to apply or rolled back: site:lyon',
      '1 router with an agent certificate expiring: site:lyon',
    ]);
    // A renewed certificate resolves it.
    await prisma().agentCertificate.create({
      data: {
        serial: 'aa02',
        routerId: r.id,
        fingerprint: 'f2',
        notBefore: new Date(),
        notAfter: new Date(Date.now() + 86_400_000 * 90),
      },
    });
    expect(await evaluate()).toMatchObject({ resolved: 1 });
  });

  it('refuses bad rules with the field named, and rule changes need the admin scope', async () => {
    const bad = await api<{ details: { path: string }[] }>('/v1/alert-rules', {
      method: 'POST',
      body: { name: 'x', kind: 'rollout_paused', severity: 'warning', groupBy: 'site' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.details[0]!.path).toBe('/groupBy');
    const badKind = await api('/v1/alert-rules', {
      method: 'POST',
      body: { name: 'x', kind: 'nope', severity: 'info' },
    });
    expect(badKind.status).toBe(400);
    const dup = await api('/v1/alert-rules', {
      method: 'POST',
      body: { name: 'router-offline', kind: 'router_offline', severity: 'info' },
    });
    expect(dup.status).toBe(409);
    const made = await api<{ name: string; selector: unknown }>('/v1/alert-rules', {
      method: 'POST',
      body: {
        name: 'core-offline',
        kind: 'router_offline',
        severity: 'critical',
        selector: { tags: ['core'] },
        forSeconds: 30,
      },
    });
    expect(made.status).toBe(201);
    expect(made.body.selector).toEqual({ tags: ['core'] });
    const { secret } = await controller.tokens.create({
      name: 'w',
      owner: 'bob',
      scopes: ['write'],
      createdBy: 'test',
    });
    const res = await controller.http.inject({
      method: 'PATCH',
      url: '/v1/alert-rules/core-offline',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      payload: { enabled: false },
    });
    expect(res.statusCode).toBe(403);
    const rules = await api<{ items: { name: string }[] }>('/v1/alert-rules');
    expect(rules.body.items.map((r) => r.name)).toContain('core-offline');
    expect((await api('/v1/alert-rules/core-offline', { method: 'DELETE' })).status).toBe(204);
    const audit = await prisma().auditEvent.findMany({ where: { action: { startsWith: 'alert.rule' } } });
    expect(audit.map((e) => e.action).sort()).toEqual(['alert.rule_created', 'alert.rule_removed']);
  });
});
