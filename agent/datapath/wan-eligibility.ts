/**
 * Which interfaces get the rewrites (docs/DOMAIN.md, Attaching and falling back). The eBPF
 * loader, the nftables fallback and the live-state reader all ask here, so they cannot
 * disagree about which interfaces are the WAN.
 */
import { runChecked, type RouterHost } from '../../core/host/router-host.js';
import type { L2Mode } from './programs.js';

/** Interfaces never touched, whatever the routes say. */
const DEFAULT_SKIP = ['lo', 'br-lan'];

/** One row of `ip -d -j link show`: the fields the datapath reads. */
export interface LinkInfo {
  ifname: string;
  ifindex: number;
  link_type?: string;
  flags?: string[];
  gso_max_segs?: number;
  tso_max_segs?: number;
}

export async function readLinks(host: RouterHost): Promise<LinkInfo[]> {
  return JSON.parse(await runChecked(host, ['ip', '-d', '-j', 'link', 'show'])) as LinkInfo[];
}

/** Overrides of the default-route rule. */
export interface WanSelection {
  /** Explicit interface list instead of the default-route rule (types are still checked). */
  interfaces?: string[];
  skip?: string[];
}

export interface Eligibility {
  eligible: { ifname: string; ifindex: number; l2: L2Mode; gsoMaxSegs?: number; tsoMaxSegs?: number }[];
  skipped: { ifname: string; reason: string }[];
}

/**
 * IPv4 default-route interfaces (every table, multipath next hops included) of type
 * Ethernet or PPP, minus loopback and the skip list. Evaluated fresh on every call, so a
 * WAN that comes up late is picked up by the next re-evaluation.
 */
export async function eligibleInterfaces(host: RouterHost, opts: WanSelection = {}): Promise<Eligibility> {
  const skip = new Set(opts.skip ?? DEFAULT_SKIP);
  let candidates: string[];
  if (opts.interfaces) {
    candidates = [...opts.interfaces];
  } else {
    const routes = JSON.parse(
      (await runChecked(host, ['ip', '-4', '-j', 'route', 'show', 'default', 'table', 'all'])) || '[]',
    ) as {
      dev?: string;
      type?: string;
      nexthops?: { dev?: string }[];
    }[];
    candidates = [];
    for (const r of routes) {
      if (r.type && r.type !== 'unicast') continue;
      for (const d of [r.dev, ...(r.nexthops ?? []).map((n) => n.dev)])
        if (d && !candidates.includes(d)) candidates.push(d);
    }
  }
  const all = await readLinks(host);
  const out: Eligibility = { eligible: [], skipped: [] };
  for (const name of candidates) {
    const l = all.find((x) => x.ifname === name);
    if (!l) {
      out.skipped.push({ ifname: name, reason: 'no such interface' });
      continue;
    }
    if (skip.has(name)) {
      out.skipped.push({ ifname: name, reason: 'excluded by name' });
      continue;
    }
    if (l.flags?.includes('LOOPBACK') || l.link_type === 'loopback') {
      out.skipped.push({ ifname: name, reason: 'loopback' });
      continue;
    }
    const l2: L2Mode | null = l.link_type === 'ether' ? 'ethernet' : l.link_type === 'ppp' ? 'raw-ip' : null;
    if (!l2) {
      out.skipped.push({ ifname: name, reason: `link type ${l.link_type ?? 'unknown'} is neither Ethernet nor PPP` });
      continue;
    }
    out.eligible.push({ ifname: name, ifindex: l.ifindex, l2, gsoMaxSegs: l.gso_max_segs, tsoMaxSegs: l.tso_max_segs });
  }
  return out;
}
