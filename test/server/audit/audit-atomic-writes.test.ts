import { status as GrpcStatus } from '@grpc/grpc-js';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { newKeyAndCsr } from '../../../agent/enrollment/agent-credentials.js';
import { AuditLog } from '../../../server/audit/audit-log.js';
import type { Controller } from '../../../server/controller.js';
import type { Hello } from '../../../proto/gen/wrtfleet/agent/v1/agent.js';
import { enrollTestAgent, helloFor, rawEnroll } from '../../support/agents.js';
import { authedFetch, startTestController, type ApiResponse } from '../../support/controller.js';
import { createPostgresDatabase, type TestDatabase } from '../../support/databases.js';

const hello = (identity: string) => (helloFor(identity).body as { $case: 'hello'; value: Hello }).value;

/** The trigger the test installs: it makes the database refuse audit events of one action. */
const REFUSE_FUNCTION = 'wf_test_refuse_audit_action';
const REFUSE_TRIGGER = 'wf_test_refuse_audit_action';

/**
 * An audited change and its audit event commit together or not at all: with the database
 * refusing the event (a trigger on "AuditEvent" that raises for one action), the API answers
 * with its error shape, promptly, and the change is not there; without the trigger the same
 * call succeeds with exactly one event.
 */
describe('audited writes commit with their event or not at all (PostgreSQL, real controller)', () => {
  let db: TestDatabase;
  let controller: Controller;
  let api: ReturnType<typeof authedFetch>;
  let sql: pg.Client;
  let seq = 0;

  beforeAll(async () => {
    db = await createPostgresDatabase();
    // Mutual TLS: enrollment and certificates are among the writes.
    ({ controller, fetch: api } = await startTestController(db, { security: { insecureAgents: false } }));
    await controller.profiles.save('fleet', { l3Rewrite: { ttl: { value: 65 } } }, undefined, { actor: 'test' });
    sql = new pg.Client({ connectionString: db.databaseUrl });
    await sql.connect();
    await sql.query(`
      CREATE FUNCTION ${REFUSE_FUNCTION}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.action = TG_ARGV[0] THEN
          RAISE EXCEPTION 'test: audit events of action % are refused', NEW.action;
        END IF;
        RETURN NEW;
      END $$`);
  });

  afterEach(async () => {
    await sql.query(`DROP TRIGGER IF EXISTS ${REFUSE_TRIGGER} ON "AuditEvent"`);
  });

  afterAll(async () => {
    await sql?.end();
    await controller?.close();
    await db?.drop();
  });

  const prisma = () => controller.db.prisma;

  const refuseEvents = async (action: string) => {
    await sql.query(
      `CREATE TRIGGER ${REFUSE_TRIGGER} BEFORE INSERT ON "AuditEvent" FOR EACH ROW EXECUTE FUNCTION ${REFUSE_FUNCTION}('${action}')`,
    );
  };
  const allowEvents = () => sql.query(`DROP TRIGGER ${REFUSE_TRIGGER} ON "AuditEvent"`);
  const eventsOf = (action: string) => prisma().auditEvent.findMany({ where: { action } });

  /** A router as its first Hello registers it (online, with its registration event). */
  const newRouter = async () => {
    seq += 1;
    const { routerId } = await controller.registry.registerHello(hello(`atomic:${seq}`), 'test');
    return prisma().router.findUniqueOrThrow({ where: { id: routerId } });
  };
  /** A running rollout whose one target was sent and has no result yet: it stays running. */
  const runningRollout = async () => {
    const router = await newRouter();
    const created = await api('/v1/rollouts', {
      method: 'POST',
      body: { profile: 'fleet', selector: { ids: [router.id] }, strategy: { canary: 0 } },
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    await controller.rollouts.advance(id);
    const rollout = await prisma().rollout.findUniqueOrThrow({ where: { id } });
    expect(rollout.state).toBe('running');
    return { id, routerId: router.id };
  };
  const rolloutState = async (id: string) => {
    const r = await prisma().rollout.findUniqueOrThrow({ where: { id }, include: { targets: true } });
    const routers = await prisma().router.findMany({
      where: { id: { in: r.targets.map((t) => t.routerId) } },
      select: { desiredRevisionId: true, desiredRolloutId: true },
    });
    return { state: r.state, pauseReason: r.pauseReason, targets: r.targets.map((t) => t.state), routers };
  };
  const enrolledRouter = async () => {
    seq += 1;
    const identity = `atomic-enrolled:${seq}`;
    await enrollTestAgent(controller, identity);
    return prisma().router.findUniqueOrThrow({ where: { identity }, include: { certificates: true } });
  };
  const certificates = (routerId: string) =>
    prisma().agentCertificate.findMany({ where: { routerId }, select: { serial: true, revokedAt: true } });

  interface Write {
    /** The audit action of the event the write commits with. */
    action: string;
    /** Creates what the write needs; the same context serves the refused call and the one after. */
    prepare: () => Promise<Record<string, string>>;
    call: (ctx: Record<string, string>) => Promise<ApiResponse<unknown>>;
    /** What the write changes, read straight from the database. */
    state: (ctx: Record<string, string>) => Promise<unknown>;
    succeeds: number;
  }

  const WRITES: Write[] = [
    {
      action: 'router.tags.set',
      prepare: async () => ({ routerId: (await newRouter()).id }),
      call: ({ routerId }) => api(`/v1/routers/${routerId}/tags`, { method: 'PUT', body: { tags: ['group:canary'] } }),
      state: ({ routerId }) => prisma().router.findUniqueOrThrow({ where: { id: routerId }, select: { tags: true } }),
      succeeds: 200,
    },
    {
      action: 'router.assignment.set',
      prepare: async () => ({ routerId: (await newRouter()).id }),
      call: ({ routerId }) =>
        api(`/v1/routers/${routerId}/assignment`, {
          method: 'PUT',
          body: { profile: 'fleet', overrides: { l3Rewrite: { ttl: { value: 64 } } } },
        }),
      state: ({ routerId }) => prisma().assignment.findUnique({ where: { routerId } }),
      succeeds: 200,
    },
    {
      action: 'router.credential_set',
      prepare: async () => ({ routerId: (await newRouter()).id }),
      call: ({ routerId }) =>
        api(`/v1/routers/${routerId}/credential`, {
          method: 'PUT',
          body: { host: '10.1.2.3', username: 'root', authType: 'password', password: 'not-a-real-password' },
        }),
      state: ({ routerId }) => prisma().routerCredential.findUnique({ where: { routerId } }),
      succeeds: 200,
    },
    {
      action: 'api_token.revoked',
      prepare: async () => {
        const { secret, record } = await controller.tokens.create({
          name: 'doomed',
          owner: 'bob',
          scopes: ['read'],
          createdBy: 'test',
        });
        return { tokenId: record.id, secret };
      },
      call: ({ tokenId }) => api(`/v1/tokens/${tokenId}`, { method: 'DELETE' }),
      state: async ({ tokenId, secret }) => ({
        row: await prisma().apiToken.findUniqueOrThrow({ where: { id: tokenId }, select: { revokedAt: true } }),
        // A revocation that did not commit must not stop the token either.
        works: await controller.tokens.authenticate(secret!).then((a) => a !== null),
      }),
      succeeds: 204,
    },
    {
      action: 'enrollment_token.created',
      prepare: async () => ({}),
      call: () => api('/v1/enrollment-tokens', { method: 'POST', body: { routerName: 'atomic-new', tags: ['lab'] } }),
      state: () => prisma().enrollmentToken.count({ where: { routerName: 'atomic-new' } }),
      succeeds: 201,
    },
    {
      action: 'enrollment_token.revoked',
      prepare: async () => ({
        tokenId: (await controller.security.enrollmentTokens.create({ createdBy: 'test' })).record.id,
      }),
      call: ({ tokenId }) => api(`/v1/enrollment-tokens/${tokenId}`, { method: 'DELETE' }),
      state: ({ tokenId }) =>
        prisma().enrollmentToken.findUniqueOrThrow({ where: { id: tokenId }, select: { revokedAt: true } }),
      succeeds: 204,
    },
    {
      action: 'router.reenroll_requested',
      prepare: async () => ({ routerId: (await enrolledRouter()).id }),
      call: ({ routerId }) => api(`/v1/routers/${routerId}/re-enroll`, { method: 'POST', body: {} }),
      state: ({ routerId }) => prisma().enrollmentToken.count({ where: { routerId } }),
      succeeds: 201,
    },
    {
      action: 'router.certificate_revoked',
      prepare: async () => {
        const router = await enrolledRouter();
        return { routerId: router.id, serial: router.certificates[0]!.serial };
      },
      call: ({ serial }) => api(`/v1/certificates/${serial}/revoke`, { method: 'POST' }),
      state: ({ routerId }) => certificates(routerId!),
      succeeds: 204,
    },
    {
      action: 'router.decommissioned',
      prepare: async () => ({ routerId: (await enrolledRouter()).id }),
      call: ({ routerId }) => api(`/v1/routers/${routerId}/decommission`, { method: 'POST' }),
      state: async ({ routerId }) => ({
        router: await prisma().router.findUniqueOrThrow({
          where: { id: routerId },
          select: { decommissionedAt: true, status: true },
        }),
        certificates: await certificates(routerId!),
      }),
      succeeds: 200,
    },
    {
      action: 'rollout.paused',
      prepare: runningRollout,
      call: ({ id }) => api(`/v1/rollouts/${id}/pause`, { method: 'POST' }),
      state: ({ id }) => rolloutState(id!),
      succeeds: 200,
    },
    {
      action: 'rollout.cancelled',
      prepare: runningRollout,
      call: ({ id }) => api(`/v1/rollouts/${id}/cancel`, { method: 'POST' }),
      state: ({ id }) => rolloutState(id!),
      succeeds: 200,
    },
    {
      action: 'onboarding.requested',
      prepare: async () => ({}),
      // A port nothing listens on: the job, once queued, fails at its connect step.
      call: () =>
        api('/v1/onboarding', { method: 'POST', body: { host: '127.0.0.1', port: 9, password: 'not-a-password' } }),
      state: () => prisma().job.count(),
      succeeds: 202,
    },
  ];

  it.each(WRITES.map((w) => [w.action, w] as const))(
    '%s: refused event, unchanged row and the error shape; then one event',
    async (action, write) => {
      const ctx = await write.prepare();
      const before = await write.state(ctx);
      const eventsBefore = (await eventsOf(action)).length;

      await refuseEvents(action);
      const refused = await write.call(ctx);
      expect(refused.status).toBe(500);
      expect(refused.body).toEqual({
        error: 'internal',
        message: expect.any(String),
        requestId: expect.any(String),
      });
      expect(await write.state(ctx)).toEqual(before);
      expect(await eventsOf(action)).toHaveLength(eventsBefore);

      await allowEvents();
      const done = await write.call(ctx);
      expect(done.status, JSON.stringify(done.body)).toBe(write.succeeds);
      expect(await write.state(ctx)).not.toEqual(before);
      expect(await eventsOf(action)).toHaveLength(eventsBefore + 1);
    },
  );

  it('router.enrolled: a refused event leaves no router, no certificate and the token unspent (gRPC)', async () => {
    const identity = 'atomic:enrolls';
    const { secret, record } = await controller.security.enrollmentTokens.create({ createdBy: 'test' });
    const state = async () => ({
      routers: await prisma().router.count({ where: { identity } }),
      certificates: await prisma().agentCertificate.count({ where: { router: { identity } } }),
      token: await prisma().enrollmentToken.findUniqueOrThrow({
        where: { id: record.id },
        select: { usedAt: true, usedByRouterId: true },
      }),
    });
    const before = await state();
    await refuseEvents('router.enrolled');
    const refused = await rawEnroll(controller, secret, identity, (await newKeyAndCsr(identity)).csrPem);
    expect(refused).toEqual({ code: GrpcStatus.INTERNAL, details: 'enrollment failed; see the controller log' });
    expect(await state()).toEqual(before);
    expect(before).toEqual({ routers: 0, certificates: 0, token: { usedAt: null, usedByRouterId: null } });

    await allowEvents();
    const enrolled = await rawEnroll(controller, secret, identity, (await newKeyAndCsr(identity)).csrPem);
    expect(enrolled.code).toBe(GrpcStatus.OK);
    expect(await state()).toMatchObject({ routers: 1, certificates: 1 });
    const events = await prisma().auditEvent.findMany({
      where: { action: 'router.enrolled', after: { path: ['identity'], equals: identity } },
    });
    expect(events).toHaveLength(1);
    expect(events[0]!.targetId).toBe(enrolled.response!.routerId);
  });

  it('one change whose event is refused does not take the changes batched with it down', async () => {
    const audit = new AuditLog(prisma());
    const [kept, dropped] = [await newRouter(), await newRouter()];
    await refuseEvents('test.refused');
    const tag = (routerId: string, action: string) =>
      audit.record(async (tx) => {
        await tx.router.update({ where: { id: routerId }, data: { tags: ['batched'] } });
        return { result: routerId, event: { actor: 'test', action, targetType: 'router', targetId: routerId } };
      });
    // While a first change holds the log's transaction, the next two queue up: they share the
    // following transaction and one INSERT of their events.
    const first = audit.record(async () => {
      await new Promise((r) => setTimeout(r, 300));
      return { result: null, event: null };
    });
    const outcomes = await Promise.allSettled([tag(kept.id, 'test.kept'), tag(dropped.id, 'test.refused')]);
    await first;
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected']);
    const tags = async (id: string) => (await prisma().router.findUniqueOrThrow({ where: { id } })).tags;
    expect(await tags(kept.id)).toEqual(['batched']);
    expect(await tags(dropped.id)).toEqual([]);
    expect(await eventsOf('test.kept')).toHaveLength(1);
    expect(await eventsOf('test.refused')).toHaveLength(0);
  });

  it('verify still finds the history complete and intact after all of it', async () => {
    const verdict = await api('/v1/audit/verify');
    expect(verdict.status).toBe(200);
    expect(verdict.body).toMatchObject({ ok: true, missing: [], missingCount: 0 });
  });
});
