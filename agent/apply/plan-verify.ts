/**
 * What "the plan runs" means, checked against the live state: used to verify an apply and to
 * detect drift, so both mean the same thing by it. Each datapath has its own evidence (attached
 * programs, our nftables table, our iptables chains), and the offload half is read back from the
 * firewall (fw4's flowtable or fw3's FLOWOFFLOAD rule).
 */
import { expectedFingerprints, nftRules } from '../datapath/index.js';
import { iptablesRules } from '../datapath/iptables.js';
import type { BpfEndian } from '../../core/programs.js';
import { verifyOffload, type UciOffloadValues } from '../offload/index.js';
import { rewriteConfigOf, UCI_FLOW_OFFLOADING, UCI_FLOW_OFFLOADING_HW, type Plan } from '../../core/plan.js';
import { canonicalJson } from '../../core/canonical-json.js';
import type { LiveState } from './live.js';

export interface Difference {
  path: string;
  expected: string;
  actual: string;
}

export function uciTarget(plan: Plan): UciOffloadValues | null {
  if (!plan.offload.uci) return null;
  return {
    flow_offloading: plan.offload.uci[UCI_FLOW_OFFLOADING],
    flow_offloading_hw: plan.offload.uci[UCI_FLOW_OFFLOADING_HW],
  };
}

/**
 * Differences between the plan and the live state. Used to verify an apply and to detect
 * drift, so both mean the same thing by "the plan runs".
 */
export function comparePlanToLive(plan: Plan, live: LiveState, opts: { requireHardware?: boolean } = {}): Difference[] {
  const diffs: Difference[] = [];
  const d = (path: string, expected: string, actual: string) => diffs.push({ path, expected, actual });
  const rewrite = rewriteConfigOf(plan);
  const names = plan.datapath.programs.map((p) => p.name);
  const attached = new Map(live.ebpf.interfaces.map((i) => [i.ifname, i]));

  if (plan.datapath.mode === 'ebpf') {
    const endian = plan.datapath.bpfObject as BpfEndian;
    for (const ifname of live.eligible) {
      const iface = attached.get(ifname);
      const wanted = expectedFingerprints(endian, rewrite, iface?.l2 ?? 'ethernet');
      for (const name of names) {
        const want = wanted.get(name)!;
        const got = iface?.programs.find((p) => p.program === name);
        const expected = `attached (${plan.datapath.attach}, config ${want})`;
        if (!got) d(`datapath/${ifname}/${name}`, expected, 'missing');
        else if (got.fingerprint !== want)
          d(`datapath/${ifname}/${name}`, expected, `attached with config ${got.fingerprint}`);
      }
      if (iface && iface.mode !== plan.datapath.attach)
        d(`datapath/${ifname}/attach`, String(plan.datapath.attach), iface.mode);
      for (const p of iface?.programs ?? [])
        if (!names.includes(p.program))
          d(`datapath/${ifname}/${p.program}`, 'not attached', `attached (${iface!.mode})`);
    }
    for (const [ifname, iface] of attached) {
      if (!live.eligible.includes(ifname))
        d(
          `datapath/${ifname}`,
          'nothing attached (not an eligible WAN interface)',
          iface.programs.map((p) => p.program).join(', '),
        );
    }
    if (live.nft.present) d('nftables/table', 'absent (eBPF datapath)', 'present');
  } else if (plan.datapath.mode === 'iptables') {
    for (const [ifname, iface] of attached)
      d(`datapath/${ifname}`, 'nothing attached (iptables datapath)', iface.programs.map((p) => p.program).join(', '));
    if (live.nft.present) d('nftables/table', 'absent (iptables datapath)', 'present');
    const want = iptablesRules(rewrite, live.eligible);
    for (const family of ['ipv4', 'ipv6'] as const) {
      const chain = live.iptables[family];
      const path = `iptables/${family}`;
      if (want[family].length === 0) {
        if (chain) d(path, 'absent (no rule for this family)', `${chain.rules.length} rules`);
      } else if (!chain) d(path, `wrtfleet_egress with ${want[family].length} rules`, 'absent');
      else {
        if (chain.rules.length !== want[family].length)
          d(`${path}/rules`, String(want[family].length), String(chain.rules.length));
        if (!chain.hooked) d(`${path}/hook`, 'POSTROUTING jumps to wrtfleet_egress', 'no jump');
      }
    }
    if (canonicalJson(live.iptables.interfaces) !== canonicalJson(live.eligible))
      d('iptables/interfaces', live.eligible.join(', '), live.iptables.interfaces.join(', '));
  } else if (plan.datapath.mode === 'nftables') {
    for (const [ifname, iface] of attached)
      d(`datapath/${ifname}`, 'nothing attached (nftables datapath)', iface.programs.map((p) => p.program).join(', '));
    if (!live.nft.present) d('nftables/table', `present with ${names.join(', ')}`, 'absent');
    else {
      const wantRules = nftRules(rewrite, live.eligible).length;
      if (live.nft.rules !== wantRules) d('nftables/rules', String(wantRules), String(live.nft.rules));
      if (canonicalJson(live.nft.interfaces) !== canonicalJson(live.eligible))
        d('nftables/interfaces', live.eligible.join(', '), live.nft.interfaces.join(', '));
    }
  } else {
    for (const [ifname, iface] of attached)
      d(
        `datapath/${ifname}`,
        'nothing attached (no rewrite in the plan)',
        iface.programs.map((p) => p.program).join(', '),
      );
    if (live.nft.present) d('nftables/table', 'absent (no rewrite in the plan)', 'present');
  }

  if (plan.datapath.mode !== 'iptables' && live.iptables.present)
    d('iptables/chain', `absent (${plan.datapath.mode} datapath)`, `present (${live.iptables.rules} rules)`);

  const target = uciTarget(plan);
  if (target && live.offload.support.supported) {
    for (const option of ['flow_offloading', 'flow_offloading_hw'] as const) {
      if ((live.offload.uci?.[option] ?? null) !== target[option])
        d(`offload/uci/${option}`, target[option] ?? '(unset)', live.offload.uci?.[option] ?? '(unset)');
    }
    // fw4's fallback to software is accepted (and reported) unless the profile made hardware a requirement.
    for (const problem of verifyOffload(live.offload, plan.offload.mode, { acceptFallback: !opts.requireHardware })) {
      if (!problem.startsWith('uci asks')) d('offload/live', plan.offload.mode, problem);
    }
  } else if (target && !live.offload.support.supported) {
    d(
      'offload',
      `flow_offloading=${target.flow_offloading} flow_offloading_hw=${target.flow_offloading_hw}`,
      `unsupported: ${live.offload.support.reason}`,
    );
  }
  return diffs;
}

export class VerifyError extends Error {
  constructor(readonly differences: Difference[]) {
    super(
      `read-back does not match the plan: ${differences.map((x) => `${x.path}: expected ${x.expected}, found ${x.actual}`).join('; ')}`,
    );
  }
}
