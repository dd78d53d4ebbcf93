import { status as GrpcStatus } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentCredentials, newKeyAndCsr } from '../../agent/enrollment/agent-credentials.js';
import type { Controller } from '../../server/controller.js';
import { openStream, rawEnroll } from '../support/agents.js';
import { authedFetch, startTestController } from '../support/controller.js';
import { BACKENDS, type TestDatabase } from '../support/databases.js';

const PARALLEL = 10;

/** Refusals a lost race may get: never INTERNAL, always a sentence saying what happened. */
const RACE_CODES = [GrpcStatus.ALREADY_EXISTS, GrpcStatus.ABORTED];

/**
 * Enroll calls racing over real gRPC (mutual TLS): ten agents present ten valid tokens at
 * once. For one new identity exactly one wins; for ten identities wanting one name, all do.
 */
describe.each(BACKENDS)('concurrent enrollment (%s)', (_name, createDb) => {
  let db: TestDatabase;
  let controller: Controller;
  let api: ReturnType<typeof authedFetch>;

  beforeAll(async () => {
    db = await createDb();
    ({ controller, fetch: api } = await startTestController(db, { security: { insecureAgents: false } }));
  });

  afterAll(async () => {
    await controller?.close();
    await db?.drop();
  });

  const prisma = () => controller.db.prisma;
  const mintTokens = async (count: number) => {
    const minted = await Promise.all(
      Array.from({ length: count }, () => api('/v1/enrollment-tokens', { method: 'POST', body: { tags: ['lab'] } })),
    );
    expect(minted.map((m) => m.status)).toEqual(Array(count).fill(201));
    return minted.map((m) => ({ id: m.body.id as string, secret: m.body.token as string }));
  };

  it(`${PARALLEL} Enroll calls for one new identity: one router, one certificate, one event; the others a clear refusal`, async () => {
    const identity = 'race:one-identity';
    const tokens = await mintTokens(PARALLEL);
    const keys = await Promise.all(tokens.map(() => newKeyAndCsr(identity)));
    const outcomes = await Promise.all(
      tokens.map((t, i) => rawEnroll(controller, t.secret, identity, keys[i]!.csrPem)),
    );

    const won = outcomes.flatMap((o, i) => (o.code === GrpcStatus.OK ? [i] : []));
    expect(won, JSON.stringify(outcomes.map((o) => [GrpcStatus[o.code], o.details]))).toHaveLength(1);
    const refused = outcomes.filter((o) => o.code !== GrpcStatus.OK);
    for (const r of refused) {
      // A call that arrived after the winner committed is an ordinary second enrollment of an
      // enrolled router; one that raced it lost the race. Neither is the controller's fault.
      if (r.code === GrpcStatus.PERMISSION_DENIED)
        expect(r.details).toMatch(/is already enrolled; an admin re-enrolls/);
      else expect(RACE_CODES, `${GrpcStatus[r.code]}: ${r.details}`).toContain(r.code);
      expect(r.details).toMatch(new RegExp(`^router ${identity} .+[a-z]$`));
    }
    // The machine is shared and the calls start within milliseconds: most lose the race itself.
    expect(refused.filter((r) => RACE_CODES.includes(r.code)).length).toBeGreaterThan(0);

    const routers = await prisma().router.findMany({ where: { identity }, include: { certificates: true } });
    expect(routers).toHaveLength(1);
    const router = routers[0]!;
    expect(router.id).toBe(outcomes[won[0]!]!.response!.routerId);
    expect(router.certificates).toHaveLength(1);
    expect(router.tags).toEqual(['lab']);
    const events = await prisma().auditEvent.findMany({ where: { targetId: router.id, action: 'router.enrolled' } });
    expect(events).toHaveLength(1);
    // Only the winner's token is spent: the losers' are still good for another router.
    const used = await prisma().enrollmentToken.findMany({
      where: { id: { in: tokens.map((t) => t.id) }, usedAt: { not: null } },
    });
    expect(used.map((t) => t.id)).toEqual([tokens[won[0]!]!.id]);

    // The winner's certificate is the router's: its stream is welcomed.
    const response = outcomes[won[0]!]!.response!;
    const winner = new AgentCredentials({
      identity,
      routerId: response.routerId,
      keyPem: keys[won[0]!]!.keyPem,
      certificatePem: response.certificatePem,
      caPem: response.caCertificatePem,
      receivedAt: Date.now(),
    });
    const stream = openStream(controller.grpcAddress, winner.channelCredentials, identity);
    try {
      const welcome = await stream.welcome;
      expect(welcome.body?.$case === 'welcome' && welcome.body.value.routerId).toBe(router.id);
    } finally {
      stream.close();
    }

    const verdict = await api('/v1/audit/verify');
    expect(verdict.body).toMatchObject({ ok: true, missingCount: 0 });
  });

  it(`${PARALLEL} new identities asking for one name at once: all enroll, each under its own name`, async () => {
    const tokens = await mintTokens(PARALLEL);
    const identities = tokens.map((_, i) => `race:same-name:${i}`);
    const outcomes = await Promise.all(
      tokens.map(async (t, i) =>
        rawEnroll(controller, t.secret, identities[i]!, (await newKeyAndCsr(identities[i]!)).csrPem, 'branch-office'),
      ),
    );
    expect(outcomes.map((o) => `${GrpcStatus[o.code]} ${o.details}`)).toEqual(Array(PARALLEL).fill('OK '));
    const routers = await prisma().router.findMany({ where: { identity: { in: identities } } });
    expect(routers).toHaveLength(PARALLEL);
    expect(new Set(routers.map((r) => r.name))).toEqual(
      new Set(['branch-office', ...Array.from({ length: PARALLEL - 1 }, (_, i) => `branch-office-${i + 2}`)]),
    );
  });
});
