/**
 * One transactional apply of a plan to a router: snapshot, apply, read back, verify; on any
 * failure restore the snapshot. The router is never left half-configured: either the plan
 * runs and the evidence proves it, or the state before is back (and the result says whether
 * the restore itself was verified).
 *
 * The snapshot is taken from the router (normalized live state, uci offload values, our
 * nftables table and iptables chains) plus the record of what was applied before. Restoring re-applies that
 * earlier record (or removes everything we own when there was none) and then checks the
 * router against the snapshot, ignoring only kernel-assigned ids (a reloaded program is
 * the same program with a new id).
 */
import {
  applyNft,
  detachEbpf,
  ensureRewrite,
  removeNft,
  removeRewrite,
  type DatapathOptions,
} from '../datapath/index.js';
import { applyIptables, removeIptables, restoreIptables, type LiveIptables } from '../datapath/iptables.js';
import type { RouterHost } from '../../core/host/router-host.js';
import { applyOffload, readUciOffload, type OffloadApplyEvidence, type UciOffloadValues } from '../offload/index.js';
import { rewriteConfigOf, type Plan } from '../../core/plan.js';
import { canonicalJson } from '../../core/canonical-json.js';
import type { ProfileSpec } from '../../core/profile-spec.js';
import { comparePlanToLive, uciTarget, VerifyError } from './plan-verify.js';
import { cachedOffloadSupport, normalizeLive, readLive, type DatapathPaths, type LiveState } from './live.js';
import { isoTime } from '../iso-time.js';

export interface AppliedRecord {
  profile: string;
  revision: number;
  planHash: string;
  spec: ProfileSpec;
  plan: Plan;
  appliedAt: string;
}

export interface Snapshot {
  takenAt: string;
  normalized: unknown;
  uci: UciOffloadValues | null;
  nftRuleset: string | null;
  /** Our iptables chains as they were (null when there were none). */
  iptables: LiveIptables | null;
  previous: AppliedRecord | null;
}

export type ApplyOutcome =
  | { status: 'applied'; evidence: Record<string, unknown>; changed: boolean }
  | { status: 'failed'; error: string; evidence: Record<string, unknown>; restore: RestoreReport };

export interface RestoreReport {
  ok: boolean;
  problems: string[];
  error?: string;
}

export interface TransactionOptions {
  paths?: DatapathPaths;
  /** Test hook: runs between the datapath and the offload step (e.g. to inject a failure). */
  afterDatapath?: () => Promise<void>;
  /** prefer-offload with flowOffload.mode hardware: fw4 falling back to software fails the apply. */
  requireHardware?: boolean;
}

export { comparePlanToLive, VerifyError, type Difference } from './plan-verify.js';

export function requiresHardware(spec: ProfileSpec): boolean {
  return spec.conflictPolicy === 'prefer-offload' && spec.flowOffload.mode === 'hardware';
}

function datapathOptions(plan: Plan, paths: DatapathPaths): DatapathOptions & { fallback: false } {
  return {
    rewrite: rewriteConfigOf(plan),
    mode: plan.datapath.attach ?? undefined,
    endian: plan.datapath.bpfObject ?? undefined,
    pinRoot: paths.pinRoot,
    helper: paths.helper,
    uploadDir: paths.uploadDir,
    // The plan (with probed capabilities) is the authority: an eBPF failure is an error to roll back, not a silent switch.
    fallback: false,
  };
}

/** Brings the datapath to what `plan` says (idempotent: the loader and nft table are). */
export async function applyDatapath(
  host: RouterHost,
  plan: Plan,
  paths: DatapathPaths,
): Promise<Record<string, unknown>> {
  const opts = datapathOptions(plan, paths);
  // One datapath at a time: whatever the others left is removed (each remove is a no-op when absent).
  if (plan.datapath.mode !== 'iptables') await removeIptables(host, paths.iptables);
  if (plan.datapath.mode === 'ebpf') {
    // Our nft table first: ensureRewrite removes it only after attaching, and removeNft then
    // restores gso_max_segs over the value applyEbpf just set (and recorded the lowered value as
    // the original). Removing it first costs a moment without rewriting when switching from the
    // nftables fallback to eBPF; the originals stay right.
    await removeNft(host);
    return { ...(await ensureRewrite(host, opts)) };
  }
  if (plan.datapath.mode === 'nftables') {
    await detachEbpf(host, opts);
    return { ...(await applyNft(host, opts)) };
  }
  if (plan.datapath.mode === 'iptables') {
    await detachEbpf(host, opts);
    await removeNft(host);
    return { ...(await applyIptables(host, { rewrite: opts.rewrite, iptables: paths.iptables })) };
  }
  await removeRewrite(host, opts);
  return { mode: 'none' };
}

/**
 * The offload half of a plan: its uci values applied (the firewall reloaded when they or the
 * live flowtable or FLOWOFFLOAD rule differ), as evidence. `supported`: uci and fw4 or fw3 can
 * be managed on this router.
 */
async function applyPlanOffload(host: RouterHost, plan: Plan, supported: boolean): Promise<Record<string, unknown>> {
  const target = uciTarget(plan);
  if (!target) return { managed: false, reason: 'not OpenWrt: no uci/firewall' };
  if (!supported)
    return { unsupported: 'flow offloading is not manageable on this router (no uci, or neither fw4 nor fw3)' };
  const o: OffloadApplyEvidence = await applyOffload(host, target);
  return {
    firewall: o.support.firewall,
    uci: o.uci,
    live: o.live,
    fallback: o.fallback,
    ...(o.support.firewall === 'fw3' ? { rules: o.rules, flows: o.flows } : { flowtables: o.flowtables }),
    changes: o.changes,
    warnings: o.warnings,
  };
}

/** A re-applied record (WAN change, reboot), as reported: an ApplyResult of the applied revision. */
export interface Reapplied {
  ok: boolean;
  /** One line: what happened ("wan changed: attached to wan0 (ifindex 5)"). */
  summary: string;
  error?: string;
  evidence: Record<string, unknown>;
}

/**
 * Puts an applied plan back on a router that lost part of it (a WAN that changed, a reboot),
 * without a transaction: the record says what runs, there is nothing earlier to restore.
 * The datapath (and with `offload`, the offload settings) is applied again, then the router
 * is read back and compared with the plan (offload left out without `offload`). Never throws:
 * `error` says what failed and the evidence what runs now, the part that held included.
 */
export async function reapplyRecord(
  host: RouterHost,
  paths: DatapathPaths,
  applied: AppliedRecord,
  { offload }: { offload: boolean },
): Promise<{ error?: string; evidence: Record<string, unknown> }> {
  const plan = applied.plan;
  const evidence: Record<string, unknown> = { datapathMode: plan.datapath.mode };
  const errors: string[] = [];
  try {
    const result = await applyDatapath(host, plan, paths);
    evidence.changes = (result as { changes?: string[] }).changes ?? [];
  } catch (err) {
    errors.push(`re-applying the datapath failed: ${(err as Error).message}`);
  }
  if (offload) {
    try {
      evidence.offload = await applyPlanOffload(host, plan, (await cachedOffloadSupport(host)).supported);
    } catch (err) {
      errors.push(`re-applying the offload settings failed: ${(err as Error).message}`);
    }
  }
  try {
    const live = await readLive(host, paths);
    evidence.datapath = summarizeDatapath(live);
    evidence.eligible = live.eligible;
    const differences = comparePlanToLive(plan, live, { requireHardware: requiresHardware(applied.spec) }).filter(
      (d) => offload || !d.path.startsWith('offload'),
    );
    if (differences.length > 0) {
      evidence.differences = differences;
      if (errors.length === 0) errors.push(new VerifyError(differences).message);
    }
  } catch (err) {
    if (errors.length === 0) errors.push(`reading the router back failed: ${(err as Error).message}`);
  }
  return errors.length > 0 ? { error: errors.join('; '), evidence } : { evidence };
}

export async function takeSnapshot(
  host: RouterHost,
  paths: DatapathPaths,
  previous: AppliedRecord | null,
): Promise<Snapshot> {
  const live = await readLive(host, paths);
  return {
    takenAt: isoTime(),
    normalized: normalizeLive(live),
    uci: live.offload.support.supported ? live.offload.uci : null,
    nftRuleset: live.nft.ruleset,
    iptables: live.iptables.present ? live.iptables : null,
    previous,
  };
}

export async function restoreSnapshot(host: RouterHost, paths: DatapathPaths, snap: Snapshot): Promise<RestoreReport> {
  try {
    if (snap.previous) await applyDatapath(host, snap.previous.plan, paths);
    else {
      await removeRewrite(host, { pinRoot: paths.pinRoot, helper: paths.helper });
      await removeIptables(host, paths.iptables);
      // A table or chains of ours without a record (agent state lost): put their exact text back.
      if (snap.nftRuleset) {
        const r = await host.run(['nft', '-f', '-'], { input: `${snap.nftRuleset}\n` });
        if (r.code !== 0) throw new Error(`restoring our nftables table: ${r.stderr.trim()}`);
      }
      if (snap.iptables) await restoreIptables(host, snap.iptables, paths.iptables);
    }
    if (snap.uci) {
      const now = await readUciOffload(host);
      if (now.flow_offloading !== snap.uci.flow_offloading || now.flow_offloading_hw !== snap.uci.flow_offloading_hw)
        await applyOffload(host, snap.uci);
    }
    const after = normalizeLive(await readLive(host, paths));
    const same = canonicalJson(after) === canonicalJson(snap.normalized);
    return same
      ? { ok: true, problems: [] }
      : {
          ok: false,
          problems: [
            `state after restore differs from the snapshot: before ${canonicalJson(snap.normalized)} after ${canonicalJson(after)}`,
          ],
        };
  } catch (err) {
    return { ok: false, problems: [], error: (err as Error).message };
  }
}

/**
 * The transaction. `previous` is what runs now according to the agent's record; it is the
 * restore target on failure.
 */
export async function applyTransaction(
  host: RouterHost,
  plan: Plan,
  previous: AppliedRecord | null,
  options: TransactionOptions = {},
): Promise<ApplyOutcome & { snapshot: Snapshot | null }> {
  const paths = options.paths ?? {};
  const t0 = Date.now();
  const steps: Record<string, number> = {};
  let snapshot: Snapshot | null = null;
  const evidence: Record<string, unknown> = { planHash: plan.planHash };
  try {
    snapshot = await takeSnapshot(host, paths, previous);
    steps.snapshotMs = Date.now() - t0;
    const before = snapshot.normalized;

    const t1 = Date.now();
    const datapath = await applyDatapath(host, plan, paths);
    steps.datapathMs = Date.now() - t1;
    await options.afterDatapath?.();

    const t2 = Date.now();
    const offload = await applyPlanOffload(host, plan, snapshot.uci !== null);
    steps.offloadMs = Date.now() - t2;

    const t3 = Date.now();
    const live = await readLive(host, paths);
    const differences = comparePlanToLive(plan, live, { requireHardware: options.requireHardware });
    steps.verifyMs = Date.now() - t3;
    if (differences.length > 0) throw new VerifyError(differences);
    const after = normalizeLive(live);

    evidence.datapath = summarizeDatapath(live);
    evidence.changes = (datapath as { changes?: string[] }).changes ?? [];
    evidence.offload = offload;
    evidence.eligible = live.eligible;
    if (live.eligible.length === 0 && plan.datapath.mode !== 'none')
      evidence.warning =
        'no eligible WAN interface right now (no IPv4 default route over Ethernet/PPP): nothing attached yet; the agent attaches the datapath as soon as one appears';
    evidence.timingsMs = { ...steps, totalMs: Date.now() - t0 };
    return { status: 'applied', evidence, changed: canonicalJson(before) !== canonicalJson(after), snapshot };
  } catch (err) {
    const error = err instanceof VerifyError ? err.message : `apply failed: ${(err as Error).message}`;
    const restore: RestoreReport = snapshot
      ? await restoreSnapshot(host, paths, snapshot)
      : { ok: true, problems: ['failed before the snapshot: nothing was changed'] };
    evidence.timingsMs = { ...steps, totalMs: Date.now() - t0 };
    if (err instanceof VerifyError) evidence.differences = err.differences;
    evidence.restore = restore;
    return { status: 'failed', error, evidence, restore, snapshot };
  }
}

export function summarizeDatapath(live: LiveState): Record<string, unknown> {
  return {
    ebpf: live.ebpf.interfaces.map((i) => ({
      ifname: i.ifname,
      ifindex: i.ifindex,
      mode: i.mode,
      programs: i.programs.map((p) => ({
        program: p.program,
        fingerprint: p.fingerprint,
        progId: p.progId,
        ...(p.linkId !== undefined ? { linkId: p.linkId } : {}),
        ...(p.prio !== undefined ? { prio: p.prio } : {}),
      })),
      ...(i.gsoMaxSegs ? { gsoMaxSegs: i.gsoMaxSegs } : {}),
    })),
    nftables: live.nft.present
      ? { table: 'inet wrtfleet', interfaces: live.nft.interfaces, rules: live.nft.rules }
      : null,
    iptables: live.iptables.present
      ? { chain: 'mangle wrtfleet_egress', interfaces: live.iptables.interfaces, rules: live.iptables.rules }
      : null,
  };
}

/** Removes every datapath piece we own (programs, links, filters, our nft table, our iptables chains). */
export async function detachAll(host: RouterHost, paths: DatapathPaths): Promise<void> {
  await detachEbpf(host, { pinRoot: paths.pinRoot, helper: paths.helper });
  await removeNft(host);
  await removeIptables(host, paths.iptables);
}
