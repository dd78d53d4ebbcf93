/**
 * SshHost against Debian's real OpenSSH sshd running in a namespace "router"
 * (test/support/ssh-router.ts): auth by key and by password, host-key pinning and TOFU,
 * exec + stdin uploads (no SFTP), command timeouts that kill the remote process,
 * keepalives and reconnect on demand, and bounded backoff on failures.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SshError, SshHost, type SshHostOptions } from '../../../core/host/ssh-host.js';
import { eventually } from '../../support/controller.js';
import { sh, SshRouter } from '../../support/ssh-router.js';

const router = new SshRouter();
const hosts: SshHost[] = [];

function host(extra: Partial<SshHostOptions> = {}): SshHost {
  const h = new SshHost({
    host: router.addr.router,
    username: 'root',
    privateKey: router.clientKey,
    hostKeyFingerprint: router.hostKeyFingerprint,
    connectTimeoutMs: 5_000,
    ...extra,
  });
  hosts.push(h);
  return h;
}

async function rejection(p: Promise<unknown>): Promise<SshError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(SshError);
    return err as SshError;
  }
  throw new Error('expected a rejection');
}

beforeAll(async () => {
  await router.start();
});

afterAll(async () => {
  for (const h of hosts) await h.close().catch(() => undefined);
  await router.stop();
});

describe('commands and files over exec', () => {
  it('runs argv with exit codes, stderr, stdin, and shell-hostile arguments intact', async () => {
    const h = host();
    const r = await h.run(['sh', '-c', 'echo "$1|$2"; echo oops >&2; exit 3', 'x', 'it\'s a $HOME `x` "q"']);
    expect(r).toEqual({ code: 3, stdout: `it's a $HOME \`x\` "q"|\n`.replace('|', '|'), stderr: 'oops\n' });
    expect(await h.run(['definitely-not-installed-wf'])).toMatchObject({ code: 127 });
    expect((await h.run(['cat'], { input: 'from stdin\n' })).stdout).toBe('from stdin\n');
    // The router's own view: its namespace addresses, not this host's.
    expect((await h.run(['ip', '-4', '-br', 'addr', 'show', 'wan0'])).stdout).toContain(router.addr.routerWan);
  });

  it('uploads binary files with a mode through cat over stdin, atomically, and reads them back', async () => {
    const h = host();
    const data = randomBytes(1_500_000);
    await h.writeFile('/tmp/wf-ssh-upload.bin', data, 0o600);
    expect((await h.readBinary('/tmp/wf-ssh-upload.bin'))!.equals(data)).toBe(true);
    expect((await h.run(['stat', '-c', '%a', '/tmp/wf-ssh-upload.bin'])).stdout.trim()).toBe('600');
    expect(await h.readFile('/tmp/wf-ssh-no-such-file')).toBeNull();
    await expect(h.writeFile('/proc/wf-not-writable/x', 'x')).rejects.toThrow(
      /writing \/proc\/wf-not-writable\/x failed/,
    );
    await h.run(['rm', '-f', '/tmp/wf-ssh-upload.bin']);
  });

  it('multiplexes concurrent commands over one connection', async () => {
    const h = host();
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => h.run(['echo', String(i)])));
    expect(results.map((r) => r.stdout.trim())).toEqual(Array.from({ length: 20 }, (_, i) => String(i)));
    expect(h.connectAttempts).toBe(1);
  });
});

describe('authentication', () => {
  it('accepts a password', async () => {
    const h = host({ privateKey: undefined, password: router.password });
    expect((await h.run(['id', '-u'])).stdout.trim()).toBe('0');
  });

  it('a wrong password is a clear auth error, and repeated calls do not redial (no retry storm)', async () => {
    const before = router.connectionsAccepted();
    const h = host({ privateKey: undefined, password: 'wrong-password' });
    const first = await rejection(h.run(['id']));
    expect(first.kind).toBe('auth');
    expect(first.message).toMatch(/authentication failed for user root \(password rejected/);
    for (let i = 0; i < 10; i++) {
      const again = await rejection(h.run(['id']));
      expect(again.kind).toBe('auth');
      expect(again.message).toMatch(/not retrying for another \d+ s/);
    }
    expect(h.connectAttempts).toBe(1);
    await eventually(async () => router.connectionsAccepted() === before + 1, 3_000, 'sshd log line');
    expect(router.connectionsAccepted()).toBe(before + 1);
  });

  it('an unknown key is an auth error', async () => {
    const other = (
      await sh([
        'sh',
        '-c',
        `rm -f ${router.dir}/k2 && ssh-keygen -q -t ed25519 -N '' -f ${router.dir}/k2 && cat ${router.dir}/k2`,
      ])
    ).trim();
    const e = await rejection(host({ privateKey: `${other}\n` }).run(['id']));
    expect(e.kind).toBe('auth');
  });
});

describe('host keys', () => {
  it('a pinned fingerprint that does not match is refused before authenticating', async () => {
    const accepted = () => (router.log().match(/Accepted /g) ?? []).length;
    const before = accepted();
    const h = host({ hostKeyFingerprint: 'SHA256:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU' });
    const e = await rejection(h.run(['id']));
    expect(e.kind).toBe('host-key');
    expect(e.message).toContain('HOST KEY MISMATCH');
    expect(e.message).toContain(router.hostKeyFingerprint);
    await rejection(h.run(['id']));
    expect(h.connectAttempts).toBe(1);
    await new Promise((r) => setTimeout(r, 200));
    expect(accepted()).toBe(before); // the key was never offered to a server we do not trust
  });

  it('without a pinned key and without a recorder the connection is refused (no silent trust)', async () => {
    const e = await rejection(host({ hostKeyFingerprint: undefined }).run(['id']));
    expect(e.kind).toBe('host-key');
    expect(e.message).toMatch(/no host key fingerprint configured/);
  });

  it('TOFU records the first key, then a changed key is refused even by the same host object', async () => {
    const recorded: string[] = [];
    const h = host({
      hostKeyFingerprint: undefined,
      onNewHostKey: (fp) => void recorded.push(fp),
      backoff: { initialMs: 50, maxMs: 200 },
    });
    expect((await h.run(['true'])).code).toBe(0);
    expect(recorded).toEqual([router.hostKeyFingerprint]);
    await h.disconnect();
    const old = router.hostKeyFingerprint;
    await router.rotateHostKey();
    expect(router.hostKeyFingerprint).not.toBe(old);
    const e = await rejection(h.run(['true']));
    expect(e.kind).toBe('host-key');
    expect(e.message).toContain(`${old} is pinned`);
    expect(recorded).toEqual([old]); // the new key was never recorded
  });
});

describe('timeouts, keepalives, reconnects', () => {
  it('a hung command times out, the remote process is killed, and the connection stays usable', async () => {
    const h = host();
    const marker = `100.${Date.now() % 100000}`;
    const t0 = Date.now();
    const r = await h.run(['sleep', marker], { timeoutMs: 800 });
    expect(Date.now() - t0).toBeLessThan(5_000);
    expect(r.code).toBeNull();
    expect(r.stderr).toMatch(/timed out after 800 ms \(remote command killed\)/);
    await eventually(
      async () => !(await router.inside.run(['sh', '-c', `ps -eo args | grep -x 'sleep ${marker}'`])).stdout.trim(),
      3_000,
      'remote sleep killed',
    );
    expect((await h.run(['echo', 'still here'])).stdout).toBe('still here\n');
    expect(h.connectAttempts).toBe(1);
  });

  it('keepalives notice a dead path; the next command reconnects on demand', async () => {
    const h = host({ keepaliveIntervalMs: 200, keepaliveCountMax: 2, backoff: { initialMs: 50, maxMs: 500 } });
    await h.run(['true']);
    expect(h.connected).toBe(true);
    await sh(['ip', '-n', router.ns.router, 'link', 'set', 'mgmt0', 'down']);
    try {
      await eventually(async () => !h.connected, 5_000, 'keepalive to drop the connection');
    } finally {
      await sh(['ip', '-n', router.ns.router, 'link', 'set', 'mgmt0', 'up']);
    }
    await new Promise((r) => setTimeout(r, 600));
    expect((await h.run(['echo', 'back'])).stdout).toBe('back\n');
    expect(h.connectAttempts).toBe(2);
  });

  it('a connection that dies during a command is reported as lost, and the next command reconnects', async () => {
    const h = host({ backoff: { initialMs: 50, maxMs: 500 } });
    await h.run(['true']);
    const pending = h.run(['sleep', '30'], { timeoutMs: 20_000 });
    await new Promise((r) => setTimeout(r, 300));
    // Reset the TCP connection from the router's side (ss -K needs CONFIG_INET_DIAG_DESTROY).
    const kill = await sh(['ip', 'netns', 'exec', router.ns.router, 'ss', '-K', 'dst', router.addr.host]).catch(
      (e: Error) => e.message,
    );
    const r = await pending;
    expect(r.code, String(kill)).toBeNull();
    expect(r.stderr).toMatch(/connection lost during the command/);
    await new Promise((r2) => setTimeout(r2, 100));
    expect((await h.run(['echo', 'again'])).stdout).toBe('again\n');
    expect(h.connectAttempts).toBe(2);
  });

  it('connection refused backs off exponentially and recovers once sshd is back', async () => {
    const h = host({ backoff: { initialMs: 300, maxMs: 1_200 } });
    await router.stopSshd();
    try {
      const e = await rejection(h.run(['true']));
      expect(e.kind).toBe('refused');
      expect(e.message).toMatch(/connection refused/);
      // Within the backoff window: no new dial.
      for (let i = 0; i < 5; i++) expect((await rejection(h.run(['true']))).message).toMatch(/not retrying/);
      expect(h.connectAttempts).toBe(1);
      // Hammer for 3 s: with 300, 600, 1200, 1200 ms waits that is at most 4-5 dials, not hundreds.
      const end = Date.now() + 3_000;
      while (Date.now() < end) {
        await h.run(['true']).catch(() => undefined);
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(h.connectAttempts).toBeGreaterThanOrEqual(3);
      expect(h.connectAttempts).toBeLessThanOrEqual(6);
    } finally {
      await router.startSshd();
    }
    await new Promise((r) => setTimeout(r, 1_300));
    expect((await h.run(['echo', 'ok'])).stdout).toBe('ok\n');
  });

  it('an unreachable router is a clear error within the connect timeout', async () => {
    // The router's side of the management link goes down: ARP gets no answer, traffic stays on our veth.
    const h = host({ connectTimeoutMs: 1_500 });
    await sh(['ip', '-n', router.ns.router, 'link', 'set', 'mgmt0', 'down']);
    const t0 = Date.now();
    const e = await rejection(h.run(['true'])).finally(() =>
      sh(['ip', '-n', router.ns.router, 'link', 'set', 'mgmt0', 'up']),
    );
    expect(['unreachable']).toContain(e.kind);
    expect(e.message).toMatch(/unreachable/);
    expect(Date.now() - t0).toBeLessThan(6_000);
  });
});
