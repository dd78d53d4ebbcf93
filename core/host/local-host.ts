import { execFile } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import {
  DEFAULT_COMMAND_TIMEOUT_MS,
  type CommandResult,
  type FileSink,
  type RouterHost,
  type RunOptions,
} from './router-host.js';

/** The machine the agent process runs on: the on-router placement, and the test host. */
export class LocalHost implements RouterHost {
  readonly description = 'local';

  run(argv: string[], options: RunOptions = {}): Promise<CommandResult> {
    const [file, ...args] = argv;
    if (!file) return Promise.resolve({ code: null, stdout: '', stderr: 'empty command' });
    return new Promise((resolve) => {
      const child = execFile(
        file,
        args,
        { timeout: options.timeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024, encoding: 'utf8' },
        (error, stdout, stderr) => {
          if (!error) return resolve({ code: 0, stdout, stderr });
          const err = error as NodeJS.ErrnoException & { code?: unknown; killed?: boolean };
          // A missing binary answers 127, as a shell would, so callers read "not installed" the same way on every host.
          const code = typeof err.code === 'number' ? err.code : err.code === 'ENOENT' ? 127 : null;
          const reason = err.killed
            ? `timed out after ${options.timeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS} ms`
            : err.message;
          resolve({ code, stdout, stderr: stderr || reason });
        },
      );
      if (options.input !== undefined) child.stdin?.end(options.input);
    });
  }

  async readFile(path: string): Promise<string | null> {
    try {
      return await readFile(path, 'utf8');
    } catch {
      return null;
    }
  }

  async readBinary(path: string): Promise<Buffer | null> {
    try {
      return await readFile(path);
    } catch {
      return null;
    }
  }

  async writeFile(path: string, data: string | Buffer, mode?: number): Promise<void> {
    await writeFile(path, data, mode === undefined ? undefined : { mode });
  }

  async openWrite(path: string, mode?: number): Promise<FileSink> {
    const stream = createWriteStream(path, mode === undefined ? undefined : { mode });
    let failure: Error | undefined;
    stream.on('error', (err) => (failure ??= err));
    await new Promise<void>((resolve, reject) => {
      stream.once('open', () => resolve());
      stream.once('error', reject);
    });
    return {
      write: (chunk) =>
        new Promise<void>((resolve, reject) => {
          if (failure) return reject(failure);
          // Resolved at once unless the stream's buffer is full: then once it drained.
          if (stream.write(chunk)) resolve();
          else stream.once('drain', () => (failure ? reject(failure) : resolve()));
        }),
      close: () =>
        new Promise<void>((resolve, reject) => {
          if (failure) return reject(failure);
          stream.end(() => (failure ? reject(failure) : resolve()));
        }),
      abort: async () => {
        stream.destroy();
      },
    };
  }

  async close(): Promise<void> {}
}
