/**
 * One proxy process (`npm run -s agent -- proxy --config FILE --controller HOST:PORT`, the
 * real CLI) manages two namespace routers over SSH, each with its own identity, stream and
 * state file; one is pinned by fingerprint and uses a key, the other is trusted on first
 * use (recorded) and uses a password. Plus config validation.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApplyResult_Status } from '../../../proto/gen/wrtfleet/agent/v1/agent.js';
import { Placement } from '../../../proto/gen/wrtfleet/agent/v1/router.js';
import { LOCAL_TCX_HELPER } from '../../../agent/datapath/programs.js';
import { ProxyConfigError, validateProxyConfig } from '../../../agent/proxy/index.js';
import { eventually } from '../../support/controller.js';
import { FakeController } from '../../support/fake-controller.js';
import { SshRouter } from '../../support/ssh-router.js';

/** TCX links on the WAN: the loader's default layout runs the four rewrites as one wf_chain program. */
const CHAIN_LINKS = 1;

describe('proxy config validation', () => {
  const ok = {
    host: '10.0.0.1',
    keyPath: 'id',
    hostKeyFingerprint: 'SHA256:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU',
  };
  it.each([
    [{}, /non-empty list/],
    [{ routers: [{ ...ok, host: undefined }] }, /routers\[0\]\.host is required/],
    [{ routers: [{ ...ok, keyPath: undefined }] }, /give keyPath, password or passwordEnv/],
    [{ routers: [{ ...ok, hostKeyFingerprint: undefined }] }, /no hostKeyFingerprint; pin one, or set tofu: true/],
    [{ routers: [{ ...ok, hostKeyFingerprint: 'md5:aa:bb' }] }, /must look like SHA256:/],
    [{ routers: [{ ...ok, port: 70000 }] }, /port must be 1-65535/],
    [{ routers: [ok, ok] }, /duplicate router 10\.0\.0\.1:22/],
    [{ routers: [{ ...ok, keyPath: undefined, passwordEnv: 'WF_NOPE_NOT_SET' }] }, /WF_NOPE_NOT_SET is not set/],
  ])('rejects %j', (doc, message) => {
    expect(() => validateProxyConfig(doc, '/etc/wrtfleet', {})).toThrow(ProxyConfigError);
    expect(() => validateProxyConfig(doc, '/etc/wrtfleet', {})).toThrow(message);
  });

  it('applies defaults and resolves relative paths against the config file', () => {
    const c = validateProxyConfig(
      { defaults: { user: 'admin' }, routers: [{ ...ok }, { host: 'r2', tofu: true, passwordEnv: 'PW' }] },
      '/etc/wrtfleet',
      { PW: 'secret' },
    );
    expect(c.routers[0]).toMatchObject({ user: 'admin', port: 22, keyPath: '/etc/wrtfleet/id', tofu: false });
    expect(c.routers[1]).toMatchObject({ host: 'r2', password: 'secret', tofu: true });
    expect(c.stateDir).toBe('/etc/wrtfleet/data/proxy-state');
  });
});

describe('one proxy process, two routers over SSH (real CLI)', () => {
  const a = new SshRouter();
  const b = new SshRouter();
  const controller = new FakeController();
  const dir = mkdtempSync(join(tmpdir(), 'wf-proxy-'));
  let proc: ChildProcess | undefined;
  let stderr = '';

  beforeAll(async () => {
    // Welcome names a 1 s telemetry interval: each router's agent must send on it.
    controller.telemetryIntervalSeconds = 1;
    await Promise.all([a.start(), b.start(), controller.start()]);
    const yaml = [
      `stateDir: ./state`,
      `routers:`,
      `  - host: ${a.addr.router}`,
      `    identity: site-a:r1`,
      `    keyPath: ${a.clientKeyPath}`,
      `    hostKeyFingerprint: ${a.hostKeyFingerprint}`,
      `  - host: ${b.addr.router}`,
      `    identity: site-b:r1`,
      `    passwordEnv: WF_TEST_ROUTER_PW`,
      `    tofu: true`,
      '',
    ].join('\n');
    writeFileSync(join(dir, 'proxy.yaml'), yaml);
    proc = spawn(
      'npm',
      ['run', '-s', 'agent', '--', 'proxy', '--config', join(dir, 'proxy.yaml'), '--controller', controller.address],
      {
        cwd: process.cwd(),
        env: { ...process.env, WF_TEST_ROUTER_PW: b.password },
        stdio: ['ignore', 'ignore', 'pipe'],
        detached: true,
      },
    );
    proc.stderr!.on('data', (d) => (stderr += String(d)));
  }, 120_000);

  afterAll(async () => {
    if (proc?.pid && proc.exitCode === null) {
      const done = new Promise((r) => proc!.once('exit', r));
      process.kill(-proc.pid, 'SIGTERM');
      await Promise.race([done, new Promise((r) => setTimeout(r, 5_000))]);
      if (proc.exitCode === null) process.kill(-proc.pid, 'SIGKILL');
    }
    await controller.stop();
    await Promise.all([a.stop(), b.stop()]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('both routers connect with their own identity and stream; the TOFU key is recorded', async () => {
    await eventually(
      async () => controller.connected('site-a:r1') && controller.connected('site-b:r1'),
      30_000,
      `both routers connected (proxy stderr: ${stderr})`,
    );
    for (const id of ['site-a:r1', 'site-b:r1']) {
      const hello = controller.hellos.find((h) => h.identity === id)!.hello;
      expect(hello.agent?.placement).toBe(Placement.PLACEMENT_PROXY);
      expect(hello.capabilities?.probed?.ebpf?.value).toBe(true);
    }
    const known = JSON.parse(readFileSync(join(dir, 'state/known_hosts.json'), 'utf8')) as Record<string, string>;
    expect(known).toEqual({ [`${b.addr.router}:22`]: b.hostKeyFingerprint });
    expect(stderr).toMatch(/trusting new host key SHA256:\S+ on first use/);
  });

  it('each router gets its plan applied in its own namespace, with its own state file', async () => {
    const spec = { l3Rewrite: { ttl: { value: 65 } } };
    controller.send('site-a:r1', {
      $case: 'desiredState',
      value: { profile: 'p', revision: 1, spec, confirmWindowSeconds: 0, rolloutId: '' },
    });
    controller.send('site-b:r1', {
      $case: 'desiredState',
      value: {
        profile: 'p',
        revision: 1,
        spec: { ...spec, l3Rewrite: { ttl: { value: 66 }, ipid: false } },
        confirmWindowSeconds: 0,
        rolloutId: '',
      },
    });
    for (const id of ['site-a:r1', 'site-b:r1']) {
      const r = await eventually(async () => controller.results(id)[0], 30_000, `result of ${id}`);
      expect(r.status, r.error).toBe(ApplyResult_Status.STATUS_APPLIED);
    }
    const count = async (router: SshRouter) => {
      const idx = (await router.inside.run(['cat', '/sys/class/net/wan0/ifindex'])).stdout.trim();
      return (JSON.parse((await router.inside.run([LOCAL_TCX_HELPER, 'query', idx])).stdout) as { programs: unknown[] })
        .programs.length;
    };
    expect(await count(a)).toBe(CHAIN_LINKS);
    expect(await count(b)).toBe(CHAIN_LINKS); // ipid off on site b: three rewrites, still one wf_chain
    await eventually(
      async () => existsSync(join(dir, 'state/site-a_r1.json')) && existsSync(join(dir, 'state/site-b_r1.json')),
      5_000,
      'state files',
    );
    const sb = JSON.parse(readFileSync(join(dir, 'state/site-b_r1.json'), 'utf8')) as {
      applied: { revision: number; plan: { datapath: { programs: unknown[] } } };
    };
    expect(sb.applied.plan.datapath.programs).toHaveLength(3);
  });

  it('telemetry arrives per router on the interval the Welcome named, with per-program counters', async () => {
    // Samples run in the apply queue, so those sent after the applies' results see their programs.
    const base = { a: controller.telemetry('site-a:r1').length, b: controller.telemetry('site-b:r1').length };
    await eventually(
      async () =>
        controller.telemetry('site-a:r1').length >= base.a + 2 &&
        controller.telemetry('site-b:r1').length >= base.b + 2,
      20_000,
      'two more telemetry messages from each site',
    );
    const t = controller.telemetry('site-a:r1').at(-1)!;
    expect(t.programs.map((p) => p.program).sort()).toEqual([
      'wan0/clear_tcp_syn_ts',
      'wan0/set_ip_id_zero',
      'wan0/set_ip_ttl',
      'wan0/set_tcp_syn_window',
    ]);
    expect(t.agentRssBytes).toBeGreaterThan(0);
    expect(controller.telemetry('site-b:r1').at(-1)!.programs).toHaveLength(3);
  });

  it("one router's SSH going away does not disturb the other", async () => {
    await b.stopSshd();
    await b.killSessions();
    controller.send('site-a:r1', { $case: 'command', value: { kind: 5, commandId: '' } });
    const rep = await eventually(
      async () => controller.driftReports('site-a:r1')[0],
      15_000,
      'drift report from site a',
    );
    expect(rep.differences).toEqual([]);
  });
});
