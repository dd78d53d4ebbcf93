import { X509Certificate } from 'node:crypto';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentCredentials, newKeyAndCsr } from '../../agent/enrollment/agent-credentials.js';
import type { Controller } from '../../server/controller.js';
import { enrollTestAgent, openStream, rawEnroll, type OpenStream } from '../support/agents.js';
import { authedFetch, startTestController } from '../support/controller.js';
import { BACKENDS, type TestDatabase } from '../support/databases.js';

const SECURE = { security: { insecureAgents: false } } as const;
const VICTIM = 'sim.glinet-gl-mt6000-mt7986:002';

/** Resolves with how the stream ended, or 'open' when it is still up after `ms`. */
const endedWithin = (s: OpenStream, ms: number) =>
  Promise.race([s.ended.then((e) => e.code), new Promise<'open'>((r) => setTimeout(() => r('open'), ms))]);

describe.each(BACKENDS)('enrollment cannot take over a router already in the fleet (%s)', (_name, createDb) => {
  let db: TestDatabase;
  let controller: Controller;
  let admin: ReturnType<typeof authedFetch>;
  let provisioning: ReturnType<typeof authedFetch>;
  let writer: ReturnType<typeof authedFetch>;
  let victim: AgentCredentials;
  let victimId: string;
  const streams: OpenStream[] = [];
  /** A fresh stream of the real router (a raw stream sends no heartbeats: liveness would close an old one). */
  const connectVictim = async () => {
    const s = openStream(controller.grpcAddress, victim.channelCredentials, VICTIM);
    streams.push(s);
    await s.welcome;
    return s;
  };

  beforeAll(async () => {
    db = await createDb();
    ({ controller, fetch: admin } = await startTestController(db, SECURE));
    const scoped = async (scope: 'enroll' | 'write') =>
      authedFetch(
        controller.httpUrl,
        (await controller.tokens.create({ name: scope, owner: `${scope}-bot`, scopes: [scope], createdBy: 'test' }))
          .secret,
      );
    provisioning = await scoped('enroll');
    writer = await scoped('write');
    victim = await enrollTestAgent(controller, VICTIM, 'victim');
    await controller.db.prisma.router.update({ where: { identity: VICTIM }, data: { tags: ['site:hq'] } });
    victimId = (await controller.db.prisma.router.findUniqueOrThrow({ where: { identity: VICTIM } })).id;
  });
  afterAll(async () => {
    for (const s of streams) s.close();
    await controller?.close();
    await db?.drop();
  });

  const victimState = async () => {
    const router = await controller.db.prisma.router.findUniqueOrThrow({
      where: { id: victimId },
      include: { certificates: true },
    });
    return {
      name: router.name,
      tags: router.tags,
      certificates: router.certificates.length,
      revoked: router.certificates.filter((c) => c.revokedAt).length,
    };
  };

  it.each([
    ['a token not bound to a name', {}],
    ['a token bound to the victim name', { routerName: 'victim' }],
  ])(
    'an enroll-scope token (%s) gets PERMISSION_DENIED for an enrolled identity; the router keeps its key, stream and tags',
    async (_variant, binding) => {
      const victimStream = await connectVictim();
      const before = await victimState();
      const minted = await provisioning('/v1/enrollment-tokens', {
        method: 'POST',
        body: { ...binding, tags: ['rollout:canary'] },
      });
      expect(minted.status).toBe(201);
      const attempt = await rawEnroll(controller, minted.body.token, VICTIM, (await newKeyAndCsr(VICTIM)).csrPem);
      expect(attempt.code).toBe(GrpcStatus.PERMISSION_DENIED);
      expect(attempt.details).toMatch(/already enrolled; an admin re-enrolls it/);
      expect(attempt.response).toBeUndefined();
      expect(await victimState()).toEqual(before);
      expect(before).toMatchObject({ name: 'victim', tags: ['site:hq'], revoked: 0 });
      expect(await endedWithin(victimStream, 600)).toBe('open');
      const audit = await controller.db.prisma.auditEvent.count({
        where: { targetId: victimId, action: { in: ['router.reenrolled', 'router.enrolled'] } },
      });
      expect(audit).toBe(1);
    },
  );

  it('a router registered ahead of enrollment takes its first key from an ordinary token (no tags from it); a revoked one needs the admin', async () => {
    const ahead = 'lab:registered-ahead';
    const router = await controller.db.prisma.router.create({
      data: { identity: ahead, name: 'ahead', tags: ['site:branch'] },
    });
    const wrongName = await provisioning('/v1/enrollment-tokens', { method: 'POST', body: { routerName: 'other' } });
    const refused = await rawEnroll(controller, wrongName.body.token, ahead, (await newKeyAndCsr(ahead)).csrPem);
    expect(refused.code).toBe(GrpcStatus.PERMISSION_DENIED);
    const minted = await provisioning('/v1/enrollment-tokens', {
      method: 'POST',
      body: { routerName: 'ahead', tags: ['rollout:canary'] },
    });
    const first = await rawEnroll(controller, minted.body.token, ahead, (await newKeyAndCsr(ahead)).csrPem);
    expect(first.code).toBe(GrpcStatus.OK);
    expect(first.response?.routerId).toBe(router.id);
    const after = await controller.db.prisma.router.findUniqueOrThrow({ where: { id: router.id } });
    expect(after).toMatchObject({ name: 'ahead', tags: ['site:branch'] });

    await controller.db.prisma.agentCertificate.updateMany({
      where: { routerId: router.id },
      data: { revokedAt: new Date() },
    });
    const again = await provisioning('/v1/enrollment-tokens', { method: 'POST', body: {} });
    const rekey = await rawEnroll(controller, again.body.token, ahead, (await newKeyAndCsr(ahead)).csrPem);
    expect(rekey.code).toBe(GrpcStatus.PERMISSION_DENIED);
    expect(rekey.details).toMatch(/already enrolled/);
  });

  it('a decommissioned identity cannot enroll again with an ordinary token, bound to its name or not', async () => {
    const retired = 'lab:retired';
    await enrollTestAgent(controller, retired);
    const router = await controller.db.prisma.router.findUniqueOrThrow({ where: { identity: retired } });
    expect((await admin(`/v1/routers/${router.id}/decommission`, { method: 'POST' })).status).toBe(200);
    for (const body of [{}, { routerName: retired }]) {
      const minted = await provisioning('/v1/enrollment-tokens', { method: 'POST', body });
      const attempt = await rawEnroll(controller, minted.body.token, retired, (await newKeyAndCsr(retired)).csrPem);
      expect(attempt.code).toBe(GrpcStatus.PERMISSION_DENIED);
      expect(attempt.details).toMatch(/decommissioned/);
    }
    const after = await controller.db.prisma.router.findUniqueOrThrow({ where: { id: router.id } });
    expect(after.decommissionedAt).not.toBeNull();
  });

  it('POST /v1/routers/{id}/re-enroll needs admin, names bad fields, 404s an unknown router', async () => {
    expect((await provisioning(`/v1/routers/${victimId}/re-enroll`, { method: 'POST' })).status).toBe(403);
    expect((await writer(`/v1/routers/${victimId}/re-enroll`, { method: 'POST' })).status).toBe(403);
    const bad = await admin(`/v1/routers/${victimId}/re-enroll`, { method: 'POST', body: { expiresInSeconds: 1 } });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('expiresInSeconds');
    const missing = await admin('/v1/routers/00000000-0000-4000-8000-000000000000/re-enroll', {
      method: 'POST',
      body: {},
    });
    expect(missing.status).toBe(404);
  });

  it('an admin re-enroll token re-keys exactly that router, once: old certificate revoked, stream closed, new key connects, audited', async () => {
    const victimStream = await connectVictim();
    const minted = await admin(`/v1/routers/${victimId}/re-enroll`, { method: 'POST', body: {} });
    expect(minted.status).toBe(201);
    expect(minted.body).toMatchObject({ routerId: victimId, identity: VICTIM, state: 'active', tags: [] });
    expect(minted.body.token).toMatch(/^wfe_/);
    // Bound to the router id: no other identity, new or existing, gets anything from it.
    for (const other of ['lab:interloper', 'lab:retired']) {
      const attempt = await rawEnroll(controller, minted.body.token, other, (await newKeyAndCsr(other)).csrPem);
      expect(attempt.code, other).toBe(GrpcStatus.PERMISSION_DENIED);
    }
    expect(await controller.db.prisma.router.findUnique({ where: { identity: 'lab:interloper' } })).toBeNull();

    const creds = await AgentCredentials.enroll({
      address: controller.grpcAddress,
      token: minted.body.token,
      identity: VICTIM,
      caFingerprint: minted.body.caFingerprint,
    });
    expect(await endedWithin(victimStream, 1500)).toBe(GrpcStatus.PERMISSION_DENIED);
    const state = await victimState();
    expect(state).toMatchObject({ name: 'victim', tags: ['site:hq'], certificates: 2, revoked: 1 });
    const fresh = openStream(controller.grpcAddress, creds.channelCredentials, VICTIM);
    const welcome = await fresh.welcome;
    expect(welcome.body?.$case === 'welcome' && welcome.body.value.routerId).toBe(victimId);
    fresh.close();

    const again = await rawEnroll(controller, minted.body.token, VICTIM, (await newKeyAndCsr(VICTIM)).csrPem);
    expect(again.code).toBe(GrpcStatus.UNAUTHENTICATED);
    const events = await controller.db.prisma.auditEvent.findMany({
      where: { targetId: victimId, action: { in: ['router.reenroll_requested', 'router.reenrolled'] } },
      orderBy: { seq: 'asc' },
    });
    expect(events.map((e) => [e.action, e.actor])).toEqual([
      ['router.reenroll_requested', 'token:tester'],
      ['router.reenrolled', `agent:${VICTIM}`],
    ]);
    expect(JSON.stringify(events, (_k, v) => (typeof v === 'bigint' ? String(v) : v))).not.toContain(minted.body.token);
    expect(new X509Certificate(creds.identity.certificatePem).subject).toContain(`CN=${VICTIM}`);
  });

  it('an admin re-enroll brings a decommissioned router back', async () => {
    const router = await controller.db.prisma.router.findUniqueOrThrow({ where: { identity: 'lab:retired' } });
    const minted = await admin(`/v1/routers/${router.id}/re-enroll`, { method: 'POST' });
    expect(minted.status, JSON.stringify(minted.body)).toBe(201);
    const creds = await AgentCredentials.enroll({
      address: controller.grpcAddress,
      token: minted.body.token,
      identity: 'lab:retired',
      caFingerprint: minted.body.caFingerprint,
    });
    const s = openStream(controller.grpcAddress, creds.channelCredentials, 'lab:retired');
    await s.welcome;
    s.close();
    const after = await controller.db.prisma.router.findUniqueOrThrow({ where: { id: router.id } });
    expect(after.decommissionedAt).toBeNull();
    const event = await controller.db.prisma.auditEvent.findFirstOrThrow({
      where: { targetId: router.id, action: 'router.reenrolled' },
    });
    expect(event.after).toMatchObject({ recommissioned: true });
  });
});
