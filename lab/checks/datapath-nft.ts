/**
 * The nftables fallback (agent/datapath/nft.ts) on a lab guest, reached the way the agent
 * reaches it: a plan with eBPF turned off by the profile (`ebpf: off`) or found unavailable
 * (the probe's eBPF flag false, `ebpf: auto`), applied by the agent's transaction over SSH.
 * Then the rewrites on the wire at the WAN peer (nftables does all four and the IPv6 hop
 * limit), and detach leaving the guest as found.
 */
import { applyTransaction, detachAll } from '../../agent/apply/transaction.js';
import { runChecked } from '../../core/host/router-host.js';
import {
  LAB_SPEC,
  judgeRound,
  lanGro,
  planFor,
  probeGuest,
  REWRITTEN,
  Verdict,
  type DatapathCheckResult,
  type DatapathGuest,
} from './datapath.js';
import { guestState, stateDiff, UPLOAD_DIR } from './guest-state.js';
import type { LabCheck } from './lab-check.js';
import { LabTraffic } from './wire-traffic.js';

export async function runNftCheck(guest: DatapathGuest, bytes = '64K'): Promise<DatapathCheckResult> {
  const { host, arch } = guest;
  const v = new Verdict();
  const numbers: Record<string, number> = {};
  const report: Record<string, unknown> = {};
  const t0 = Date.now();

  const found = await guestState(host);
  const { facts, helper, probed } = await probeGuest(host);
  const paths = { helper: helper.path, uploadDir: UPLOAD_DIR };
  // Forced by the profile, and chosen for want of eBPF: both must plan the nftables fallback.
  const forced = planFor({ ...LAB_SPEC, l3Rewrite: { ...LAB_SPEC.l3Rewrite, ebpf: 'off' } }, facts, probed);
  const unavailable = planFor(LAB_SPEC, facts, {
    flags: { ...probed.flags, ebpf: false, tcx: false },
    reasons: { ...probed.reasons, ebpf: 'lab: eBPF taken away to exercise the fallback' },
  });
  for (const [label, plan] of [
    ['ebpf: off', forced],
    ['eBPF unavailable', unavailable],
  ] as const) {
    report[`plan (${label})`] = { datapath: plan.datapath, refusals: plan.refusals };
    v.that(plan.satisfiable, `${label}: plan refused: ${JSON.stringify(plan.refusals)}`);
    v.that(plan.datapath.mode === 'nftables', `${label}: plan datapath ${plan.datapath.mode}, expected nftables`);
  }

  const traffic = await LabTraffic.open(guest.namespaces.qemu);
  try {
    report.guestGro = await lanGro(host, false);
    const t = Date.now();
    const applied = await applyTransaction(host, unavailable, null, { paths });
    numbers['apply.ms'] = Date.now() - t;
    report.apply = applied.status === 'applied' ? applied.evidence : applied;
    if (v.that(applied.status === 'applied', `nftables apply: ${applied.status === 'failed' ? applied.error : ''}`)) {
      const table = await runChecked(host, ['nft', 'list', 'table', 'inet', 'wrtfleet']);
      report.table = table;
      v.that(/oifname "eth1"/.test(table), `our table does not match eth1: ${table}`);
      const r = await traffic.capture(() => traffic.traffic(host, bytes), { plain: REWRITTEN, vlan: REWRITTEN });
      for (const path of ['plain', 'vlan'] as const) {
        numbers[`wire.${path}.ipv4`] = r[path].ipv4.ipv4;
        numbers[`wire.${path}.tcp`] = r[path].ipv4.tcp;
        numbers[`wire.${path}.firstSyns`] = r[path].ipv4.firstSyns;
        numbers[`wire.${path}.ipv6`] = r[path].ipv6.packets;
        numbers[`wire.${path}.violations`] = r[path].ipv4.violations.length + r[path].ipv6.violations.length;
      }
      numbers['wire.seconds'] = r.seconds;
      // The VLAN's frames leave through eth1.100, which oifname "eth1" does not match: the
      // fallback covers the eligible interfaces, as the eBPF chain does (there the tagged frames
      // pass eth1's own egress hook too). So the VLAN path is this check's control.
      judgeRound(v, 'nftables', r, { plain: true, vlan: false });
    }
  } finally {
    await lanGro(host, true);
    await detachAll(host, paths);
    await traffic.close();
  }
  const diff = stateDiff(found, await guestState(host));
  v.that(diff.length === 0, `nftables detach left the guest changed: ${diff.join(' | ')}`);
  numbers['total.seconds'] = (Date.now() - t0) / 1000;
  return {
    name: 'datapath-nft',
    ok: v.ok,
    detail: v.ok
      ? `${arch}: nftables fallback planned (ebpf off / unavailable), rewrites on the wire on eth1, detach leaves the guest as found`
      : `${arch}: ${v.failures.length} failures: ${v.failures.slice(0, 5).join(' | ')}`,
    numbers,
    failures: v.failures,
    report,
  };
}

/** For the registry (lab/checks/index.ts): the fallback on the little-endian guest. */
export const datapathNftCheck: LabCheck = {
  name: 'datapath-nft',
  arches: ['mipsel'],
  run: (g) => runNftCheck(g),
};
