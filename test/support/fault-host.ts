/**
 * Wraps a real RouterHost and lets a test make one command fail or hang: the way to force
 * a failure in the middle of a real apply (everything else runs for real).
 */
import type { CommandResult, RouterHost, RunOptions } from '../../agent/host/host.js';

export type Fault = { fail: CommandResult } | { replace: string[] };

export class FaultHost implements RouterHost {
  readonly description: string;
  /** Decides per command; return undefined to run it unchanged. */
  fault: ((argv: string[]) => Fault | undefined) | undefined;
  readonly hits: string[][] = [];

  constructor(readonly inner: RouterHost) {
    this.description = inner.description;
  }

  run(argv: string[], options?: RunOptions): Promise<CommandResult> {
    const f = this.fault?.(argv);
    if (f) this.hits.push(argv);
    if (f && 'fail' in f) return Promise.resolve(f.fail);
    if (f && 'replace' in f) return this.inner.run(f.replace, options);
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

  close(): Promise<void> {
    return this.inner.close();
  }
}

/** Fails only the n-th (1-based) command matching `match`. */
export function nth(match: (argv: string[]) => boolean, n: number, fault: Fault): (argv: string[]) => Fault | undefined {
  let seen = 0;
  return (argv) => (match(argv) && ++seen === n ? fault : undefined);
}
