/**
 * Wraps a real RouterHost and lets a test make one command fail or hang: the way to force
 * a failure in the middle of a real apply (everything else runs for real).
 */
import { WrappedHost, type CommandResult, type RouterHost, type RunOptions } from '../../core/host/router-host.js';

export type Fault = { fail: CommandResult } | { replace: string[] };

export class FaultHost extends WrappedHost {
  /** Decides per command; return undefined to run it unchanged. */
  fault: ((argv: string[]) => Fault | undefined) | undefined;
  readonly hits: string[][] = [];

  constructor(inner: RouterHost) {
    super(inner);
  }

  override run(argv: string[], options?: RunOptions): Promise<CommandResult> {
    const f = this.fault?.(argv);
    if (f) this.hits.push(argv);
    if (f && 'fail' in f) return Promise.resolve(f.fail);
    if (f && 'replace' in f) return this.inner.run(f.replace, options);
    return this.inner.run(argv, options);
  }
}

/** Fails only the n-th (1-based) command matching `match`. */
export function nth(
  match: (argv: string[]) => boolean,
  n: number,
  fault: Fault,
): (argv: string[]) => Fault | undefined {
  let seen = 0;
  return (argv) => (match(argv) && ++seen === n ? fault : undefined);
}
