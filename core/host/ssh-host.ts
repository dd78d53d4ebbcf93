/**
 * A router driven over SSH (the proxy placement, docs/DOMAIN.md, Where the agent runs): commands run through the
 * router's SSH server (dropbear on OpenWrt, any OpenSSH elsewhere) with ssh2.
 *
 * Choices, and why:
 * - Files go over `exec` + stdin (`cat > tmp && mv`), never SFTP: dropbear on OpenWrt has
 *   no sftp-server unless someone installs openssh-sftp-server.
 * - Host keys are pinned. With an expected fingerprint a different key is refused with a
 *   HostKeyMismatch error before any credential is sent. Without one, the first key seen
 *   is handed to `onNewHostKey` (trust on first use, recorded by the caller) and pinned
 *   from then on: a later, different key is refused, never silently re-trusted.
 * - A hung remote command is killed, not just abandoned: every command first reports its
 *   shell's pid on stderr, and on timeout a second channel kills that process group
 *   (dropbear ignores SSH "signal" requests, so we cannot rely on them), then the channel
 *   is closed and the result says "timed out".
 * - One connection, opened on demand and re-opened on demand after it drops. Failed
 *   connects back off exponentially (bounded); while backing off, calls fail at once with
 *   the last error instead of dialling again, so a fleet of proxies cannot hammer a router
 *   (or its auth log) in a loop. Authentication and host-key failures do not heal by
 *   themselves: they block for the maximum backoff until `resetBackoff()`.
 * - At most `maxChannels` commands run at once over the connection (OpenSSH's MaxSessions
 *   defaults to 10, dropbear's channel limit is similar); the rest queue.
 */
import { createHash } from 'node:crypto';
import { Client, type ClientChannel, type ConnectConfig } from 'ssh2';
import { dropbearChannelLimit } from './dropbear-channels.js';
import {
  DEFAULT_COMMAND_TIMEOUT_MS,
  type CommandResult,
  type FileSink,
  type RouterHost,
  type RunOptions,
} from './router-host.js';
import { channelFileSink, fileSinkCommand } from './ssh-file-sink.js';
import { classifyConnectError, SshError } from './ssh-error.js';
import {
  collectChannel,
  killRemoteGroup,
  openExec,
  pidReportingCommand,
  shellQuote,
  type ChannelOutput,
} from './ssh-command-channel.js';

export { SshError, type SshErrorKind } from './ssh-error.js';
export { shellQuote } from './ssh-command-channel.js';

export interface SshHostOptions {
  host: string;
  port?: number;
  username: string;
  password?: string;
  /** Private key (OpenSSH or PEM format). */
  privateKey?: string | Buffer;
  passphrase?: string;
  /** Expected host key, "SHA256:<base64>" as `ssh-keygen -lf` prints it. */
  hostKeyFingerprint?: string;
  /**
   * Called with the fingerprint of a host key seen for the first time when no
   * fingerprint is configured (TOFU). Persist it; it is pinned for this host from then on.
   * Without this callback and without a fingerprint, connecting is refused.
   */
  onNewHostKey?: (fingerprint: string) => void | Promise<void>;
  keepaliveIntervalMs?: number;
  keepaliveCountMax?: number;
  /** TCP connect + handshake + auth must finish within this. */
  connectTimeoutMs?: number;
  /** Default per-command timeout. */
  commandTimeoutMs?: number;
  backoff?: { initialMs?: number; maxMs?: number };
  maxChannels?: number;
  /** Human label used in errors (default user@host:port). */
  label?: string;
  /**
   * Called before every connection attempt with `host`: the address to dial. A proxy checks a
   * host name against its allowed targets here each time, as the name may point elsewhere by
   * the time it reconnects; a rejection refuses the attempt (kind `not-allowed`) before any
   * packet is sent, and backs off like a failed connect.
   */
  resolveAddress?: (host: string) => Promise<string>;
}

const DEFAULT_BACKOFF = { initialMs: 1_000, maxMs: 60_000 };

/** "SHA256:<base64 without padding>" of a raw SSH public key blob. */
export function sshFingerprint(keyBlob: Buffer): string {
  return `SHA256:${createHash('sha256').update(keyBlob).digest('base64').replace(/=+$/, '')}`;
}

export class SshHost implements RouterHost {
  readonly description: string;
  private client: Client | undefined;
  private connecting: Promise<Client> | undefined;
  private pinned: string | undefined;
  private failures = 0;
  private blockedUntil = 0;
  private lastError: SshError | undefined;
  private active = 0;
  private readonly waiters: (() => void)[] = [];
  private closed = false;
  /** Number of TCP connection attempts made (tests and benchmarks read it). */
  connectAttempts = 0;
  /** Fingerprint of the host key of the current/last connection. */
  hostKey: string | undefined;
  /** The server's software version from its SSH banner ("dropbear_2022.83", "OpenSSH_9.2p1"). */
  serverSoftware: string | undefined;

  constructor(private readonly options: SshHostOptions) {
    this.description = `ssh ${options.label ?? `${options.username}@${options.host}:${options.port ?? 22}`}`;
    this.pinned = options.hostKeyFingerprint ? normalizeFingerprint(options.hostKeyFingerprint) : undefined;
  }

  /** Allows an immediate reconnect after a failure (e.g. once an operator fixed credentials). */
  resetBackoff(): void {
    this.failures = 0;
    this.blockedUntil = 0;
    this.lastError = undefined;
  }

  get connected(): boolean {
    return this.client !== undefined;
  }

  /** Opens the connection now (otherwise the first command does). */
  async connect(): Promise<void> {
    await this.ensureClient();
  }

  private ensureClient(): Promise<Client> {
    if (this.closed) return Promise.reject(new SshError('closed', `${this.description}: host closed`));
    if (this.client) return Promise.resolve(this.client);
    if (this.connecting) return this.connecting;
    const now = Date.now();
    if (now < this.blockedUntil && this.lastError) {
      const wait = this.blockedUntil - now;
      return Promise.reject(
        new SshError(
          this.lastError.kind,
          `${this.lastError.message} (not retrying for another ${Math.ceil(wait / 1000)} s)`,
          this.lastError,
        ),
      );
    }
    this.connecting = this.dial().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  private async dial(): Promise<Client> {
    let address = this.options.host;
    if (this.options.resolveAddress) {
      try {
        address = await this.options.resolveAddress(this.options.host);
      } catch (err) {
        throw this.failed(new SshError('not-allowed', `${this.description}: ${(err as Error).message}`, err));
      }
      if (this.closed) throw new SshError('closed', `${this.description}: host closed`);
    }
    return this.dialAddress(address);
  }

  /** Records a failed connect and when the next may be tried; returns the error. */
  private failed(error: SshError): SshError {
    const backoff = { ...DEFAULT_BACKOFF, ...this.options.backoff };
    this.lastError = error;
    const permanent = error.kind === 'auth' || error.kind === 'host-key';
    const delay = permanent
      ? backoff.maxMs
      : Math.min(backoff.maxMs, backoff.initialMs * 2 ** Math.min(this.failures, 20));
    this.failures += 1;
    this.blockedUntil = Date.now() + delay;
    return error;
  }

  private dialAddress(address: string): Promise<Client> {
    const o = this.options;
    this.connectAttempts += 1;
    return new Promise<Client>((resolve, reject) => {
      const client = new Client();
      let hostKeyProblem: SshError | undefined;
      let settled = false;
      const fail = (error: SshError) => {
        if (settled) return;
        settled = true;
        this.failed(error);
        client.removeAllListeners('ready');
        client.on('error', () => undefined);
        client.end();
        reject(error);
      };
      const config: ConnectConfig = {
        host: address,
        port: o.port ?? 22,
        username: o.username,
        password: o.password,
        privateKey: o.privateKey,
        passphrase: o.passphrase,
        readyTimeout: o.connectTimeoutMs ?? 15_000,
        keepaliveInterval: o.keepaliveIntervalMs ?? 15_000,
        keepaliveCountMax: o.keepaliveCountMax ?? 3,
        hostVerifier: (key: Buffer, verify: (ok: boolean) => void) => {
          const fp = sshFingerprint(key);
          this.hostKey = fp;
          if (this.pinned) {
            if (fp === this.pinned) return verify(true);
            hostKeyProblem = new SshError(
              'host-key',
              `${this.description}: HOST KEY MISMATCH: the router presented ${fp} but ${this.pinned} is pinned; refusing to connect (possible man-in-the-middle, or the router was re-flashed: update the pinned fingerprint if that is expected)`,
            );
            return verify(false);
          }
          if (!o.onNewHostKey) {
            hostKeyProblem = new SshError(
              'host-key',
              `${this.description}: no host key fingerprint configured and no trust-on-first-use recorder: refusing unknown key ${fp}`,
            );
            return verify(false);
          }
          Promise.resolve(o.onNewHostKey(fp)).then(
            () => {
              this.pinned = fp;
              verify(true);
            },
            (err: unknown) => {
              hostKeyProblem = new SshError(
                'host-key',
                `${this.description}: could not record new host key ${fp}: ${(err as Error).message}`,
              );
              verify(false);
            },
          );
        },
      };
      if (!o.password && !o.privateKey) {
        fail(new SshError('auth', `${this.description}: no password or private key configured`));
        return;
      }
      // Small request/response exchanges: Nagle + delayed ACK would add ~200 ms to every command.
      client.on('connect', () => client.setNoDelay(true));
      client.on('ready', () => {
        if (settled) return;
        settled = true;
        // ssh2 keeps the banner's software version on the client without a public getter.
        this.serverSoftware = (client as unknown as { _remoteVer?: string })._remoteVer;
        this.failures = 0;
        this.blockedUntil = 0;
        this.lastError = undefined;
        this.client = client;
        resolve(client);
      });
      client.on('error', (err: Error & { level?: string; code?: string }) => {
        if (!settled) return fail(hostKeyProblem ?? classifyConnectError(err, this.description, this.options));
        // After ready: keepalive timeout, reset by peer. The 'close' handler drops the client.
      });
      client.on('close', () => {
        if (this.client === client) this.client = undefined;
        if (!settled)
          fail(hostKeyProblem ?? new SshError('closed', `${this.description}: connection closed during handshake`));
      });
      try {
        client.connect(config);
      } catch (err) {
        fail(new SshError('protocol', `${this.description}: ${(err as Error).message}`, err));
      }
    });
  }

  private async slot(): Promise<() => void> {
    // A caller's limit never overrides a server that aborts beyond its own.
    const max = Math.min(this.options.maxChannels ?? 6, dropbearChannelLimit(this.serverSoftware) ?? Infinity);
    while (this.active >= max) await new Promise<void>((r) => this.waiters.push(r));
    this.active += 1;
    return () => {
      this.active -= 1;
      this.waiters.shift()?.();
    };
  }

  /** Runs a command and collects raw output. Connection errors reject; command failures resolve. */
  private async exec(argv: string[], options: RunOptions = {}): Promise<ChannelOutput> {
    if (argv.length === 0) return { code: null, stdout: Buffer.alloc(0), stderr: 'empty command' };
    const timeoutMs = options.timeoutMs ?? this.options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
    // Connected first: the server's version decides how many commands may run at once.
    await this.ensureClient();
    const release = await this.slot();
    try {
      const client = await this.ensureClient();
      const current = () => this.client === client;
      let channel: ClientChannel;
      try {
        channel = await openExec(client, pidReportingCommand(argv), this.description, current);
      } catch (err) {
        // A dead connection surfaces here first: drop it so the next call redials.
        if (this.client === client && !(client as unknown as { _sock?: { writable?: boolean } })._sock?.writable)
          this.client = undefined;
        throw err;
      }
      return await collectChannel(channel, {
        timeoutMs,
        input: options.input,
        description: this.description,
        killRemote: (pid) => (current() ? killRemoteGroup(client, pid, this.description, current) : Promise.resolve()),
        connectionLost: () => !current(),
      });
    } finally {
      release();
    }
  }

  async run(argv: string[], options?: RunOptions): Promise<CommandResult> {
    const r = await this.exec(argv, options);
    return { code: r.code, stdout: r.stdout.toString('utf8'), stderr: r.stderr };
  }

  async readFile(path: string): Promise<string | null> {
    const r = await this.exec(['cat', path]);
    return r.code === 0 ? r.stdout.toString('utf8') : null;
  }

  async readBinary(path: string): Promise<Buffer | null> {
    const r = await this.exec(['cat', path]);
    return r.code === 0 ? r.stdout : null;
  }

  async writeFile(path: string, data: string | Buffer, mode?: number): Promise<void> {
    // Write to a temporary name and rename: a reader never sees half a file.
    const tmp = `${path}.wf-tmp-${process.pid}`;
    const chmod = mode === undefined ? '' : ` && chmod ${(mode & 0o7777).toString(8)} ${shellQuote(tmp)}`;
    const script = `cat > ${shellQuote(tmp)}${chmod} && mv -f ${shellQuote(tmp)} ${shellQuote(path)} || { rm -f ${shellQuote(tmp)}; exit 1; }`;
    const r = await this.exec(['sh', '-c', script], {
      input: data,
      timeoutMs: Math.max(this.options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS, 60_000),
    });
    if (r.code !== 0)
      throw new Error(`${this.description}: writing ${path} failed (exit ${r.code}): ${r.stderr.trim()}`);
  }

  /** Streams a file to the router on one exec channel (ssh-file-sink.ts); holds a channel slot until closed. */
  async openWrite(path: string, mode?: number): Promise<FileSink> {
    await this.ensureClient();
    const release = await this.slot();
    try {
      const client = await this.ensureClient();
      const channel = await openExec(
        client,
        fileSinkCommand(path, mode),
        this.description,
        () => this.client === client,
      );
      return channelFileSink(channel, { description: this.description, path, release });
    } catch (err) {
      release();
      throw err;
    }
  }

  /** Drops the connection but stays usable: the next command reconnects. */
  async disconnect(): Promise<void> {
    await this.endClient();
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.endClient();
  }

  private async endClient(): Promise<void> {
    const c = this.client;
    this.client = undefined;
    if (c) {
      await new Promise<void>((r) => {
        const t = setTimeout(r, 1_000);
        c.once('close', () => {
          clearTimeout(t);
          r();
        });
        c.end();
      });
    }
  }
}

export function normalizeFingerprint(fp: string): string {
  const t = fp.trim();
  const body = t.startsWith('SHA256:') ? t.slice(7) : t;
  return `SHA256:${body.replace(/=+$/, '')}`;
}
