/**
 * The registry of lab checks: `npm run lab -- check <arch>` boots the guest once and runs,
 * in this order, every check listed here whose `arches` include it. Each check module exports
 * one LabCheck; add yours to `LAB_CHECKS`.
 */
import type { Guest } from '../guest.js';
import { agentOnRouter } from './agent-on-router.js';
import { datapathNftCheck } from './datapath-nft.js';
import { datapathTestRunCheck } from './datapath-testrun.js';
import { datapathCheck } from './datapath.js';
import { routerFacts } from './facts.js';
import { firmwareUpgradeCheck } from './firmware-upgrade.js';
import { flowOffloadCheck } from './flow-offload.js';
import { guestBasics } from './guest-basics.js';
import type { CheckReport, CheckResult, LabCheck } from './lab-check.js';

export * from './lab-check.js';

export const LAB_CHECKS: LabCheck[] = [
  guestBasics,
  routerFacts,
  datapathCheck,
  datapathTestRunCheck,
  datapathNftCheck,
  flowOffloadCheck,
  // Reboots the guest (twice) and leaves it as built, but for a fresh boot.
  firmwareUpgradeCheck,
  agentOnRouter,
];

/** Runs each registered check for the guest's arch; a check that throws is a failed check. */
export async function runChecks(
  guest: Guest,
  checks: readonly LabCheck[] = LAB_CHECKS,
  onReport: (report: CheckReport) => void = () => undefined,
): Promise<CheckReport[]> {
  const reports: CheckReport[] = [];
  for (const check of checks.filter((c) => c.arches.includes(guest.arch))) {
    const started = Date.now();
    let result: CheckResult;
    try {
      result = await check.run(guest);
    } catch (err) {
      result = { ok: false, detail: `threw: ${(err as Error).stack ?? String(err)}` };
    }
    const report = { name: check.name, seconds: Math.round((Date.now() - started) / 100) / 10, ...result };
    reports.push(report);
    onReport(report);
  }
  return reports;
}
