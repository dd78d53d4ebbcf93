/**
 * A controller-hosted proxy agent reaches its router by the host the operator gave, often a
 * name. The onboarding target check (WRTFLEET_ONBOARDING_ALLOW) runs again before every SSH
 * connection the agent makes, so a name that points elsewhere by the time the agent reconnects
 * (after a dropped connection, after a controller restart) is refused with a logged reason and
 * nothing is sent there. Two namespace "routers" running OpenSSH's sshd
 * (test/support/ssh-router.ts): the allowed one, and another outside the allowed range that
 * the name is re-pointed to. Names resolve through the controller's resolver hook, so the
 * machine's resolver configuration is never touched.
 */
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startController, type Controller } from '../../../server/controller.js';
import type { OnboardingOptions } from '../../../server/onboarding/onboarding-service.js';
import { LOG_REDACTION } from '../../../server/secrets/redaction.js';
import { authedFetch, eventually, operatorApi, testConfig } from '../../support/controller.js';
import { createPostgresDatabase, type TestDatabase } from '../../support/databases.js';
import { jobFinished, startOnboarding } from '../../support/onboarding-jobs.js';
import { SshRouter } from '../../support/ssh-router.js';

const NAME = 'lab-router.test';
const IDENTITY = 'proxy-reconnect:01';
const REFUSED = 'proxy agent refused to connect to its router: not an allowed onboarding target now';

describe('a proxy agent checks its router host against the onboarding targets on every SSH connection', () => {
  let db: TestDatabase;
  let controller: Controller;
  let api: ReturnType<typeof authedFetch>;
  let router: SshRouter;
  let elsewhere: SshRouter;
  const names: Record<string, string[]> = {};
  let logs: string[] = [];

  const start = async () => {
    logs = [];
    const logger = pino({ level: 'debug', redact: LOG_REDACTION }, { write: (line: string) => void logs.push(line) });
    const onboarding: OnboardingOptions = {
      helloTimeoutMs: 30_000,
      sshConnectTimeoutMs: 4_000,
      resolveHost: async (host) => names[host] ?? [],
      // Telemetry over SSH every 300 ms: a dropped connection is redialled at once.
      proxyAgent: { telemetryIntervalMs: 300 },
    };
    controller = await startController(
      testConfig(db, { security: { insecureAgents: false }, onboardingAllow: [`${router.addr.router}/32`] }),
      logger,
      { onboarding },
    );
  };
  const refusals = () =>
    logs
      .map((l) => JSON.parse(l) as { msg: string; router?: string; host?: string; reason?: string })
      .filter((l) => l.msg === REFUSED);

  beforeAll(async () => {
    router = new SshRouter();
    elsewhere = new SshRouter();
    await router.start();
    await elsewhere.start();
    names[NAME] = [router.addr.router];
    db = await createPostgresDatabase();
    await start();
    api = await operatorApi(controller);
  }, 90_000);

  afterAll(async () => {
    await controller?.close();
    for (const r of [router, elsewhere]) await r?.stop().catch(() => undefined);
    await db?.drop();
  });

  it('onboards the router by its name (the name resolves into the allowed range)', async () => {
    const jobId = await startOnboarding(api, {
      host: NAME,
      user: 'root',
      password: router.password,
      placement: 'proxy',
      identity: IDENTITY,
    });
    const job = await jobFinished(api, jobId);
    expect(job.state, job.message).toBe('succeeded');
    const row = await controller.db.prisma.router.findUniqueOrThrow({ where: { identity: IDENTITY } });
    expect(await controller.security.credentials.describe(row.id)).toMatchObject({ host: NAME });
    // The name outside the range is refused up front, as before.
    names['elsewhere.test'] = [elsewhere.addr.router];
    const refused = await api('/v1/onboarding', {
      method: 'POST',
      body: { host: 'elsewhere.test', password: 'x', placement: 'proxy' },
    });
    expect(refused.status).toBe(400);
  }, 90_000);

  it('a dropped connection is not redialled once the name points outside the range; it is once it points back', async () => {
    const seenBefore = router.connectionsAccepted();
    names[NAME] = [elsewhere.addr.router];
    // Every process in the router namespace goes, the proxy's SSH session with them; sshd comes
    // back at once, so what keeps the agent away from its router is the check, nothing else.
    await router.killSessions();
    await router.startSshd();
    const [refusal] = await eventually(async () => refusals().length > 0 && refusals(), 20_000, 'the logged refusal');
    expect(refusal).toMatchObject({ router: IDENTITY, host: NAME });
    expect(refusal!.reason).toContain(`host "${NAME}" (${elsewhere.addr.router}) is outside the onboarding targets`);
    // Retried with backoff, logged once, and nothing reached the other host.
    await new Promise((r) => setTimeout(r, 1_500));
    expect(refusals()).toHaveLength(1);
    expect(elsewhere.connectionsAccepted()).toBe(0);
    expect(router.connectionsAccepted()).toBe(seenBefore);

    names[NAME] = [router.addr.router];
    await eventually(async () => router.connectionsAccepted() > seenBefore, 30_000, 'the agent reconnected');
    expect(logs.some((l) => l.includes('proxy agent: its router is an allowed target again'))).toBe(true);
    expect(elsewhere.connectionsAccepted()).toBe(0);
  }, 60_000);

  it('a controller restart resumes the agent, which refuses the name pointing outside the range', async () => {
    names[NAME] = [elsewhere.addr.router];
    await controller.close();
    await start();
    expect(controller.onboarding.proxies.has(IDENTITY)).toBe(true);
    const [refusal] = await eventually(
      async () => refusals().length > 0 && refusals(),
      20_000,
      'the logged refusal after the restart',
    );
    expect(refusal).toMatchObject({ router: IDENTITY, host: NAME });
    expect(elsewhere.connectionsAccepted()).toBe(0);
  }, 60_000);
});
