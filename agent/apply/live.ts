/**
 * The live state of what the agent manages on a router, read from the router itself:
 * attached programs (our pins, TCX links, cls_bpf filters), our nftables table, our iptables
 * chains (the fw3 fallback) and the firewall offload settings. Snapshots, verification and drift all read it here, so they
 * cannot disagree about what "the state" is.
 */
import { ebpfStatus, NFT_FAMILY, NFT_TABLE, type DatapathEvidence } from '../datapath/index.js';
import { eligibleInterfaces } from '../datapath/wan-eligibility.js';
import { readIptables, type LiveIptables } from '../datapath/iptables.js';
import type { RouterHost } from '../../core/host/router-host.js';
import { offloadSupport, readOffload, type OffloadState, type OffloadSupport } from '../offload/index.js';

export interface DatapathPaths {
  pinRoot?: string;
  helper?: string;
  uploadDir?: string;
  /** The iptables binary of the fw3 fallback: `iptables` on a router; tests name a Debian backend. */
  iptables?: string;
}

export interface LiveNft {
  present: boolean;
  /** `nft list table inet wrtfleet` as printed (restorable input for nft -f). */
  ruleset: string | null;
  /** Interfaces its rules match (oifname sets). */
  interfaces: string[];
  rules: number;
}

export interface LiveState {
  ebpf: DatapathEvidence;
  nft: LiveNft;
  iptables: LiveIptables;
  offload: OffloadState;
  /** Interfaces the datapath would attach to now (default-route rule). */
  eligible: string[];
}

export async function readNft(host: RouterHost): Promise<LiveNft> {
  const r = await host.run(['nft', 'list', 'table', NFT_FAMILY, NFT_TABLE]);
  if (r.code !== 0) return { present: false, ruleset: null, interfaces: [], rules: 0 };
  const interfaces = new Set<string>();
  let rules = 0;
  for (const line of r.stdout.split('\n')) {
    const m = line.match(/oifname \{?\s*([^}]+?)\s*\}? /);
    if (m && /\bcounter\b/.test(line)) {
      rules += 1;
      for (const name of m[1]!.split(',')) interfaces.add(name.trim().replace(/^"|"$/g, ''));
    }
  }
  return { present: true, ruleset: r.stdout, interfaces: [...interfaces].sort(), rules };
}

/**
 * Whether uci/fw4 exist and the kernel has flowtables does not change while the router runs;
 * asking costs three commands (over SSH on every snapshot and verify), so it is asked once per
 * host and again only after forgetOffloadSupport (REPROBE).
 */
const supportCache = new WeakMap<RouterHost, Promise<OffloadSupport>>();

export function cachedOffloadSupport(host: RouterHost): Promise<OffloadSupport> {
  let p = supportCache.get(host);
  if (!p) {
    p = offloadSupport(host);
    supportCache.set(host, p);
    p.catch(() => supportCache.delete(host));
  }
  return p;
}

export function forgetOffloadSupport(host: RouterHost): void {
  supportCache.delete(host);
}

export async function readLive(host: RouterHost, paths: DatapathPaths = {}): Promise<LiveState> {
  const [ebpf, nft, iptables, offload, elig] = await Promise.all([
    ebpfStatus(host, paths),
    readNft(host),
    readIptables(host, paths.iptables),
    cachedOffloadSupport(host).then((support) => readOffload(host, support)),
    eligibleInterfaces(host).catch(() => ({ eligible: [], skipped: [] })),
  ]);
  return { ebpf, nft, iptables, offload, eligible: elig.eligible.map((e) => e.ifname).sort() };
}

/**
 * The comparable part of a live state: kernel-assigned ids (prog, link) left out, since a
 * restored program is the same program with a new id; fingerprints (hash of the configured
 * object) stay in, so a different configuration never compares equal.
 */
export function normalizeLive(live: LiveState): unknown {
  return {
    ebpf: live.ebpf.interfaces
      .map((i) => ({
        ifname: i.ifname,
        mode: i.mode,
        programs: i.programs.map((p) => `${p.program}.${p.fingerprint}`).sort(),
        gso: i.gsoMaxSegs ?? null,
      }))
      // Plain code-unit order: localeCompare would page in ICU data (~3 MiB of RSS on a router).
      .sort((a, b) => (a.ifname < b.ifname ? -1 : a.ifname > b.ifname ? 1 : 0)),
    nft: live.nft.present ? live.nft.ruleset?.replace(/counter packets \d+ bytes \d+/g, 'counter') : null,
    // Only present where a chain of ours is (the key stays out otherwise, so other routers' states compare as before).
    ...(live.iptables.present ? { iptables: { ipv4: live.iptables.ipv4, ipv6: live.iptables.ipv6 } } : {}),
    offload: live.offload.support.supported ? { uci: live.offload.uci, live: live.offload.live } : 'unsupported',
  };
}
