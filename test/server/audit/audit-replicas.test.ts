import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hello } from '../../../proto/gen/wrtfleet/agent/v1/agent.js';
import type { Controller } from '../../../server/controller.js';
import { withTriggerDisabled } from '../../../server/storage/append-only.js';
import { helloFor } from '../../support/agents.js';
import { authedFetch, startTestController } from '../../support/controller.js';
import { createPostgresDatabase, type TestDatabase } from '../../support/databases.js';

/** Registrations per replica, all at once: enough for both replicas' batches to meet at the tail. */
const PER_REPLICA = 1000;

const hello = (identity: string) => (helloFor(identity).body as { $case: 'hello'; value: Hello }).value;

/**
 * Two controllers on one PostgreSQL database are two replicas: both append to one audit
 * chain at once, so their appends meet at its tail.
 */
describe('the audit history of two replicas (PostgreSQL)', () => {
  let db: TestDatabase;
  const replicas: Controller[] = [];
  let api: ReturnType<typeof authedFetch>;

  beforeAll(async () => {
    db = await createPostgresDatabase();
    for (let i = 0; i < 2; i++) {
      const started = await startTestController(db);
      replicas.push(started.controller);
      api ??= started.fetch;
    }
  }, 60_000);

  afterAll(async () => {
    for (const r of replicas) await r.close();
    await db?.drop();
  });

  it('registers every router of a burst on both replicas, each with its event, and verify agrees', async () => {
    const registrations = replicas.flatMap((replica, r) =>
      Array.from({ length: PER_REPLICA }, (_, i) => replica.registry.registerHello(hello(`r${r}-router-${i}`), 'test')),
    );
    const outcomes = await Promise.allSettled(registrations);
    const failures = outcomes.flatMap((o) => (o.status === 'rejected' ? [String(o.reason)] : []));
    expect(failures.length, failures[0]).toBe(0);

    const prisma = replicas[0]!.db.prisma;
    const routers = await prisma.router.findMany({ select: { id: true } });
    expect(routers).toHaveLength(2 * PER_REPLICA);
    const events = await prisma.auditEvent.findMany({
      where: { action: 'router.registered' },
      select: { targetId: true },
    });
    expect(new Set(events.map((e) => e.targetId))).toEqual(new Set(routers.map((r) => r.id)));

    const verdict = await api('/v1/audit/verify');
    expect(verdict.status).toBe(200);
    expect(verdict.body).toMatchObject({ ok: true, missing: [], missingCount: 0 });
  }, 240_000);

  it('reports a router whose registration event was deleted as missing, though the chain is intact', async () => {
    const prisma = replicas[1]!.db.prisma;
    const { routerId } = await replicas[1]!.registry.registerHello(hello('deleted-event'), 'test');
    const event = await prisma.auditEvent.findFirstOrThrow({ where: { targetId: routerId } });
    const tail = await prisma.auditEvent.findFirstOrThrow({ orderBy: { seq: 'desc' } });
    // The tail: deleting it leaves every remaining link intact, so only completeness can tell.
    expect(tail.id).toBe(event.id);
    await withTriggerDisabled(prisma, 'AuditEvent', (tx) => tx.auditEvent.delete({ where: { seq: event.seq } }));

    const verdict = await api('/v1/audit/verify');
    expect(verdict.status).toBe(200);
    expect(verdict.body).toMatchObject({
      ok: false,
      missing: [{ kind: 'router', id: routerId }],
      missingCount: 1,
    });
    expect(verdict.body.firstBroken).toBeUndefined();
  }, 60_000);
});
