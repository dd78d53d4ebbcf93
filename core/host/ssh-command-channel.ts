/**
 * One command on one SSH exec channel: the channel is opened (retried while the server still
 * reaps the previous command), the command reports its pid first so that a timeout can kill
 * its process group through a second channel, and the output is collected until the channel
 * closes. SshHost owns the connection and the channel slots; this is what runs inside a slot.
 */
import type { Client, ClientChannel } from 'ssh2';
import { SshError } from './ssh-error.js';

const PID_MARK = '__wfpid:';

/** A command's raw result: exit code (null when killed or lost), stdout bytes, stderr text. */
export interface ChannelOutput {
  code: number | null;
  stdout: Buffer;
  stderr: string;
}

/** POSIX shell single-quoting: the remote side always runs commands through a shell. */
export function shellQuote(arg: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(arg)) return arg;
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** `exec` replaces the reporting shell, so the pid is the command's own (and its process group's). */
export function pidReportingCommand(argv: string[]): string {
  return `echo ${PID_MARK}$$ >&2; exec ${argv.map(shellQuote).join(' ')}`;
}

function openExecOnce(client: Client, command: string, description: string): Promise<ClientChannel> {
  return new Promise((resolve, reject) => {
    client.exec(command, (err, channel) =>
      err
        ? reject(new SshError('protocol', `${description}: cannot open a channel: ${err.message}`, err))
        : resolve(channel),
    );
  });
}

/**
 * The server frees a session slot only once it has reaped the previous command, which
 * can lag behind our close: a refused open ("open failed") is retried a few times, as long as
 * `current()` says the connection is still the host's.
 */
export async function openExec(
  client: Client,
  command: string,
  description: string,
  current: () => boolean,
): Promise<ClientChannel> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await openExecOnce(client, command, description);
    } catch (err) {
      const refused = /open failed|administratively prohibited|resource shortage/i.test((err as Error).message);
      if (!refused || attempt >= 6 || !current()) throw err;
      await new Promise((r) => setTimeout(r, 10 * 2 ** attempt));
    }
  }
}

/** Kills a timed-out command's process group (dropbear ignores SSH "signal" requests). */
export async function killRemoteGroup(
  client: Client,
  pid: number | undefined,
  description: string,
  current: () => boolean,
): Promise<void> {
  if (!pid) return;
  try {
    const ch = await openExec(client, `kill -KILL -${pid} 2>/dev/null || kill -KILL ${pid}`, description, current);
    await new Promise<void>((r) => {
      const t = setTimeout(r, 3_000);
      ch.on('close', () => {
        clearTimeout(t);
        r();
      });
      ch.resume();
      ch.stderr.resume();
      ch.end();
    });
  } catch {
    /* best effort: the channel close that follows still ends our side */
  }
}

export interface CollectOptions {
  timeoutMs: number;
  input?: string | Buffer;
  description: string;
  /** Called on timeout with the pid the command reported (if it did) before the channel closes. */
  killRemote: (pid: number | undefined) => Promise<void>;
  /** True once the connection the channel belongs to is gone. */
  connectionLost: () => boolean;
}

/** Feeds the input, collects the output and resolves when the channel closes or times out. */
export function collectChannel(channel: ClientChannel, options: CollectOptions): Promise<ChannelOutput> {
  const { timeoutMs, description } = options;
  return new Promise((resolve) => {
    const out: Buffer[] = [];
    let err = '';
    let pid: number | undefined;
    let timedOut = false;
    let done = false;
    channel.on('data', (d: Buffer) => out.push(d));
    channel.stderr.on('data', (d: Buffer) => {
      err += d.toString('utf8');
      if (pid === undefined) {
        const m = err.match(new RegExp(`^${PID_MARK}(\\d+)\\n`));
        if (m) {
          pid = Number(m[1]);
          err = err.slice(m[0].length);
        }
      }
    });
    const timer = setTimeout(() => {
      timedOut = true;
      void options.killRemote(pid).finally(() => {
        try {
          channel.signal('KILL');
        } catch {
          /* the channel may already be gone */
        }
        channel.close();
        finish(null);
      });
    }, timeoutMs);
    const finish = (code: number | null) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      const sep = err && !err.endsWith('\n') ? '\n' : '';
      // A channel closed without an exit status because the connection died: say so, or the caller sees a silent failure.
      const lost = !timedOut && code === null && options.connectionLost();
      const stderr = timedOut
        ? `${err}${sep}timed out after ${timeoutMs} ms (remote command killed)`
        : lost
          ? `${err}${sep}${description}: connection lost during the command`
          : err;
      resolve({ code: timedOut ? null : code, stdout: Buffer.concat(out), stderr });
    };
    let exitCode: number | null = null;
    channel.on('exit', (code: number | null) => {
      if (typeof code === 'number') exitCode = code;
    });
    // 'close' comes after the last data; ssh2 passes the exit code again, but 'exit' is the reliable one.
    channel.on('close', (code: unknown) => finish(typeof code === 'number' ? code : exitCode));
    if (options.input !== undefined) channel.end(options.input);
    else channel.end();
  });
}
