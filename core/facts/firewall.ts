/**
 * Which OpenWrt firewall a router runs, the one fact both flow offloading and the fallback
 * datapath turn on (docs/DOMAIN.md, Flow offloading): fw4 (firewall4, nftables, OpenWrt
 * 22.03+) or fw3 (the `firewall` package, iptables, 19.07 and 21.02).
 *
 * The installed package wins over the release number: a 23.05 image can carry fw3 instead of
 * fw4, and a derivative's version string may not parse.
 */
import { kernelAtLeast } from './kernel.js';
import { openWrtAtLeast } from './release.js';
import type { OpenWrtRelease, PackageFacts } from './types.js';

export type FirewallGeneration = 'fw4' | 'fw3';

/** firewall4 arrived with OpenWrt 22.03. */
export const FW4_MIN_OPENWRT = '22.03';
/** fw3's FLOWOFFLOAD target, the first release wrtfleet offloads on (docs/DOMAIN.md, Flow offloading). */
export const FW3_OFFLOAD_MIN_OPENWRT = '19.07';

export interface FirewallInput {
  openwrt: Pick<OpenWrtRelease, 'release'> | null;
  kernel: string | null;
  packages?: Partial<PackageFacts> | null;
}

/** The firewall the router runs, and why we think so; null when not OpenWrt or nothing tells. */
export function firewallGeneration(facts: FirewallInput): { generation: FirewallGeneration; why: string } | null {
  if (!facts.openwrt) return null;
  const version = facts.openwrt.release;
  if (facts.packages?.firewall === 'firewall4') return { generation: 'fw4', why: 'firewall4 is installed' };
  if (facts.packages?.firewall === 'firewall')
    return { generation: 'fw3', why: 'the fw3 `firewall` package is installed instead of firewall4' };
  const fw4 = openWrtAtLeast(version, FW4_MIN_OPENWRT);
  if (fw4 === true) return { generation: 'fw4', why: `OpenWrt ${version} ships fw4` };
  if (fw4 === false)
    return { generation: 'fw3', why: `OpenWrt ${version} predates fw4 (${FW4_MIN_OPENWRT}) and runs fw3` };
  // Unreadable release: 22.03 came with kernel 5.10, so a newer kernel implies fw4.
  if (kernelAtLeast(facts.kernel, '5.10') === true)
    return { generation: 'fw4', why: `release "${version}" unreadable; kernel ${facts.kernel} implies 22.03+ (fw4)` };
  return null;
}
