/**
 * The lab tier's suite for one guest: it boots the guest once and runs checks of the registry
 * (lab/checks/index.ts) as tests of their own, the same checks and verdicts as
 * `npm run lab -- check <arch>`. A guest that cannot be built or booted fails every test with
 * the reason and the serial log's last lines; nothing is skipped.
 *
 * The tier is two files, one per core, each booting one guest at a time: mipsel.test.ts runs
 * the mipsel checks but those in SEPARATE_GUEST_CHECKS; mips.test.ts runs the mips checks, then
 * those on a second mipsel guest. So every registered check runs once on its arch, and the two
 * files take about the same time (the agent check alone is three minutes of emulated Node).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LAB_CHECKS, type CheckResult } from '../../lab/checks/index.js';
import { serialLogTail, startGuest, type Guest } from '../../lab/guest.js';
import type { LabArch } from '../../lab/image-cache.js';

/** Longer than any check's slowest run seen here (agent-on-router: 5 min with a core to share). */
const CHECK_TIMEOUT_MS = 15 * 60_000;

function verdict(result: CheckResult): string {
  const failed = (result.steps ?? []).filter((s) => !s.ok).map((s) => `  - ${s.name}: ${s.detail}`);
  return [result.detail, ...failed].join('\n');
}

/** Checks the tier runs on a guest of their own (the mipsel instance "b"). */
export const SEPARATE_GUEST_CHECKS: readonly string[] = ['agent-on-router'];

export interface LabSuiteOptions {
  /** Boot a second guest of the arch (lab/guest.ts `instance`). */
  instance?: string;
  /** Which of the arch's registered checks: all of them by default. */
  checks?: (name: string) => boolean;
}

export function describeLabChecks(
  arch: LabArch,
  options: LabSuiteOptions = {},
  more?: (guest: () => Guest) => void,
): void {
  const name = options.instance ? `${arch}-${options.instance}` : arch;
  const checks = LAB_CHECKS.filter((c) => c.arches.includes(arch) && (options.checks?.(c.name) ?? true));
  describe(`lab ${name}: a real MIPS kernel under QEMU, driven as a router`, () => {
    let guest: Guest | undefined;
    let bootError: unknown;
    const booted = (): Guest => {
      if (!guest) throw new Error(`the ${name} guest did not boot: ${(bootError as Error)?.message ?? bootError}`);
      return guest;
    };

    beforeAll(async () => {
      try {
        guest = await startGuest(arch, { instance: options.instance, log: () => undefined });
      } catch (err) {
        bootError = err; // every test below fails with it
      }
    });

    afterAll(async () => {
      await guest?.stop();
    }, 60_000);

    for (const check of checks) {
      it(
        check.name,
        async () => {
          const g = booted();
          const started = Date.now();
          const result = await check.run(g).catch((err: Error) => {
            throw new Error(`${check.name} threw: ${err.stack}\n--- serial log ---\n${serialLogTail(g)}`, {
              cause: err,
            });
          });
          // The measurements go to the test log: the issue notes quote them.
          console.log(
            `${name} ${check.name} (${((Date.now() - started) / 1000).toFixed(1)} s): ${JSON.stringify(result.numbers ?? {})}`,
          );
          expect(result.ok, verdict(result)).toBe(true);
        },
        CHECK_TIMEOUT_MS,
      );
    }

    more?.(booted);
  });
}
