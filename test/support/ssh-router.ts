/**
 * A "router" reachable over real SSH: a network namespace running Debian's OpenSSH sshd,
 * joined to this host by a veth pair (management) and to a "peer" namespace by a second
 * veth pair (its WAN, carrying the default route, so the datapath finds an eligible
 * interface):
 *
 *   host (wfh-<id> 10.200.N.1/30) ── (mgmt0 10.200.N.2/30) router (wan0 10.201.N.1/30) ── (up0 10.201.N.2/30) peer
 *
 * Every address lives on veths created here; nothing is routed anywhere else.
 *
 * sshd runs under `ip netns exec`, which gives it a private mount namespace with a fresh
 * /sys. We mount a bpffs of its own at /sys/fs/bpf there, so the router's pins (at the
 * agent's default pin root) are its own, as on a real device, and disappear with it. For
 * password auth a shadow file with a known root hash is bind-mounted over /etc/shadow in
 * that mount namespace only; the machine's real /etc/shadow is never touched.
 *
 * `inside` runs commands in exactly the view an SSH session gets (nsenter into sshd's net
 * and mount namespaces): tests use it to check what the agent did, independently of SSH.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CommandResult, RouterHost, RunOptions } from '../../core/host/router-host.js';
import { LocalHost } from '../../core/host/local-host.js';

const local = new LocalHost();

export async function sh(argv: string[], timeoutMs = 30_000): Promise<string> {
  const r = await local.run(argv, { timeoutMs });
  if (r.code !== 0) throw new Error(`${argv.join(' ')}: ${(r.stderr || r.stdout).trim()}`);
  return r.stdout;
}

/** Runs commands inside another process's network and mount namespaces (what its children see). */
export class NsenterHost implements RouterHost {
  readonly description: string;
  constructor(private readonly pid: () => number) {
    this.description = 'nsenter';
  }
  run(argv: string[], options?: RunOptions): Promise<CommandResult> {
    return local.run(['nsenter', '-t', String(this.pid()), '-n', '-m', '--', ...argv], options);
  }
  async readFile(path: string): Promise<string | null> {
    const r = await this.run(['cat', path]);
    return r.code === 0 ? r.stdout : null;
  }
  async readBinary(path: string): Promise<Buffer | null> {
    return local.readBinary(path);
  }
  async writeFile(path: string, data: string | Buffer, mode?: number): Promise<void> {
    await local.writeFile(path, data, mode);
  }
  async close(): Promise<void> {}
}

export interface SshRouterOptions {
  /** Root password accepted by sshd (password auth); key auth is always on. */
  password?: string;
  /** sshd MaxSessions / MaxStartups, raised for the many-sessions benchmark. */
  maxSessions?: number;
  maxStartups?: number;
  /** Extra sshd_config lines. */
  extraConfig?: string[];
  /**
   * Files or directories bind-mounted in the router's mount namespace only (sessions see them,
   * the machine does not): a boot id file over /proc/sys/kernel/random/boot_id, fake tools over
   * /usr/local/sbin, an OpenWrt os-release.
   */
  binds?: { source: string; target: string }[];
}

export class SshRouter {
  readonly id = randomBytes(3).toString('hex');
  readonly ns = { router: `wf-ssh-${this.id}-r`, peer: `wf-ssh-${this.id}-p` };
  readonly hostIf = `wfh${this.id}`;
  private readonly octet = SshRouter.pickOctet();
  readonly addr = {
    host: `10.200.${this.octet}.1`,
    router: `10.200.${this.octet}.2`,
    routerWan: `10.201.${this.octet}.1`,
    peer: `10.201.${this.octet}.2`,
  };
  readonly port = 22;
  readonly user = 'root';
  readonly dir = mkdtempSync(join(tmpdir(), 'wf-ssh-'));
  readonly clientKeyPath = join(this.dir, 'client_ed25519');
  readonly hostKeyPath = join(this.dir, 'host_ed25519');
  readonly logPath = join(this.dir, 'sshd.log');
  readonly password: string;
  /** "SHA256:<base64 without padding>" of the host key, as `ssh-keygen -lf` prints it. */
  hostKeyFingerprint = '';
  private sshd: ChildProcess | undefined;
  /** Commands in the router as an SSH session sees it (net + mount namespace of sshd). */
  readonly inside = new NsenterHost(() => this.sshdPid());
  /** Commands in the router's network namespace with the host's mounts (like NetnsHost). */
  readonly netns: string;

  private static readonly used = new Set<number>();

  /** A 10.200.N.0/30 not used by another router of this process nor routed on this host. */
  private static pickOctet(): number {
    const routed = new Set(
      (spawnSync('ip', ['-4', 'route', 'show'], { encoding: 'utf8' }).stdout ?? '')
        .split('\n')
        .map((l) => l.match(/^10\.200\.(\d+)\./)?.[1])
        .filter(Boolean)
        .map(Number),
    );
    for (let i = 0; i < 1000; i++) {
      const n = 1 + (randomBytes(1)[0]! % 250);
      if (!SshRouter.used.has(n) && !routed.has(n)) {
        SshRouter.used.add(n);
        return n;
      }
    }
    throw new Error('no free 10.200.N.0/30 for a test router');
  }

  constructor(private readonly options: SshRouterOptions = {}) {
    this.password = options.password ?? `pw-${randomBytes(6).toString('hex')}`;
    this.netns = this.ns.router;
  }

  get clientKey(): Buffer {
    return readFileSync(this.clientKeyPath);
  }

  sshdPid(): number {
    if (!this.sshd?.pid) throw new Error('sshd is not running');
    return this.sshd.pid;
  }

  async start(): Promise<void> {
    for (const n of Object.values(this.ns)) {
      await sh(['ip', 'netns', 'add', n]);
      await sh(['ip', '-n', n, 'link', 'set', 'lo', 'up']);
    }
    await sh(['ip', 'link', 'add', this.hostIf, 'type', 'veth', 'peer', 'name', 'mgmt0', 'netns', this.ns.router]);
    await sh(['ip', 'addr', 'add', `${this.addr.host}/30`, 'dev', this.hostIf]);
    await sh(['ip', 'link', 'set', this.hostIf, 'up']);
    await sh(['ip', '-n', this.ns.router, 'addr', 'add', `${this.addr.router}/30`, 'dev', 'mgmt0']);
    await sh(['ip', '-n', this.ns.router, 'link', 'set', 'mgmt0', 'up']);
    await sh([
      'ip',
      'link',
      'add',
      'wan0',
      'netns',
      this.ns.router,
      'type',
      'veth',
      'peer',
      'name',
      'up0',
      'netns',
      this.ns.peer,
    ]);
    await sh(['ip', '-n', this.ns.router, 'addr', 'add', `${this.addr.routerWan}/30`, 'dev', 'wan0']);
    await sh(['ip', '-n', this.ns.router, 'link', 'set', 'wan0', 'up']);
    await sh(['ip', '-n', this.ns.peer, 'addr', 'add', `${this.addr.peer}/30`, 'dev', 'up0']);
    await sh(['ip', '-n', this.ns.peer, 'link', 'set', 'up0', 'up']);
    await sh(['ip', '-n', this.ns.router, 'route', 'add', 'default', 'via', this.addr.peer, 'dev', 'wan0']);

    await this.newHostKey();
    await sh(['ssh-keygen', '-q', '-t', 'ed25519', '-N', '', '-C', 'wrtfleet-test-client', '-f', this.clientKeyPath]);
    writeFileSync(join(this.dir, 'authorized_keys'), readFileSync(`${this.clientKeyPath}.pub`));
    const hash = (await sh(['openssl', 'passwd', '-6', this.password])).trim();
    const shadow = readFileSync('/etc/shadow', 'utf8')
      .split('\n')
      .map((l) => (l.startsWith('root:') ? `root:${hash}:19000:0:99999:7:::` : l))
      .join('\n');
    writeFileSync(join(this.dir, 'shadow'), shadow, { mode: 0o640 });
    // root's login shell becomes /bin/sh (dash), as on OpenWrt (busybox ash): bash would source rc files on every exec.
    const passwd = readFileSync('/etc/passwd', 'utf8')
      .split('\n')
      .map((l) => (l.startsWith('root:') ? l.replace(/:[^:]*$/, ':/bin/sh') : l))
      .join('\n');
    writeFileSync(join(this.dir, 'passwd'), passwd, { mode: 0o644 });
    const maxSessions = this.options.maxSessions ?? 10;
    const maxStartups = this.options.maxStartups ?? 10;
    const config = [
      `ListenAddress ${this.addr.router}:${this.port}`,
      `HostKey ${this.hostKeyPath}`,
      `PidFile ${join(this.dir, 'sshd.pid')}`,
      `AuthorizedKeysFile ${join(this.dir, 'authorized_keys')}`,
      'PermitRootLogin yes',
      'PasswordAuthentication yes',
      'KbdInteractiveAuthentication no',
      'PubkeyAuthentication yes',
      'UsePAM no',
      'StrictModes no',
      'UseDNS no',
      'LogLevel VERBOSE',
      `MaxSessions ${maxSessions}`,
      `MaxStartups ${maxStartups}`,
      'MaxAuthTries 3',
      'LoginGraceTime 20',
      // OpenWrt's dropbear has no sftp-server by default: neither has this "router".
      ...(this.options.extraConfig ?? []),
      '',
    ].join('\n');
    writeFileSync(join(this.dir, 'sshd_config'), config);
    chmodSync(this.dir, 0o755);
    mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
    await this.startSshd();
  }

  private async newHostKey(): Promise<void> {
    rmSync(this.hostKeyPath, { force: true });
    rmSync(`${this.hostKeyPath}.pub`, { force: true });
    await sh(['ssh-keygen', '-q', '-t', 'ed25519', '-N', '', '-C', 'wrtfleet-test-host', '-f', this.hostKeyPath]);
    this.hostKeyFingerprint = fingerprintOfPublicKeyLine(readFileSync(`${this.hostKeyPath}.pub`, 'utf8'));
  }

  /** A re-flashed router (or a man in the middle): same address, different host key. */
  async rotateHostKey(): Promise<void> {
    await this.stopSshd();
    await this.newHostKey();
    await this.startSshd();
  }

  async startSshd(): Promise<void> {
    const cfgPath = join(this.dir, 'sshd_config');

    const script = [
      'set -e',
      'mount -t bpf bpf /sys/fs/bpf',
      `mount --bind ${join(this.dir, 'shadow')} /etc/shadow`,
      `mount --bind ${join(this.dir, 'passwd')} /etc/passwd`,
      ...(this.options.binds ?? []).map((b) => `mount --bind ${b.source} ${b.target}`),
      `exec /usr/sbin/sshd -D -f ${cfgPath} -h ${this.hostKeyPath} -E ${this.logPath}`,
    ].join('\n');
    this.sshd = spawn('ip', ['netns', 'exec', this.ns.router, 'sh', '-c', script], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    this.sshd.stderr!.on('data', (d) => (err += String(d)));
    for (let i = 0; i < 100; i++) {
      if (this.sshd.exitCode !== null) throw new Error(`sshd exited ${this.sshd.exitCode}: ${err} ${this.log()}`);
      const r = await local.run(['ip', 'netns', 'exec', this.ns.router, 'ss', '-Htln', `sport = :${this.port}`]);
      if (r.stdout.includes(`:${this.port}`)) return;
      await new Promise((res) => setTimeout(res, 50));
    }
    throw new Error(`sshd did not listen: ${err} ${this.log()}`);
  }

  log(): string {
    try {
      return readFileSync(this.logPath, 'utf8');
    } catch {
      return '';
    }
  }

  /** TCP connections sshd accepted so far (its "Connection from" log lines). */
  connectionsAccepted(): number {
    return (this.log().match(/Connection from /g) ?? []).length;
  }

  /** Stops sshd (the router becomes unreachable on port 22: connection refused). */
  async stopSshd(): Promise<void> {
    const p = this.sshd;
    if (!p || p.exitCode !== null) return;
    const done = new Promise((res) => p.once('exit', res));
    p.kill('SIGTERM');
    await done;
  }

  /** Kills every process left in the router namespace (per-connection sshd children, sessions): all started by us. */
  async killSessions(): Promise<void> {
    const pids = (await local.run(['ip', 'netns', 'pids', this.ns.router])).stdout.split(/\s+/).filter(Boolean);
    for (const pid of pids) await local.run(['kill', '-KILL', pid]);
  }

  async stop(): Promise<void> {
    await this.stopSshd();
    await this.killSessions();
    for (const n of Object.values(this.ns)) await local.run(['ip', 'netns', 'del', n]);
    await local.run(['ip', 'link', 'del', this.hostIf]);
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** SHA256 fingerprint of an OpenSSH public key line ("ssh-ed25519 AAAA... comment"). */
export function fingerprintOfPublicKeyLine(line: string): string {
  const blob = Buffer.from(line.trim().split(/\s+/)[1] ?? '', 'base64');
  return `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
}
