import { afterAll, describe, expect, it } from 'vitest';
import type { Controller } from '../../../server/controller.js';
import { eventually, startInjectedController } from '../../support/controller.js';
import { createPostgresDatabase, type TestDatabase } from '../../support/databases.js';
import { PrivateRedis } from '../../support/private-redis.js';
import { TcpProxy } from '../../support/tcp-proxy.js';

interface AlertBody {
  items: { status: string; subject: { kind: string; name: string }; summary: string; rule: { name: string } }[];
}

/**
 * A replica loses Redis (a redis-server of the test's own, killed and started again) and then
 * PostgreSQL (a forwarder the test cuts): each outage longer than the rule's `for` is an alert of
 * that replica, resolved when the dependency answers again; the PostgreSQL one is written once
 * the database is back, since nothing can be written while it is away.
 */
describe('dependency-unreachable alerts (PostgreSQL + a private Redis)', () => {
  let db: TestDatabase | undefined;
  let controller: Controller | undefined;
  const redis = new PrivateRedis();
  const proxy = new TcpProxy('127.0.0.1', 5432);
  afterAll(async () => {
    await proxy.restore().catch(() => {});
    await controller?.close();
    await proxy.cut();
    await redis.stop();
    await db?.drop();
  });

  it('fires for Redis and for PostgreSQL away past `for`, and resolves when they answer', async () => {
    await redis.start();
    db = await createPostgresDatabase();
    const url = new URL(db.databaseUrl!);
    url.port = String(await proxy.start());
    const started = await startInjectedController(
      { ...db, databaseUrl: url.toString() },
      { redisUrl: redis.url, replicaName: 'replica-a', alerts: { evaluateEveryMs: 250 } },
    );
    controller = started.controller;
    const api = started.fetch;
    expect(
      (
        await api('/v1/alert-rules/dependency-unreachable', {
          method: 'PATCH',
          body: { forSeconds: 1, groupWaitSeconds: 0 },
        })
      ).status,
    ).toBe(200);
    const dependencyAlerts = async (status: string) =>
      (await api<AlertBody>(`/v1/alerts?rule=dependency-unreachable&status=${status}`)).body.items;

    await redis.kill();
    const [redisAlert] = await eventually(
      async () => {
        const items = await dependencyAlerts('firing');
        return items.length === 1 ? items : null;
      },
      20_000,
      'the Redis alert',
    );
    expect(redisAlert).toMatchObject({ subject: { kind: 'replica', name: 'replica-a:Redis' } });
    expect(redisAlert!.summary).toMatch(/replica replica-a cannot reach Redis since/);
    await redis.restart();
    await eventually(async () => (await dependencyAlerts('resolved')).length === 1, 20_000, 'the Redis alert resolved');
    expect(await dependencyAlerts('firing')).toEqual([]);

    await proxy.cut();
    await new Promise((r) => setTimeout(r, 3_000));
    await proxy.restore();
    // Written once the database answers, told by its group, then resolved.
    const pg = await eventually(
      async () => {
        const items = (await dependencyAlerts('resolved')).filter((a) => a.subject.name === 'replica-a:PostgreSQL');
        return items.length === 1 ? items[0] : null;
      },
      30_000,
      'the PostgreSQL outage recorded and resolved',
    );
    expect(pg.summary).toMatch(/cannot reach PostgreSQL since .* \(until /);
    const told = await controller.db.prisma.alertGroup.findMany({
      where: { groupKey: 'replica:replica-a:PostgreSQL' },
    });
    expect(told).toHaveLength(1);
  });
});
