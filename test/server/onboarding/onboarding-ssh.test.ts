/**
 * Onboarding over real SSH: namespace "routers" running Debian's OpenSSH sshd stand in for
 * routers (test/support/ssh-router.ts). A real controller (PostgreSQL, mutual TLS for
 * agents) runs the job; the proxy placement runs the agent's own RouterAgent over SshHost,
 * enrolled through the real enrollment path, until the router says Hello and applies its
 * first plan. Failures are provoked for real: a wrong password, another host key, a port
 * nobody listens on, a router whose namespace disappears mid-job.
 */
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startController, type Controller } from '../../../server/controller.js';
import { LOG_REDACTION } from '../../../server/secrets/redaction.js';
import { authedFetch, operatorApi, eventually, testConfig } from '../../support/controller.js';
import { createPostgresDatabase, type TestDatabase } from '../../support/databases.js';
import { SshRouter } from '../../support/ssh-router.js';
import { jobFinished, startOnboarding } from '../../support/onboarding-jobs.js';

let db: TestDatabase;
let controller: Controller;
let api: ReturnType<typeof authedFetch>;
const logs: string[] = [];
const routers: SshRouter[] = [];

async function newRouter(): Promise<SshRouter> {
  const r = new SshRouter();
  routers.push(r);
  await r.start();
  return r;
}

const onboard = (body: Record<string, unknown>) => startOnboarding(api, body);
const finished = (jobId: string, timeoutMs?: number) => jobFinished(api, jobId, timeoutMs);

beforeAll(async () => {
  db = await createPostgresDatabase();
  const logger = pino({ level: 'debug', redact: LOG_REDACTION }, { write: (line: string) => void logs.push(line) });
  controller = await startController(testConfig(db, { security: { insecureAgents: false } }), logger, {
    onboarding: { helloTimeoutMs: 30_000, planTimeoutMs: 60_000, sshConnectTimeoutMs: 4_000 },
  });
  api = await operatorApi(controller);
}, 60_000);

afterAll(async () => {
  await controller?.close();
  for (const r of routers) await r.stop().catch(() => undefined);
  await db?.drop();
});

describe('onboarding over SSH, proxy placement (controller-hosted proxy, mutual TLS)', () => {
  let router: SshRouter;
  let jobId: string;

  beforeAll(async () => {
    router = await newRouter();
  }, 60_000);

  it('connects with a password, pins the host key on first use, enrolls, reaches Hello; SSE streams the steps; secrets stay out', async () => {
    jobId = await onboard({
      host: router.addr.router,
      user: 'root',
      password: router.password,
      placement: 'proxy',
      tags: ['site:lab', 'group:canary'],
      identity: 'onb-proxy:01',
    });
    const job = await finished(jobId);
    expect(job.message).toMatch(/^onboarded onb-proxy:01 .* placement proxy$/);
    expect(job.state).toBe('succeeded');
    expect(job.result.hostKeyFingerprint).toBe(router.hostKeyFingerprint);
    expect(job.result.hostKeyPinnedBy).toBe('first use');
    expect(job.result.placement).toBe('proxy');
    expect(job.input).not.toHaveProperty('password');
    expect(JSON.stringify(job)).not.toContain(router.password);

    const r = await controller.db.prisma.router.findUnique({ where: { identity: 'onb-proxy:01' } });
    expect(r?.status).toBe('online');
    expect(r?.placement).toBe('proxy');
    expect(r?.tags).toEqual(expect.arrayContaining(['site:lab', 'group:canary']));
    // Enrolled for real: a certificate on record for this router.
    expect(await controller.db.prisma.agentCertificate.count({ where: { routerId: r!.id, revokedAt: null } })).toBe(1);
    // The credential is stored sealed, pinned to the key the job saw, assigned to this controller's proxy.
    const cred = await controller.db.prisma.routerCredential.findUnique({ where: { routerId: r!.id } });
    expect(cred?.hostKeyFingerprint).toBe(router.hostKeyFingerprint);
    expect(cred?.proxyIdentity).toBe(controller.onboarding.proxies.proxyIdentity);
    expect(cred?.secretCiphertext).not.toContain(router.password);
    // Each step audited, actor = the token's owner.
    const events = await controller.db.prisma.auditEvent.findMany({
      where: { targetId: jobId },
      orderBy: { seq: 'asc' },
    });
    expect(events.map((e) => e.action)).toEqual([
      'onboarding.requested',
      'onboarding.connected',
      'onboarding.facts_collected',
      'onboarding.packages_checked',
      'onboarding.agent_placed',
      'onboarding.hello_received',
      'onboarding.succeeded',
    ]);
    expect(new Set(events.map((e) => e.actor))).toEqual(new Set(['token:alice']));
    expect(JSON.stringify(events, (_k, v) => (typeof v === 'bigint' ? String(v) : v))).not.toContain(router.password);
    expect(logs.join('\n')).not.toContain(router.password);
  }, 90_000);

  it('streams progress over server-sent events until the job ends', async () => {
    const id = await onboard({
      host: router.addr.router,
      user: 'root',
      password: router.password,
      placement: 'proxy',
      identity: 'onb-proxy:01',
    });
    const token = (await controller.tokens.create({ name: 'sse', owner: 'alice', scopes: ['read'], createdBy: 'test' }))
      .secret;
    const res = await fetch(`${controller.httpUrl}/v1/jobs/${id}/events`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
    const text = await res.text();
    const progress = [...text.matchAll(/^event: progress\ndata: (.+)$/gm)].map((m) => JSON.parse(m[1]!));
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.at(-1)!.state).toBe('succeeded');
    const end = JSON.parse(/^event: end\ndata: (.+)$/m.exec(text)![1]!);
    expect(end.state).toBe('succeeded');
    // Re-running on the onboarded, online router is a no-op that says so.
    expect(end.message).toMatch(/already onboarded: router onb-proxy:01 .* is online, placement proxy; nothing to do/);
    expect(end.result.alreadyOnboarded).toBe(true);
    expect(controller.onboarding.proxies.size).toBe(1);
  }, 60_000);

  it('a controller restart resumes the proxy agent from the stored credential', async () => {
    const config = controller.config;
    await controller.close();
    controller = await startController(config, pino({ level: 'silent' }), {
      onboarding: { helloTimeoutMs: 30_000, sshConnectTimeoutMs: 4_000 },
    });
    const { secret } = await controller.tokens.create({
      name: 'operator2',
      owner: 'alice',
      scopes: ['write'],
      createdBy: 'test',
    });
    api = authedFetch(controller.httpUrl, secret);
    expect(controller.onboarding.proxies.has('onb-proxy:01')).toBe(true);
    await eventually(
      async () =>
        (await controller.db.prisma.router.findUnique({ where: { identity: 'onb-proxy:01' } }))?.status === 'online' &&
        controller.gateway.sessions.size > 0,
      30_000,
      'resumed proxy agent online',
    );
  }, 60_000);
});

describe('onboarding with a desired revision: waits for the first applied plan', () => {
  it('the router applies its plan over SSH before the job succeeds', async () => {
    const router = await newRouter();
    const saved = await controller.profiles.save('onb-plan', { l3Rewrite: { ttl: { value: 77 } } }, undefined, {
      actor: 'token:alice',
      requestId: null,
    } as never);
    const revision = await controller.db.prisma.profileRevision.findFirstOrThrow({
      where: { profile: { name: 'onb-plan' }, number: saved.revision },
    });
    // Known to the controller before it is onboarded (e.g. re-flashed), with a revision waiting for it.
    await controller.db.prisma.router.create({
      data: { identity: 'onb-plan:01', name: 'onb-plan-01', desiredRevisionId: revision.id },
    });
    const jobId = await onboard({
      host: router.addr.router,
      user: 'root',
      privateKey: router.clientKey.toString('utf8'),
      hostKeyFingerprint: router.hostKeyFingerprint,
      placement: 'proxy',
      identity: 'onb-plan:01',
      name: 'onb-plan-01',
    });
    const job = await finished(jobId, 90_000);
    expect(job.error).toBeNull();
    expect(job.state).toBe('succeeded');
    expect(job.result.hostKeyPinnedBy).toBe('operator');
    expect(job.result.plan).toMatchObject({ revisionId: revision.id, status: 'applied' });
    const r = await controller.db.prisma.router.findUnique({ where: { identity: 'onb-plan:01' } });
    expect(r?.appliedRevisionId).toBe(revision.id);
    // Checked on the router itself (its own bpffs), not through the agent: programs pinned for its WAN only.
    const pins = await router.inside.run(['ls', '/sys/fs/bpf/wrtfleet']);
    expect(pins.stdout.split('\n').filter(Boolean)).toEqual(['wan0']);
  }, 120_000);
});

describe('onboarding failures are clear and leave nothing behind', () => {
  it('wrong password: failed, says authentication failed, no secret in the job', async () => {
    const router = routers[0]!;
    const jobId = await onboard({
      host: router.addr.router,
      user: 'root',
      password: 'not-the-password-xyz',
      placement: 'proxy',
    });
    const job = await finished(jobId);
    expect(job.state).toBe('failed');
    expect(job.error).toMatch(/authentication failed for user root \(password rejected by the router\)/);
    expect(JSON.stringify(job)).not.toContain('not-the-password-xyz');
    expect(logs.join('\n')).not.toContain('not-the-password-xyz');
  }, 30_000);

  it('host-key mismatch: refused before any credential is sent', async () => {
    const router = routers[0]!;
    const other = 'SHA256:' + 'A'.repeat(43);
    const jobId = await onboard({
      host: router.addr.router,
      user: 'root',
      password: router.password,
      hostKeyFingerprint: other,
      placement: 'proxy',
    });
    const job = await finished(jobId);
    expect(job.state).toBe('failed');
    expect(job.error).toMatch(/HOST KEY MISMATCH: the router presented .* but SHA256:A{43} is pinned/);
    expect(job.error).toContain(router.hostKeyFingerprint);
  }, 30_000);

  it('connection refused: no SSH server on the port', async () => {
    const router = routers[0]!;
    const jobId = await onboard({
      host: router.addr.router,
      port: 2222,
      user: 'root',
      password: 'x',
      placement: 'proxy',
    });
    const job = await finished(jobId);
    expect(job.state).toBe('failed');
    expect(job.error).toMatch(/connection refused \(no SSH server listening on port 2222\)/);
  }, 30_000);

  it('a router that vanishes mid-job (namespace deleted during the package step): failed, naming the step', async () => {
    const router = await newRouter();
    controller.onboarding.options.beforeStep = async (_id, step) => {
      if (step === 'packages') await router.stop();
    };
    try {
      const jobId = await onboard({
        host: router.addr.router,
        user: 'root',
        password: router.password,
        placement: 'proxy',
        identity: 'onb-vanish:01',
      });
      const job = await finished(jobId);
      expect(job.state).toBe('failed');
      expect(job.error).toMatch(/lost the router during (packages|placement)/);
      expect(controller.onboarding.proxies.has('onb-vanish:01')).toBe(false);
    } finally {
      controller.onboarding.options.beforeStep = undefined;
    }
  }, 60_000);

  it('cancel while waiting for Hello: cancelled, the proxy agent stopped, its credential and key removed', async () => {
    const router = await newRouter();
    let id = '';
    controller.onboarding.options.beforeStep = async (jobId, step) => {
      if (step === 'hello') {
        const res = await api(`/v1/jobs/${jobId}/cancel`, { method: 'POST' });
        expect(res.status).toBe(202);
        id = jobId;
      }
    };
    try {
      const jobId = await onboard({
        host: router.addr.router,
        user: 'root',
        password: router.password,
        placement: 'proxy',
        identity: 'onb-cancel:01',
      });
      const job = await finished(jobId);
      expect(id).toBe(jobId);
      expect(job.state).toBe('cancelled');
      expect(job.message).toBe('cancelled during hello');
      expect(job.result.rolledBack).toEqual([
        'proxy agent for onb-cancel:01 stopped, its key and SSH credential removed',
      ]);
      expect(controller.onboarding.proxies.has('onb-cancel:01')).toBe(false);
      const row = await controller.db.prisma.router.findUnique({
        where: { identity: 'onb-cancel:01' },
        include: { credential: true },
      });
      expect(row?.credential ?? null).toBeNull();
      // A finished job cannot be cancelled again.
      expect((await api(`/v1/jobs/${jobId}/cancel`, { method: 'POST' })).status).toBe(409);
    } finally {
      controller.onboarding.options.beforeStep = undefined;
    }
  }, 60_000);

  it('validation: exactly one of password / privateKey; read-only tokens cannot onboard', async () => {
    expect((await api('/v1/onboarding', { method: 'POST', body: { host: '10.0.0.1' } })).status).toBe(400);
    expect(
      (await api('/v1/onboarding', { method: 'POST', body: { host: '10.0.0.1', password: 'a', privateKey: 'b' } }))
        .status,
    ).toBe(400);
    const ro = (await controller.tokens.create({ name: 'ro', owner: 'bob', scopes: ['read'], createdBy: 'test' }))
      .secret;
    expect(
      (
        await authedFetch(controller.httpUrl, ro)('/v1/onboarding', {
          method: 'POST',
          body: { host: '10.0.0.1', password: 'a' },
        })
      ).status,
    ).toBe(403);
  });
});
