import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hello } from '../../../proto/gen/wrtfleet/agent/v1/agent.js';
import type { Controller } from '../../../server/controller.js';
import { withTriggerDisabled } from '../../../server/storage/append-only.js';
import { helloFor } from '../../support/agents.js';
import { authedFetch, startTestController } from '../../support/controller.js';
import { BACKENDS, type TestDatabase } from '../../support/databases.js';

const hello = (identity: string) => (helloFor(identity).body as { $case: 'hello'; value: Hello }).value;

/**
 * `GET /v1/audit/verify` checks more than the chain: the changes whose event now commits
 * with them (a decommission, a token revocation, a rollout's end) and the subjects created
 * with one (certificates, onboarding jobs) are reported when their event is not there, though
 * every remaining link of the chain is intact.
 */
describe.each(BACKENDS)('audit verify reports changes without their event (%s)', (_name, createDb) => {
  let db: TestDatabase;
  let controller: Controller;
  let api: ReturnType<typeof authedFetch>;

  beforeAll(async () => {
    db = await createDb();
    ({ controller, fetch: api } = await startTestController(db));
    await controller.profiles.save('fleet', { l3Rewrite: { ttl: { value: 65 } } }, undefined, { actor: 'test' });
  });

  afterAll(async () => {
    await controller?.close();
    await db?.drop();
  });

  const prisma = () => controller.db.prisma;
  const verify = async () => {
    const verdict = await api('/v1/audit/verify');
    expect(verdict.status).toBe(200);
    return verdict.body as { ok: boolean; missing: unknown[]; missingCount: number; firstBroken?: unknown };
  };

  /** Deletes the newest event, which must be `action` on `targetId`: the links before it stay intact. */
  const deleteTailEvent = async (action: string, targetId: string) => {
    const tail = await prisma().auditEvent.findFirstOrThrow({ orderBy: { seq: 'desc' } });
    expect({ action: tail.action, targetId: tail.targetId }).toEqual({ action, targetId });
    await withTriggerDisabled(prisma(), 'AuditEvent', (tx) => tx.auditEvent.delete({ where: { seq: tail.seq } }));
  };

  it('starts complete', async () => {
    expect(await verify()).toMatchObject({ ok: true, missing: [], missingCount: 0 });
  });

  it('a decommissioned router, a revoked token and a cancelled rollout without their events', async () => {
    const { routerId } = await controller.registry.registerHello(hello('complete:decommissioned'), 'test');
    expect((await api(`/v1/routers/${routerId}/decommission`, { method: 'POST' })).status).toBe(200);
    await deleteTailEvent('router.decommissioned', routerId);

    const { record: token } = await controller.tokens.create({
      name: 'soon-revoked',
      owner: 'bob',
      scopes: ['read'],
      createdBy: 'test',
    });
    expect((await api(`/v1/tokens/${token.id}`, { method: 'DELETE' })).status).toBe(204);
    await deleteTailEvent('api_token.revoked', token.id);

    const { routerId: target } = await controller.registry.registerHello(hello('complete:target'), 'test');
    const rollout = await api('/v1/rollouts', {
      method: 'POST',
      body: { profile: 'fleet', selector: { ids: [target] }, startAt: new Date(Date.now() + 3_600_000).toISOString() },
    });
    expect(rollout.status).toBe(201);
    expect((await api(`/v1/rollouts/${rollout.body.id}/cancel`, { method: 'POST' })).status).toBe(200);
    await deleteTailEvent('rollout.cancelled', rollout.body.id);

    const verdict = await verify();
    expect(verdict.ok).toBe(false);
    expect(verdict.firstBroken).toBeUndefined();
    expect(verdict.missingCount).toBe(3);
    expect(verdict.missing).toEqual(
      expect.arrayContaining([
        { kind: 'router', id: routerId, missingEvent: 'router.decommissioned' },
        { kind: 'api_token', id: token.id, missingEvent: 'api_token.revoked' },
        { kind: 'rollout', id: rollout.body.id, missingEvent: 'rollout.cancelled' },
      ]),
    );
  });

  it('a certificate no enrollment issued and an onboarding job nobody requested', async () => {
    const { routerId } = await controller.registry.registerHello(hello('complete:planted'), 'test');
    const now = Date.now();
    await prisma().agentCertificate.create({
      data: {
        serial: '0badc0de',
        routerId,
        fingerprint: 'planted',
        notBefore: new Date(now),
        notAfter: new Date(now + 86_400_000),
      },
    });
    const job = await prisma().job.create({ data: { kind: 'onboarding', input: {}, createdBy: 'nobody' } });
    const verdict = await verify();
    expect(verdict.missingCount).toBe(5);
    expect(verdict.missing).toEqual(
      expect.arrayContaining([
        {
          kind: 'certificate',
          id: '0badc0de',
          missingEvent: 'router.enrolled or router.reenrolled or router.certificate_renewed',
        },
        { kind: 'onboarding_job', id: job.id, missingEvent: 'onboarding.requested' },
      ]),
    );
  });
});
