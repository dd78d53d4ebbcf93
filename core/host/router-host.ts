/**
 * The router as the agent sees it: a place to run commands and read files.
 *
 * Every piece of agent logic (facts, probes, apply, drift) talks to a RouterHost and
 * never to child_process or fs directly, so the same code runs:
 *  - on the router itself (LocalHost),
 *  - as a proxy driving the router over SSH (an SSH-backed host, added later),
 *  - against a fixture file tree in tests and the demo fleet (FixtureHost).
 */
export interface CommandResult {
  /** Exit status; null when the command could not be started or was killed. */
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  /** Kill the command after this many milliseconds (default 15 000). */
  timeoutMs?: number;
  /** Bytes written to the command's standard input. */
  input?: string | Buffer;
}

/**
 * A file being written on the router a chunk at a time (a firmware image: never held whole in
 * the agent's memory). Each write resolves once the bytes are accepted, so a slow router
 * slows the sender down instead of filling the agent's heap.
 */
export interface FileSink {
  write(chunk: Uint8Array): Promise<void>;
  /** Finishes the file; rejects with what the router said when it could not be written whole. */
  close(): Promise<void>;
  /** Stops writing; what was written stays (the caller removes it). Never throws. */
  abort(): Promise<void>;
}

export interface RouterHost {
  /** Short human description for logs and errors, e.g. "local", "ssh root@10.0.0.1:22". */
  readonly description: string;
  /** Runs argv[0] with the remaining arguments; no shell unless argv is ['sh', '-c', ...]. */
  run(argv: string[], options?: RunOptions): Promise<CommandResult>;
  /** Reads a file as UTF-8; null when it does not exist or cannot be read. */
  readFile(path: string): Promise<string | null>;
  /** Reads a file as bytes; null when it does not exist or cannot be read. */
  readBinary(path: string): Promise<Buffer | null>;
  /** Writes (creating or replacing) a file. */
  writeFile(path: string, data: string | Buffer, mode?: number): Promise<void>;
  /** Creates (or replaces) a file and streams into it; absent on hosts that cannot write (fixtures). */
  openWrite?(path: string, mode?: number): Promise<FileSink>;
  /** Releases connections held by the host (no-op for local hosts). */
  close(): Promise<void>;
}

/**
 * Runs argv on `host` and returns its stdout (with `output: 'stdout+stderr'`, both: for tools
 * that print warnings on stderr and succeed); a failure is an error naming the command, its
 * exit status and the last lines of what it printed.
 */
export async function runChecked(
  host: RouterHost,
  argv: string[],
  options: RunOptions & { output?: 'stdout' | 'stdout+stderr' } = {},
): Promise<string> {
  const { output = 'stdout', ...runOptions } = options;
  const r = await host.run(argv, runOptions);
  if (r.code !== 0)
    throw new Error(
      `${argv.join(' ')} (exit ${r.code ?? 'none'}): ${(r.stderr || r.stdout).trim().split('\n').slice(-6).join(' | ')}`,
    );
  return output === 'stdout' ? r.stdout : `${r.stdout}${r.stderr}`;
}

/**
 * A host that runs on another host: files, and whatever a subclass does not override, go to
 * `inner` unchanged (a namespace wrapper changes how commands run, a test wrapper which ones).
 */
export abstract class WrappedHost implements RouterHost {
  readonly description: string;

  constructor(
    readonly inner: RouterHost,
    description = inner.description,
  ) {
    this.description = description;
  }

  run(argv: string[], options?: RunOptions): Promise<CommandResult> {
    return this.inner.run(argv, options);
  }

  readFile(path: string): Promise<string | null> {
    return this.inner.readFile(path);
  }

  readBinary(path: string): Promise<Buffer | null> {
    return this.inner.readBinary(path);
  }

  writeFile(path: string, data: string | Buffer, mode?: number): Promise<void> {
    return this.inner.writeFile(path, data, mode);
  }

  openWrite(path: string, mode?: number): Promise<FileSink> {
    if (!this.inner.openWrite) return Promise.reject(new Error(`${this.description}: cannot stream a file`));
    return this.inner.openWrite(path, mode);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

export const DEFAULT_COMMAND_TIMEOUT_MS = 15_000;
