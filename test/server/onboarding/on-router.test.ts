/**
 * The on-router placement for real: a namespace "router" running Debian's sshd (test/support/
 * ssh-router.ts) that can run `node` (the host's binary is visible inside the namespace). The
 * onboarding job uploads the agent bundle (dist/agent, `npm run agent:bundle`), the UCI config
 * and a one-time enrollment token over SSH, starts the agent detached (no procd here: the
 * service's fallback), and the agent enrolls with the token and the pinned CA fingerprint,
 * then says Hello over mutual TLS. A cancel while waiting for that Hello stops the agent and
 * removes everything the job put on the router.
 *
 * The router dials the controller's gRPC endpoint, so the controller binds it on the host end
 * of the router's management veth (10.200.N.1, created by SshRouter): no traffic leaves the
 * namespaces and loopback. Files go under a scratch prefix (onRouterPrefix) because an SSH
 * session in the namespace shares this machine's filesystem (only /sys, /etc/shadow and
 * /etc/passwd are its own).
 */
import { execFileSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleAgent } from '../../../agent/packaging/build.js';
import { startController, type Controller } from '../../../server/controller.js';
import { LOG_REDACTION } from '../../../server/secrets/redaction.js';
import { agentRuntimeSettings } from '../../../server/onboarding/on-router-install.js';
import { authedFetch, operatorApi, eventually, testConfig } from '../../support/controller.js';
import { createPostgresDatabase, type TestDatabase } from '../../support/databases.js';
import { SshRouter } from '../../support/ssh-router.js';
import { jobFinished, startOnboarding } from '../../support/onboarding-jobs.js';
import { AGENT_ENTRY_FILE } from '../../../agent/packaging/layout.js';

const DIST = join(process.cwd(), 'dist/agent');
let db: TestDatabase;
let controller: Controller;
let api: ReturnType<typeof authedFetch>;
const logs: string[] = [];
const routers: SshRouter[] = [];
const scratch = mkdtempSync(join(tmpdir(), 'wf-onrouter-'));
const bundleDir = join(scratch, 'bundle');

function newestMtime(dir: string): number {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) newest = Math.max(newest, newestMtime(p));
    // Sources and the packaging files (init script, UCI config) that ship in the bundle.
    else if (/\.(ts|init|config|service)$/.test(e.name)) newest = Math.max(newest, statSync(p).mtimeMs);
  }
  return newest;
}

/** dist/agent, rebuilt when older than the agent sources, then copied: another test file may rebuild dist/agent meanwhile. */
async function agentBundle(): Promise<void> {
  const bundle = join(DIST, AGENT_ENTRY_FILE);
  if (!existsSync(bundle) || statSync(bundle).mtimeMs < newestMtime(join(process.cwd(), 'agent'))) await bundleAgent();
  for (let i = 0; ; i++) {
    try {
      cpSync(DIST, bundleDir, { recursive: true });
      if (statSync(join(bundleDir, AGENT_ENTRY_FILE)).size > 100_000) return;
    } catch (err) {
      if (i >= 20) throw err;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}

const onboard = (body: Record<string, unknown>) => startOnboarding(api, body);
const finished = (jobId: string, timeoutMs?: number) => jobFinished(api, jobId, timeoutMs);

/** Everything the job may put on a router, under the prefix it was told to use. */
function prefixOf(r: SshRouter): string {
  return join(scratch, `router-${r.id}`);
}

beforeAll(async () => {
  await agentBundle();
  // Two routers, started before the controller: its gRPC endpoint binds on the host end of the
  // first one's management veth. The second router only has a /30 to the host (and its WAN), so
  // it gets a host route to that address through its own management link.
  for (let i = 0; i < 2; i++) {
    const r = new SshRouter();
    routers.push(r);
    await r.start();
  }
  db = await createPostgresDatabase();
  const logger = pino({ level: 'debug', redact: LOG_REDACTION }, { write: (line: string) => void logs.push(line) });
  controller = await startController(
    testConfig(db, { grpcHost: routers[0]!.addr.host, security: { insecureAgents: false } }),
    logger,
    {
      onboarding: { bundleDir, helloTimeoutMs: 40_000, sshConnectTimeoutMs: 4_000 },
    },
  );
  for (const r of routers.slice(1))
    await r.inside.run(['ip', 'route', 'add', `${routers[0]!.addr.host}/32`, 'via', r.addr.host, 'dev', 'mgmt0']);
  api = await operatorApi(controller);
}, 120_000);

afterAll(async () => {
  await controller?.close();
  for (const r of routers) await r.stop().catch(() => undefined);
  await db?.drop();
  rmSync(scratch, { recursive: true, force: true });
});

describe('onboarding, on-router placement (agent bundle uploaded over SSH, started detached, mutual TLS)', () => {
  it('uploads the bundle, config and a one-time token; the agent enrolls and says Hello over mTLS; the token is gone afterwards', async () => {
    const router = routers[0]!;
    const p = prefixOf(router);
    controller.onboarding.options.onRouterPrefix = p;
    const jobId = await onboard({
      host: router.addr.router,
      user: 'root',
      password: router.password,
      placement: 'on_router',
      identity: 'onb-onrouter:01',
      tags: ['site:lab'],
    });
    const job = await finished(jobId);
    const agentLog = (await router.inside.readFile(`${p}/tmp/wrtfleet-agent.log`)) ?? '';
    expect(job.error, agentLog).toBeNull();
    expect(job.state).toBe('succeeded');
    expect(job.message).toMatch(/^onboarded onb-onrouter:01 .* placement on_router$/);
    expect(job.result.placement).toBe('on_router');

    const row = await controller.db.prisma.router.findUnique({ where: { identity: 'onb-onrouter:01' } });
    expect(row?.status).toBe('online');
    expect(row?.placement).toBe('on_router');
    expect(row?.tags).toContain('site:lab');
    // Enrolled for real with the token the job uploaded: one live certificate, the token used.
    expect(await controller.db.prisma.agentCertificate.count({ where: { routerId: row!.id, revokedAt: null } })).toBe(
      1,
    );
    const tokens = await controller.db.prisma.enrollmentToken.findMany({ where: { routerName: 'onb-onrouter:01' } });
    expect(tokens).toHaveLength(1);
    expect(tokens[0]!.usedAt).not.toBeNull();
    expect(agentLog).toMatch(/enrolled as onb-onrouter:01/);
    expect(agentLog).toMatch(/connected as router/);

    // On the router, seen independently of SSH: the agent runs from the uploaded bundle, in the router's namespace.
    const pid = ((await router.inside.readFile(`${p}/var/run/wrtfleet-agent.pid`)) ?? '').trim();
    expect(pid).toMatch(/^\d+$/);
    const cmdline = (await router.inside.readFile(`/proc/${pid}/cmdline`))!.split('\0');
    expect(cmdline).toEqual(
      expect.arrayContaining([
        `${p}/usr/lib/wrtfleet/${AGENT_ENTRY_FILE}`,
        'run',
        '--placement',
        'on_router',
        '--credentials-dir',
        `${p}/etc/wrtfleet/credentials`,
      ]),
    );
    // Without procd it still runs as the init script would run it: the same node flags and environment.
    const shipped = agentRuntimeSettings(
      readFileSync(join(import.meta.dirname, '../../../agent/packaging/openwrt/wrtfleet-agent.init'), 'utf8'),
    );
    expect(shipped.nodeFlags).toContain('--jitless');
    expect(cmdline.slice(1, cmdline.indexOf(`${p}/usr/lib/wrtfleet/${AGENT_ENTRY_FILE}`))).toEqual(shipped.nodeFlags);
    const environ = (await router.inside.readFile(`/proc/${pid}/environ`))!.split('\0');
    expect(environ).toEqual(expect.arrayContaining([...shipped.env, `WRTFLEET_HOME=${p}/usr/lib/wrtfleet`]));
    expect(readlinkSync(`/proc/${pid}/ns/net`)).toBe(readlinkSync(`/proc/${router.sshdPid()}/ns/net`));
    expect(readlinkSync(`/proc/${pid}/ns/net`)).not.toBe(readlinkSync('/proc/self/ns/net'));
    const config = (await router.inside.readFile(`${p}/etc/config/wrtfleet`))!;
    expect(config).toContain(`option controller '${controller.grpcAddress}'`);
    expect(config).toContain("option identity 'onb-onrouter:01'");
    // The key stays on the router (0600); the spent token was removed once the Hello arrived.
    const key = await router.inside.run(['sh', '-c', `stat -c %a ${p}/etc/wrtfleet/credentials/* | sort -u`]);
    expect(key.stdout).toMatch(/600/);
    expect(await router.inside.readFile(`${p}/etc/wrtfleet/enrollment-token`)).toBeNull();
    expect(JSON.stringify(job)).not.toContain(router.password);
    expect(logs.join('\n')).not.toContain(router.password);

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
  }, 90_000);

  it('cancel while waiting for Hello: the started agent is stopped and everything the job uploaded is removed', async () => {
    const router = routers[1]!;
    const p = prefixOf(router);
    controller.onboarding.options.onRouterPrefix = p;
    let pid = '';
    controller.onboarding.options.beforeStep = async (jobId, step) => {
      if (step !== 'hello') return;
      // Let the agent really come up (enrolled, stream open) before cancelling: the rollback must stop a live agent.
      await eventually(
        async () =>
          (await controller.db.prisma.router.findUnique({ where: { identity: 'onb-onrouter:02' } }))?.status ===
          'online',
        30_000,
        'the on-router agent online',
      );
      pid = ((await router.inside.readFile(`${p}/var/run/wrtfleet-agent.pid`)) ?? '').trim();
      expect((await api(`/v1/jobs/${jobId}/cancel`, { method: 'POST' })).status).toBe(202);
    };
    try {
      const jobId = await onboard({
        host: router.addr.router,
        user: 'root',
        privateKey: router.clientKey.toString('utf8'),
        hostKeyFingerprint: router.hostKeyFingerprint,
        placement: 'on_router',
        identity: 'onb-onrouter:02',
      });
      const job = await finished(jobId);
      expect(job.state).toBe('cancelled');
      expect(job.message).toBe('cancelled during hello');
      expect(job.result.rolledBack).toEqual([expect.stringMatching(/^agent service stopped and its files removed/)]);
      expect(pid).toMatch(/^\d+$/);
      // The process is gone (checked in the router's namespace, not through SSH) and so are the files.
      expect((await router.inside.run(['kill', '-0', pid])).code).not.toBe(0);
      const left = await router.inside.run(['find', p, '-type', 'f']);
      expect(left.stdout.trim()).toBe('');
      // The controller sees the stream end.
      await eventually(
        async () =>
          (await controller.db.prisma.router.findUnique({ where: { identity: 'onb-onrouter:02' } }))?.status ===
          'offline',
        20_000,
        'router offline after rollback',
      );
    } finally {
      controller.onboarding.options.beforeStep = undefined;
    }
  }, 90_000);
});

describe('procd init script as shipped in the bundle', () => {
  it('passes the trust options from UCI (mTLS credentials, first-start token and CA pin, or --insecure) and parses', () => {
    const script = readFileSync(join(bundleDir, 'openwrt/wrtfleet-agent.init'), 'utf8');
    expect(script).toContain('procd_append_param command --credentials-dir "$credentials_dir"');
    expect(script).toContain('procd_append_param command --enroll-token-file "$enroll_token_file"');
    expect(script).toContain('procd_append_param command --ca-fingerprint "$ca_fingerprint"');
    expect(script).toContain('procd_append_param command --insecure');
    const f = join(scratch, 'init');
    writeFileSync(f, script);
    expect(execFileSync('sh', ['-n', f], { encoding: 'utf8' })).toBe('');
  });
});
