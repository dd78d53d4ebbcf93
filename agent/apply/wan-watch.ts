/**
 * A WAN that changes while a plan is applied: PPPoE dialling after boot, a DHCP lease
 * arriving, a redialled pppoe-wan (same name, new ifindex), a WAN that goes away.
 *
 * Which interfaces the datapath covers is part of the plan itself (every eligible WAN,
 * agent/datapath/wan-eligibility.ts), so following such a change is not a drift
 * repair: it happens whatever the profile's drift policy says. The ApplyManager polls the
 * eligible set (EligibleWatch, one `ip route` + one `ip link` per tick) while a plan with an
 * eBPF or nftables datapath is applied, and on a change runs `reapplyDatapathForWan` in its
 * queue (never alongside an apply): only the datapath half of the applied plan is brought to
 * the new set (applyEbpf / applyNft, the same applyDatapath a transaction uses), read back,
 * and reported as an ApplyResult of the applied revision whose evidence says
 * `trigger: 'wan-changed'` and what changed. A failure is reported as FAILED and leaves
 * everything else as it was: no rollback, the applied record stays, offloading is untouched.
 */
import type { Eligibility } from '../datapath/wan-eligibility.js';
import type { Plan } from '../../core/plan.js';
import { wanDevices, type WanDevice } from './eligible-watch.js';
import type { RouterDatapath } from './router-datapath.js';
import type { OutboxEntry } from './state-store.js';
import type { AppliedRecord, Reapplied } from './transaction.js';

export const WAN_TRIGGER = 'wan-changed';

/** Whether the plan has anything to attach to a WAN (the watch runs only then). */
export function followsWan(plan: Plan): boolean {
  return plan.datapath.mode !== 'none';
}

/** An outbox entry that reports a WAN change (the outbox keeps only the latest few). */
export function isWanReport(entry: OutboxEntry): boolean {
  return (
    entry.$case === 'applyResult' && (entry.value.evidence as { trigger?: string } | undefined)?.trigger === WAN_TRIGGER
  );
}

const dev = (d: WanDevice) => `${d.ifname} (ifindex ${d.ifindex})`;

/**
 * What changed between two eligible sets: as seen ("wan0 (ifindex 5) appeared") and as done
 * about it ("attached to wan0 (ifindex 5)").
 */
export function describeWanChange(
  before: readonly WanDevice[],
  after: readonly WanDevice[],
): { seen: string[]; done: string[] } {
  const was = new Map(before.map((d) => [d.ifname, d]));
  const is = new Set(after.map((d) => d.ifname));
  const seen: string[] = [];
  const done: string[] = [];
  for (const d of after) {
    const old = was.get(d.ifname);
    if (!old) {
      seen.push(`${dev(d)} appeared`);
      done.push(`attached to ${dev(d)}`);
    } else if (old.ifindex !== d.ifindex) {
      seen.push(`${d.ifname} re-created (ifindex ${old.ifindex} -> ${d.ifindex})`);
      done.push(`re-attached to ${d.ifname} (device re-created, ifindex ${old.ifindex} -> ${d.ifindex})`);
    }
  }
  for (const d of before) {
    if (is.has(d.ifname)) continue;
    seen.push(`${d.ifname} is no longer an eligible WAN interface`);
    done.push(`detached from ${d.ifname}`);
  }
  if (after.length === 0) done.push('no eligible WAN interface now');
  return { seen, done };
}

/**
 * Brings the datapath of `applied` (and nothing else) to the eligible set `now`, then reads
 * the router back. Never throws: a failure is in the result, with what runs now.
 */
export async function reapplyDatapathForWan(
  datapath: RouterDatapath,
  applied: AppliedRecord,
  before: readonly WanDevice[],
  now: Eligibility,
): Promise<Reapplied> {
  const after = wanDevices(now);
  const change = describeWanChange(before, after);
  // Offloading is not this step's business (drift reports it).
  const { error, evidence: done } = await datapath.reapply(applied, { offload: false });
  const summary = `wan changed: ${(error ? change.seen : change.done).join('; ')}`;
  const evidence: Record<string, unknown> = {
    trigger: WAN_TRIGGER,
    wan: { before, after, skipped: now.skipped },
    ...done,
    summary,
  };
  if (!error) return { ok: true, summary, evidence };
  return {
    ok: false,
    summary,
    evidence,
    error: `${summary}: ${error}; the rest of ${applied.profile}@${applied.revision} is left as it was`,
  };
}
