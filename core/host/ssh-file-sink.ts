/**
 * A file streamed to the router over one SSH exec channel running `cat > file`, as SshHost's
 * writeFile does but a chunk at a time: dropbear has no SFTP server by default, and a firmware
 * image is too large to hold whole. The channel's flow control is the backpressure: a write
 * resolves once ssh2 took the chunk, or after 'drain' when its window is full.
 */
import type { ClientChannel } from 'ssh2';
import type { FileSink } from './router-host.js';
import { shellQuote } from './ssh-command-channel.js';

/** The remote command: create the file, then copy stdin into it (chmod first, so no mode race). */
export function fileSinkCommand(path: string, mode?: number): string {
  const chmod = mode === undefined ? '' : ` && chmod ${(mode & 0o7777).toString(8)} ${shellQuote(path)}`;
  return `: > ${shellQuote(path)}${chmod} && exec cat > ${shellQuote(path)}`;
}

export function channelFileSink(
  channel: ClientChannel,
  what: { description: string; path: string; release: () => void },
): FileSink {
  let stderr = '';
  let exitCode: number | null = null;
  let closed = false;
  channel.stderr.on('data', (d: Buffer) => (stderr = `${stderr}${d.toString('utf8')}`.slice(-2048)));
  channel.on('data', () => undefined);
  channel.on('exit', (code: number | null) => {
    if (typeof code === 'number') exitCode = code;
  });
  const done = new Promise<void>((resolve) =>
    channel.on('close', () => {
      closed = true;
      what.release();
      resolve();
    }),
  );
  const failure = () =>
    new Error(
      `${what.description}: writing ${what.path} failed (exit ${exitCode ?? 'none'}): ${stderr.trim() || 'channel closed'}`,
    );
  return {
    write: (chunk) =>
      new Promise<void>((resolve, reject) => {
        if (closed) return reject(failure());
        const onClose = () => reject(failure());
        channel.once('close', onClose);
        const accepted = channel.write(chunk, () => undefined);
        const settle = () => {
          channel.off('close', onClose);
          resolve();
        };
        if (accepted) settle();
        else channel.once('drain', settle);
      }),
    close: async () => {
      if (!closed) channel.end();
      await done;
      if (exitCode !== 0) throw failure();
    },
    abort: async () => {
      if (!closed) channel.close();
      await done;
    },
  };
}
