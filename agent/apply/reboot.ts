/**
 * A router that rebooted since its plan was applied: the kernel state is gone (bpffs pins,
 * TCX links, cls_bpf filters, our nftables table), the uci settings on flash are not. Nothing
 * else would notice: the WAN watch takes its first reading after a start as the baseline,
 * drift only re-applies with policy 'reapply', and the controller does not send a revision
 * the router already reports as applied.
 *
 * So the agent records the kernel's boot id (/proc/sys/kernel/random/boot_id, read through
 * the RouterHost, so over SSH too) with the applied state each time a plan is applied,
 * re-applied or restored (AgentState.bootId). When the agent starts with an applied plan and
 * the boot id differs from the recorded one, the ApplyManager puts that plan back
 * (`reapplyAfterReboot`: its datapath and offload settings through `reapplyRecord`, the step
 * a WAN change uses, then read back), whatever the drift policy, reports an ApplyResult of the
 * applied revision whose evidence says `trigger: 'reboot'`, and records the new boot id. A
 * failure is reported as FAILED and leaves the applied record (and the old boot id, so the
 * next start tries again) as it was. A commit-confirm window still open at the reboot is not
 * re-applied: the router rolls back to the last confirmed revision at once (the unconfirmed
 * one no longer runs, so there is nothing the controller could confirm).
 *
 * Same boot id: an agent restart, nothing is re-applied. Where the boot id cannot be read,
 * null is recorded and nothing is decided by it (drift checks report what is missing).
 */
import type { RouterHost } from '../../core/host/router-host.js';
import type { BootIdReading, RouterDatapath } from './router-datapath.js';
import type { AppliedRecord, Reapplied } from './transaction.js';

export const REBOOT_TRIGGER = 'reboot';
export const BOOT_ID_PATH = '/proc/sys/kernel/random/boot_id';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The running kernel's boot id, or null and why it cannot be had. Never throws. */
export async function readBootId(host: RouterHost): Promise<BootIdReading> {
  let text: string | null;
  try {
    text = await host.readFile(BOOT_ID_PATH);
  } catch (err) {
    return { id: null, reason: `reading ${BOOT_ID_PATH} on ${host.description} failed: ${(err as Error).message}` };
  }
  if (text === null) return { id: null, reason: `${BOOT_ID_PATH} cannot be read on ${host.description}` };
  const id = text.trim();
  if (!UUID.test(id))
    return {
      id: null,
      reason: `${BOOT_ID_PATH} on ${host.description} holds no boot id (${JSON.stringify(id.slice(0, 60))})`,
    };
  return { id };
}

/** "eBPF datapath on wan0, offload software" */
function describePlan(applied: AppliedRecord, eligible: unknown): string {
  const plan = applied.plan;
  const on = Array.isArray(eligible) && eligible.length > 0 ? eligible.join(', ') : 'no eligible WAN interface yet';
  const datapath =
    plan.datapath.mode === 'ebpf'
      ? `eBPF datapath on ${on}`
      : plan.datapath.mode === 'nftables' || plan.datapath.mode === 'iptables'
        ? `${plan.datapath.mode} datapath on ${on}`
        : 'no datapath';
  return plan.offload.uci ? `${datapath}, offload ${plan.offload.mode}` : datapath;
}

/**
 * Puts `applied` back after a reboot (datapath and offload) and reads the router back. Never
 * throws: a failure is in the result, with what runs now.
 */
export async function reapplyAfterReboot(
  datapath: RouterDatapath,
  applied: AppliedRecord,
  bootId: { recorded: string; now: string },
): Promise<Reapplied> {
  const { error, evidence: done } = await datapath.reapply(applied, { offload: true });
  const what = describePlan(applied, done.eligible);
  const summary = error ? `router rebooted: ${what} not re-established` : `router rebooted: re-applied ${what}`;
  const evidence: Record<string, unknown> = { trigger: REBOOT_TRIGGER, bootId, ...done, summary };
  if (!error) return { ok: true, summary, evidence };
  return {
    ok: false,
    summary,
    evidence,
    error: `${summary}: ${error}; ${applied.profile}@${applied.revision} stays the applied revision`,
  };
}
