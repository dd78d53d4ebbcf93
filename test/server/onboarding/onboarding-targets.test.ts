import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFromEnv, ConfigError } from '../../../server/config.js';
import type { Controller } from '../../../server/controller.js';
import { OnboardingTargetPolicy, TargetRefused } from '../../../server/onboarding/target-policy.js';
import { authedFetch, eventually, startTestController } from '../../support/controller.js';
import { createPgliteDatabase, type TestDatabase } from '../../support/databases.js';

describe('onboarding target policy', () => {
  const defaults = new OnboardingTargetPolicy();

  it('by default allows private ranges, CGNAT and loopback, and nothing else', () => {
    for (const a of ['10.1.2.3', '172.16.0.1', '172.31.255.254', '192.168.1.1', '100.64.0.1', '127.0.0.1', '::1'])
      expect(defaults.permits(a), a).toBe(true);
    for (const a of ['fd12:3456::1', 'fc00::1']) expect(defaults.permits(a), a).toBe(true);
    for (const a of ['8.8.8.8', '172.32.0.1', '100.128.0.1', '2001:db8::1', '169.254.169.254', 'fe80::1'])
      expect(defaults.permits(a), a).toBe(false);
    // The metadata address in IPv6 clothing is the same address.
    expect(defaults.permits('::ffff:169.254.169.254')).toBe(false);
    expect(defaults.permits('::ffff:192.168.1.1')).toBe(true);
  });

  it('refuses link-local even under a catch-all, unless a link-local range is named', () => {
    const open = new OnboardingTargetPolicy(['0.0.0.0/0', '::/0']);
    expect(open.permits('8.8.8.8')).toBe(true);
    expect(open.permits('169.254.169.254')).toBe(false);
    expect(open.permits('fe80::1')).toBe(false);
    const lab = new OnboardingTargetPolicy(['169.254.0.0/16', 'fe80::/10']);
    expect(lab.permits('169.254.169.254')).toBe(true);
    expect(lab.permits('fe80::1')).toBe(true);
    expect(lab.permits('10.0.0.1')).toBe(false);
  });

  it('resolves a hostname and checks every address it has', async () => {
    const names: Record<string, string[]> = {
      'router.lan': ['192.168.1.1', 'fd00::1'],
      'mixed.example': ['192.168.1.1', '169.254.169.254'],
    };
    const policy = new OnboardingTargetPolicy(undefined, async (h) => names[h] ?? []);
    expect(await policy.addresses('router.lan')).toEqual(['192.168.1.1', 'fd00::1']);
    await expect(policy.addresses('mixed.example')).rejects.toThrow(/169\.254\.169\.254.*outside/);
    await expect(policy.addresses('nowhere.example')).rejects.toBeInstanceOf(TargetRefused);
    // The system resolver: localhost is loopback.
    expect((await defaults.addresses('localhost')).every((a) => defaults.permits(a))).toBe(true);
  });

  it('reads WRTFLEET_ONBOARDING_ALLOW and refuses a malformed entry at start', () => {
    expect(configFromEnv({ WRTFLEET_ONBOARDING_ALLOW: '10.0.0.0/8, 2001:db8::/32' }).onboardingAllow).toEqual([
      '10.0.0.0/8',
      '2001:db8::/32',
    ]);
    expect(configFromEnv({}).onboardingAllow).toBeUndefined();
    for (const bad of ['10.0.0.0/33', 'router.lan', '10.0.0.0/8/1', '::/129'])
      expect(() => configFromEnv({ WRTFLEET_ONBOARDING_ALLOW: bad }), bad).toThrow(ConfigError);
  });
});

describe('POST /v1/onboarding refuses targets outside the allowed ranges before any connection', () => {
  let db: TestDatabase;
  let controller: Controller;
  let api: ReturnType<typeof authedFetch>;
  let listener: Server;
  let listenerPort = 0;
  let connections = 0;

  beforeAll(async () => {
    db = await createPgliteDatabase();
    // Loopback is left out on purpose: the listener below stands for a host outside the ranges.
    ({ controller, fetch: api } = await startTestController(db, { onboardingAllow: ['10.0.0.0/8'] }));
    listener = createServer((socket) => {
      connections += 1;
      socket.destroy();
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    listenerPort = (listener.address() as { port: number }).port;
  });

  afterAll(async () => {
    listener?.close();
    await controller?.close();
    await db?.drop();
  });

  it('answers 400 naming host, the same for an open and a closed port, and creates no job', async () => {
    const answers = [];
    for (const [host, port] of [
      ['169.254.169.254', 80],
      ['127.0.0.1', listenerPort],
      ['127.0.0.1', 1],
      ['localhost', listenerPort],
    ] as const) {
      const r = await api('/v1/onboarding', { method: 'POST', body: { host, port, password: 'x' } });
      expect(r.status, `${host}:${port}`).toBe(400);
      expect(r.body.details).toEqual([expect.objectContaining({ path: '/host', in: 'body' })]);
      expect(r.body.message).toMatch(/outside the onboarding targets/);
      answers.push(r.body.message.replace(String(listenerPort), ''));
    }
    // Open (the listener) or closed (port 1): the same answer.
    expect(answers[1]).toBe(answers[2]);
    expect(connections).toBe(0);
    expect(await controller.db.prisma.job.count()).toBe(0);
  });

  it('a job that reaches the runner with a refused host fails before connecting', async () => {
    const { id } = await controller.onboarding.create(
      {
        host: '127.0.0.1',
        port: listenerPort,
        user: 'root',
        authType: 'password',
        tags: [],
        placement: 'proxy',
        install: false,
      },
      { password: 'x' },
      'test',
    );
    const job = await eventually(
      async () => {
        const j = await controller.db.prisma.job.findUniqueOrThrow({ where: { id } });
        return j.state === 'failed' ? j : undefined;
      },
      15_000,
      'the job to fail',
    );
    expect(job.error).toMatch(/outside the onboarding targets/);
    expect(connections).toBe(0);
  });
});
