import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { credentials as grpcCredentials, status as GrpcStatus } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentCredentials, enroll, newKeyAndCsr } from '../../agent/enrollment/agent-credentials.js';
import { keepRenewed } from '../../agent/enrollment/certificate-renewal.js';
import { CONTROLLER_VERIFY_OPTIONS } from '../../agent/enrollment/controller-server-name.js';
import { ControllerLink } from '../../agent/controller-link.js';
import type { Controller } from '../../server/controller.js';
import { ControllerPki } from '../../server/pki/ca.js';
import { enrollTestAgent, helloFor, openStream, rawEnroll } from '../support/agents.js';
import { eventually, startTestController } from '../support/controller.js';
import { BACKENDS, createPgliteDatabase, type TestDatabase } from '../support/databases.js';

const SECURE = { security: { insecureAgents: false } } as const;

describe.each(BACKENDS)('agents: enrollment and mutual TLS on %s', (_name, createDb) => {
  let db: TestDatabase;
  let controller: Controller;
  let api: Awaited<ReturnType<typeof startTestController>>['fetch'];
  const caPem = () => controller.security.pki!.caCertificatePem;

  beforeAll(async () => {
    db = await createDb();
    ({ controller, fetch: api } = await startTestController(db, SECURE));
  });
  afterAll(async () => {
    await controller?.close();
    await db?.drop();
  });

  const routerByIdentity = (identity: string) => controller.db.prisma.router.findUnique({ where: { identity } });

  it('first start created the CA and the server certificate in <dataDir>/pki, keys mode 0600, SANs for loopback', async () => {
    const dir = path.join(db.dataDir, 'pki');
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    for (const key of ['ca.key', 'server.key']) expect((await stat(path.join(dir, key))).mode & 0o777, key).toBe(0o600);
    expect((await stat(path.join(db.dataDir, 'data-key'))).mode & 0o777).toBe(0o600);
    const server = new X509Certificate(await readFile(path.join(dir, 'server.crt')));
    expect(server.subjectAltName).toContain('IP Address:127.0.0.1');
    expect(server.subjectAltName).toContain('DNS:localhost');
    expect(server.verify(new X509Certificate(caPem()).publicKey)).toBe(true);
  });

  it('the agent port hands out no encrypted session tickets (they cost Node 14 KiB a connection; agents never resume)', async () => {
    const [host, port] = [controller.grpcAddress.split(':')[0]!, Number(controller.grpcAddress.split(':')[1])];
    const tickets = await new Promise<number[]>((resolve, reject) => {
      const seen: number[] = [];
      const socket = tls.connect({ host, port, ALPNProtocols: ['h2'], ca: caPem(), servername: 'localhost' });
      socket.on('session', () => {
        seen.push(socket.getTLSTicket()?.length ?? 0);
        // TLS 1.3 servers send their tickets right after the handshake; two is OpenSSL's count.
        if (seen.length === 2) {
          socket.destroy();
          resolve(seen);
        }
      });
      socket.on('error', reject);
      setTimeout(() => (socket.destroy(), resolve(seen)), 2_000);
    });
    // A stateless ticket carries the encrypted session (~500 bytes); without them OpenSSL sends
    // a 32-byte session id instead, which Node's server keeps no state for.
    expect(tickets.length).toBeGreaterThan(0);
    for (const length of tickets) expect(length).toBeLessThanOrEqual(32);
  });

  it('an API-minted enrollment token enrolls an agent (CA pinned by fingerprint) that then connects over mTLS; audited; the token is spent', async () => {
    const minted = await api('/v1/enrollment-tokens', {
      method: 'POST',
      body: { routerName: 'edge-1', tags: ['site:lab'], expiresInSeconds: 600 },
    });
    expect(minted.status).toBe(201);
    expect(minted.body.token).toMatch(/^wfe_/);
    expect(minted.body.caFingerprint).toBe(controller.security.pki!.caFingerprint);
    const creds = await AgentCredentials.enroll({
      address: controller.grpcAddress,
      token: minted.body.token,
      identity: 'lab:edge-1',
      caFingerprint: minted.body.caFingerprint,
    });
    const cert = new X509Certificate(creds.identity.certificatePem);
    expect(cert.subjectAltName).toBe('URI:urn:wrtfleet:router:lab%3Aedge-1');
    expect(cert.subject).toContain('CN=lab:edge-1');
    // Short-lived: the default is a day (plus the backdating for clock skew).
    expect(new Date(cert.validTo).getTime() - Date.now()).toBeLessThanOrEqual(24 * 3600_000 + 1000);
    expect(cert.verify(new X509Certificate(caPem()).publicKey)).toBe(true);

    const s = openStream(controller.grpcAddress, creds.channelCredentials, 'lab:edge-1');
    const welcome = await s.welcome;
    expect(welcome.body?.$case).toBe('welcome');
    const router = await routerByIdentity('lab:edge-1');
    expect(router).toMatchObject({ name: 'edge-1', tags: ['site:lab'], status: 'online' });
    const events = await controller.db.prisma.auditEvent.findMany({
      where: { targetId: router!.id, action: 'router.enrolled' },
    });
    expect(events).toHaveLength(1);
    expect(JSON.stringify(events[0], (_k, v) => (typeof v === 'bigint' ? String(v) : v))).not.toContain(
      minted.body.token,
    );
    const list = await api('/v1/enrollment-tokens');
    expect(list.body.items.find((t: { id: string }) => t.id === minted.body.id)).toMatchObject({
      state: 'used',
      usedByRouterId: router!.id,
    });
    expect(JSON.stringify(list.body)).not.toContain(minted.body.token);
    s.close();
  });

  it('a reused, an expired and a revoked enrollment token are refused, and no router is created', async () => {
    const { csrPem } = await newKeyAndCsr('lab:reuse');
    const { secret } = await controller.security.enrollmentTokens.create({ createdBy: 'test' });
    expect((await rawEnroll(controller, secret, 'lab:reuse', csrPem)).code).toBe(GrpcStatus.OK);
    const again = await rawEnroll(controller, secret, 'lab:reuse-2', (await newKeyAndCsr('lab:reuse-2')).csrPem);
    expect(again.code).toBe(GrpcStatus.UNAUTHENTICATED);
    expect(again.details).toMatch(/unknown, already used, revoked or expired/);

    const expired = await controller.security.enrollmentTokens.create({ createdBy: 'test' });
    await controller.db.prisma.enrollmentToken.update({
      where: { id: expired.record.id },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    expect(
      (await rawEnroll(controller, expired.secret, 'lab:expired', (await newKeyAndCsr('lab:expired')).csrPem)).code,
    ).toBe(GrpcStatus.UNAUTHENTICATED);

    const revoked = await api('/v1/enrollment-tokens', { method: 'POST', body: {} });
    expect((await api(`/v1/enrollment-tokens/${revoked.body.id}`, { method: 'DELETE' })).status).toBe(204);
    expect(
      (await rawEnroll(controller, revoked.body.token, 'lab:revoked', (await newKeyAndCsr('lab:revoked')).csrPem)).code,
    ).toBe(GrpcStatus.UNAUTHENTICATED);

    expect(
      (await rawEnroll(controller, 'wfe_made-up', 'lab:guess', (await newKeyAndCsr('lab:guess')).csrPem)).code,
    ).toBe(GrpcStatus.UNAUTHENTICATED);
    for (const identity of ['lab:reuse-2', 'lab:expired', 'lab:revoked', 'lab:guess'])
      expect(await routerByIdentity(identity), identity).toBeNull();
  });

  it('a CSR that is not signed by its key, or garbage, is refused without spending the token', async () => {
    const { secret } = await controller.security.enrollmentTokens.create({ createdBy: 'test' });
    const { csrPem } = await newKeyAndCsr('lab:tamper');
    // Flip one byte inside the signature: proof of possession fails.
    const body = csrPem
      .split('\n')
      .filter((l) => l && !l.startsWith('-----'))
      .join('');
    const der = Buffer.from(body, 'base64');
    der[der.length - 5] = der[der.length - 5]! ^ 0x01;
    const tampered = `-----BEGIN CERTIFICATE REQUEST-----\n${der.toString('base64')}\n-----END CERTIFICATE REQUEST-----\n`;
    const bad = await rawEnroll(controller, secret, 'lab:tamper', tampered);
    expect(bad.code).toBe(GrpcStatus.INVALID_ARGUMENT);
    expect((await rawEnroll(controller, secret, 'lab:tamper', 'not a csr')).code).toBe(GrpcStatus.INVALID_ARGUMENT);
    expect((await rawEnroll(controller, secret, 'bad identity!', csrPem)).code).toBe(GrpcStatus.INVALID_ARGUMENT);
    // The token still works for a proper request.
    expect((await rawEnroll(controller, secret, 'lab:tamper', csrPem)).code).toBe(GrpcStatus.OK);
  });

  it("an agent holding router A's certificate cannot speak for router B: PERMISSION_DENIED, B is never registered", async () => {
    const a = await enrollTestAgent(controller, 'lab:router-a');
    const s = openStream(controller.grpcAddress, a.channelCredentials, 'lab:router-b');
    const end = await s.ended;
    expect(end.code).toBe(GrpcStatus.PERMISSION_DENIED);
    expect(end.details).toMatch(/only speak for router lab:router-a/);
    expect(end.received).toHaveLength(0);
    expect(await routerByIdentity('lab:router-b')).toBeNull();
  });

  it('TLS without a client certificate: Connect is refused with UNAUTHENTICATED and nothing is registered', async () => {
    const s = openStream(
      controller.grpcAddress,
      grpcCredentials.createSsl(Buffer.from(caPem()), null, null, CONTROLLER_VERIFY_OPTIONS),
      'lab:anonymous',
    );
    const end = await s.ended;
    expect(end.code).toBe(GrpcStatus.UNAUTHENTICATED);
    expect(end.details).toMatch(/client certificate/);
    expect(await routerByIdentity('lab:anonymous')).toBeNull();
  });

  it('plaintext gRPC is not served at all', async () => {
    const s = openStream(controller.grpcAddress, grpcCredentials.createInsecure(), 'lab:plain');
    const end = await s.ended;
    expect(end.code).toBe(GrpcStatus.UNAVAILABLE);
    expect(await routerByIdentity('lab:plain')).toBeNull();
  });

  it('a certificate from another CA (same identity, valid signature of its own) is refused', async () => {
    const otherDir = await mkdtemp(path.join(os.tmpdir(), 'wrtfleet-otherca-'));
    try {
      const other = await ControllerPki.open({
        dataDir: otherDir,
        serverNames: [],
        clientCertificateLifetimeSeconds: 3600,
      });
      const { keyPem, csrPem } = await newKeyAndCsr('lab:router-a');
      const forged = await other.issueClientCertificate(csrPem, 'lab:router-a');
      const creds = grpcCredentials.createSsl(
        Buffer.from(caPem()),
        Buffer.from(keyPem),
        Buffer.from(forged.certificatePem),
        CONTROLLER_VERIFY_OPTIONS,
      );
      const end = await openStream(controller.grpcAddress, creds, 'lab:router-a').ended;
      expect(end.code).toBe(GrpcStatus.UNAUTHENTICATED);
      // And an agent cannot be lured the other way: pinning our CA, it refuses the other controller's server.
      await expect(
        enroll({
          address: controller.grpcAddress,
          token: 'wfe_x',
          identity: 'lab:x',
          caFingerprint: other.caFingerprint,
        }),
      ).rejects.toThrow(/pinned fingerprint/);
    } finally {
      await rm(otherDir, { recursive: true, force: true });
    }
  });

  it('decommissioning closes the live stream within 1 s, revokes its certificates, and refuses reconnects and re-enrollment', async () => {
    const creds = await enrollTestAgent(controller, 'lab:to-retire');
    const s = openStream(controller.grpcAddress, creds.channelCredentials, 'lab:to-retire');
    await s.welcome;
    const router = (await routerByIdentity('lab:to-retire'))!;
    const started = Date.now();
    const res = await api(`/v1/routers/${router.id}/decommission`, { method: 'POST' });
    expect(res.status).toBe(200);
    expect(res.body.revokedCertificates).toBe(1);
    const end = await s.ended;
    expect(end.code).toBe(GrpcStatus.PERMISSION_DENIED);
    expect(end.at - started).toBeLessThan(1000);
    expect(
      (await controller.db.prisma.router.findUnique({ where: { id: router.id } }))!.decommissionedAt,
    ).not.toBeNull();

    const again = await openStream(controller.grpcAddress, creds.channelCredentials, 'lab:to-retire').ended;
    expect(again.code).toBe(GrpcStatus.PERMISSION_DENIED);
    const { secret } = await controller.security.enrollmentTokens.create({ createdBy: 'test' });
    expect(
      (await rawEnroll(controller, secret, 'lab:to-retire', (await newKeyAndCsr('lab:to-retire')).csrPem)).code,
    ).toBe(GrpcStatus.PERMISSION_DENIED);
    // Decommissioning needs admin.
    const { secret: writer } = await controller.tokens.create({
      name: 'w',
      owner: 'w',
      scopes: ['write'],
      createdBy: 't',
    });
    const denied = await fetch(`${controller.httpUrl}/v1/routers/${router.id}/decommission`, {
      method: 'POST',
      headers: { authorization: `Bearer ${writer}` },
    });
    expect(denied.status).toBe(403);
  });

  it('a revoked certificate closes its stream within 1 s (revoked through the API, or by another replica in the database) and cannot reconnect', async () => {
    const creds = await enrollTestAgent(controller, 'lab:revoke-api');
    const s = openStream(controller.grpcAddress, creds.channelCredentials, 'lab:revoke-api');
    await s.welcome;
    const serial = new X509Certificate(creds.identity.certificatePem).serialNumber;
    const started = Date.now();
    expect((await api(`/v1/certificates/${serial}/revoke`, { method: 'POST' })).status).toBe(204);
    const end = await s.ended;
    expect(end.code).toBe(GrpcStatus.PERMISSION_DENIED);
    expect(end.at - started).toBeLessThan(1000);
    expect((await openStream(controller.grpcAddress, creds.channelCredentials, 'lab:revoke-api').ended).code).toBe(
      GrpcStatus.PERMISSION_DENIED,
    );

    // Another replica revokes: only the shared database changes; this replica's watch notices.
    const other = await enrollTestAgent(controller, 'lab:revoke-db');
    const s2 = openStream(controller.grpcAddress, other.channelCredentials, 'lab:revoke-db');
    await s2.welcome;
    const router = (await routerByIdentity('lab:revoke-db'))!;
    const t0 = Date.now();
    await controller.db.prisma.agentCertificate.updateMany({
      where: { routerId: router.id },
      data: { revokedAt: new Date() },
    });
    const end2 = await s2.ended;
    expect(end2.code).toBe(GrpcStatus.PERMISSION_DENIED);
    expect(end2.at - t0).toBeLessThan(1000);
    const certs = await api(`/v1/routers/${router.id}/certificates`);
    expect(certs.body.items.map((c: { state: string }) => c.state)).toEqual(['revoked']);
  });

  it('a revocation stamped with an old time (a far-off clock, a restored row) closes its stream at the next full sweep', async () => {
    const creds = await enrollTestAgent(controller, 'lab:revoke-old');
    const s = openStream(controller.grpcAddress, creds.channelCredentials, 'lab:revoke-old');
    await s.welcome;
    const router = (await routerByIdentity('lab:revoke-old'))!;
    // No full sweep for a long while (the first tick's is over after 400 ms).
    controller.security.authority.watch(controller.gateway, 250, 100_000);
    await new Promise((r) => setTimeout(r, 400));
    await controller.db.prisma.agentCertificate.updateMany({
      where: { routerId: router.id },
      data: { revokedAt: new Date(Date.now() - 24 * 3600_000) },
    });
    // The ticks between full sweeps look at recent revocations only: this one is a day old.
    await new Promise((r) => setTimeout(r, 1_000));
    expect(controller.gateway.sessions.has(router.id)).toBe(true);
    // A full sweep (the first tick of a watch, then every 120th: 30 s) closes it.
    const t0 = Date.now();
    controller.security.authority.watch(controller.gateway);
    const end = await s.ended;
    expect(end.code).toBe(GrpcStatus.PERMISSION_DENIED);
    expect(end.at - t0).toBeLessThan(2_000);
  });

  it('a proxy holds one certificate per managed router: two routers, two certificates, each speaking only for itself', async () => {
    const [r1, r2] = await Promise.all([
      enrollTestAgent(controller, 'proxy:r1'),
      enrollTestAgent(controller, 'proxy:r2'),
    ]);
    const s1 = openStream(controller.grpcAddress, r1.channelCredentials, 'proxy:r1');
    const s2 = openStream(controller.grpcAddress, r2.channelCredentials, 'proxy:r2');
    await Promise.all([s1.welcome, s2.welcome]);
    expect((await openStream(controller.grpcAddress, r1.channelCredentials, 'proxy:r2').ended).code).toBe(
      GrpcStatus.PERMISSION_DENIED,
    );
    s1.close();
    s2.close();
  });
});

describe('certificate renewal over the authenticated stream (embedded PGlite)', () => {
  let db: TestDatabase;
  let controller: Controller;

  beforeAll(async () => {
    db = await createPgliteDatabase();
    // Three-second certificates: renewal is due after two.
    ({ controller } = await startTestController(db, {
      security: { insecureAgents: false, clientCertificateLifetimeSeconds: 3 },
    }));
  });
  afterAll(async () => {
    await controller?.close();
    await db?.drop();
  });

  it('the agent renews before expiry, keeps its stream, and reconnects with the new certificate once the old one expires', async () => {
    const creds = await enrollTestAgent(controller, 'lab:renewing');
    const firstSerial = new X509Certificate(creds.identity.certificatePem).serialNumber;
    const link = new ControllerLink({
      address: controller.grpcAddress,
      credentials: creds.linkCredentials,
      hello: async () => helloFor('lab:renewing').body!.value as never,
      reconnect: { initialDelayMs: 50, maxDelayMs: 200, jitterWindowMs: 100 },
    });
    const stop = keepRenewed(link, creds, { checkEveryMs: 100 });
    // One TLS context per certificate, shared by every connection attempt made with it.
    const before = creds.channelCredentials;
    expect(creds.channelCredentials).toBe(before);
    link.start();
    try {
      await eventually(async () => link.state === 'connected', 10_000, 'connected');
      await eventually(
        async () => new X509Certificate(creds.identity.certificatePem).serialNumber !== firstSerial,
        10_000,
        'a renewed certificate',
      );
      expect(creds.channelCredentials).not.toBe(before);
      const router = (await controller.db.prisma.router.findUnique({ where: { identity: 'lab:renewing' } }))!;
      const audit = await controller.db.prisma.auditEvent.findMany({
        where: { targetId: router.id, action: 'router.certificate_renewed' },
      });
      expect(audit.length).toBeGreaterThanOrEqual(1);
      // The first certificate expires (3 s): the controller closes that stream and the agent
      // comes back authenticated by a renewed certificate.
      await eventually(
        async () => {
          const session = controller.gateway.sessions.get(router.id);
          // Serials are compared without case or leading zeros: the two sides print them differently.
          const norm = (serial: string) => serial.toLowerCase().replace(/^0+/, '');
          return link.sessions >= 2 &&
            session?.certificateSerial &&
            norm(session.certificateSerial) !== norm(firstSerial)
            ? session
            : undefined;
        },
        15_000,
        'a session authenticated by a renewed certificate',
      );
      expect(link.sessions).toBeGreaterThanOrEqual(2);
    } finally {
      stop();
      await link.stop();
    }
  });

  it('an expired certificate is refused on connect', async () => {
    const creds = await enrollTestAgent(controller, 'lab:expiring');
    await new Promise((r) => setTimeout(r, 3_500));
    const end = await openStream(controller.grpcAddress, creds.channelCredentials, 'lab:expiring').ended;
    expect(end.code).toBe(GrpcStatus.UNAUTHENTICATED);
  });
});
