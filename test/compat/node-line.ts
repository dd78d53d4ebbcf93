/**
 * Helpers of the compatibility tier's checks (test/compat/run.sh runs them on each Node line).
 */
import type { ChildProcess } from 'node:child_process';

/**
 * The runner names the Node it meant; vitest's workers run on its own process.execPath, so a
 * mismatch means the tier would be checking the wrong Node.
 */
export function expectNodeOfTheRunner(): void {
  const expected = process.env.WRTFLEET_COMPAT_NODE_VERSION;
  if (expected && process.versions.node !== expected)
    throw new Error(`the compatibility tier asked for Node ${expected}, this is ${process.versions.node}`);
}

/**
 * Polls `check` until it returns a value; fails at once, with the process's own words, when
 * `child` exits first (an agent that cannot enroll exits), instead of waiting out the deadline.
 */
export async function whileRunning<T>(
  child: ChildProcess,
  output: () => string,
  check: () => Promise<T | undefined | null | false>,
  timeoutMs: number,
  what: string,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  for (;;) {
    try {
      const value = await check();
      if (value) return value;
    } catch (err) {
      last = ` (last: ${String(err)})`; // e.g. the controller not listening yet
    }
    const { exitCode, signalCode } = child;
    if (exitCode !== null || signalCode !== null)
      throw new Error(`exited (${exitCode ?? signalCode}) before ${what}:\n${output()}`);
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last}:\n${output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
