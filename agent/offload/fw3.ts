/**
 * Flow offloading on fw3 (OpenWrt 19.07 and 21.02; docs/DOMAIN.md, Flow offloading): the same
 * two uci options as fw4, which fw3 turns into one iptables rule in the FORWARD chain,
 * `-j FLOWOFFLOAD` (kmod-ipt-offload), with `--hw` for hardware. The live state is that rule as
 * `iptables-save -t filter` prints it, not what fw3 would generate.
 *
 * fw3 writes `--hw` whether or not the SoC can offload; the target then offloads in software.
 * So the rule alone cannot show a fallback to software: the conntrack table can, offloaded flows
 * being marked [OFFLOAD] (software) or [HW_OFFLOAD] (hardware) there.
 */
import type { RouterHost } from '../../core/host/router-host.js';

/** One FLOWOFFLOAD rule as iptables-save printed it. */
export interface FlowOffloadRule {
  chain: string;
  hardware: boolean;
  /** The rule line, for evidence. */
  rule: string;
}

/** What the FLOWOFFLOAD rule asks of the target once software offload was seen instead of hardware. */
export const FW3_FALLBACK_WARNING =
  'flows are offloaded in software although the FLOWOFFLOAD rule has --hw: the flow-offload engine took none of them';

/** The FLOWOFFLOAD rules in an `iptables-save` listing (any table; fw3 puts its one in filter FORWARD). */
export function parseFlowOffloadRules(iptablesSave: string): FlowOffloadRule[] {
  const rules: FlowOffloadRule[] = [];
  for (const raw of iptablesSave.split('\n')) {
    const line = raw.trim();
    const m = /^-A\s+(\S+)\s.*-j\s+FLOWOFFLOAD(\s|$)/.exec(line);
    if (m) rules.push({ chain: m[1]!, hardware: /\s--hw(\s|$)/.test(line), rule: line });
  }
  return rules;
}

/** The mode fw3's FORWARD rule runs: hardware with --hw, software without, off with no rule. */
export function fw3LiveMode(rules: FlowOffloadRule[]): 'off' | 'software' | 'hardware' {
  const forward = rules.filter((r) => r.chain === 'FORWARD');
  if (forward.length === 0) return 'off';
  return forward.some((r) => r.hardware) ? 'hardware' : 'software';
}

/** `iptables-save -t filter`; null when iptables cannot be asked (then no rule is known). */
export async function readFlowOffloadRules(host: RouterHost): Promise<FlowOffloadRule[] | null> {
  const r = await host.run(['iptables-save', '-t', 'filter']);
  if (r.code !== 0) return null;
  return parseFlowOffloadRules(r.stdout);
}
