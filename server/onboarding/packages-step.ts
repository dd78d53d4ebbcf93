/**
 * The onboarding job's packages step: what the plan needs on the router, installed when the
 * operator said so, otherwise a failure naming the packages and the command that installs them.
 */
import type { RouterFacts } from '../../core/facts/index.js';
import type { SshHost } from '../../core/host/ssh-host.js';
import { StepFailure, type Undo } from './job-failure.js';
import type { JobRecord } from './job-record.js';
import { installPackages, PackageError, planPackages } from './packages.js';

/** A package manager's refusal already says what to do about it: that message is the job's error. */
async function asStepFailure<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    throw err instanceof PackageError ? new StepFailure(err.message) : err;
  }
}

/** Writes what it found to `result.packages` before anything can fail, so a failed job shows it. */
export async function ensurePackages(
  ssh: SshHost,
  facts: RouterFacts,
  job: { install: boolean; record: JobRecord; undo: Undo[]; result: Record<string, unknown> },
): Promise<void> {
  const { record } = job;
  const plan = await asStepFailure(planPackages(ssh, facts));
  const packages: Record<string, unknown> = {
    manager: plan.manager,
    present: plan.present,
    missing: plan.missing,
    installed: [],
  };
  job.result.packages = packages;
  if (plan.missing.length > 0) {
    if (!job.install) {
      const list = plan.missing.join(' ');
      packages.installCommand = plan.manager === 'apk' ? `apk add ${list}` : `opkg update && opkg install ${list}`;
      await record.audit('packages_missing', packages);
      throw new StepFailure(
        `missing packages: ${list} (re-run with install: true, or run \`${packages.installCommand}\` on the router)`,
      );
    }
    await record.progress('packages', 35, `installing ${plan.missing.join(' ')}`);
    const done = await asStepFailure(installPackages(ssh, plan.manager!, plan.missing));
    packages.installed = done.installed;
    job.undo.push({ what: `packages installed: ${done.installed.join(' ')} (left in place)`, run: async () => {} });
  }
  await record.audit('packages_checked', packages);
}
