/**
 * nftables fallback for routers where eBPF cannot run (kernel < 5.15, no cls_bpf, a failed
 * load): the same four rewrites done by in-kernel nftables payload/exthdr statements.
 * No NFQUEUE, no copies to user space.
 *
 * One table of our own, `inet wrtfleet`, replaced atomically in one `nft -f` transaction,
 * so applying twice gives the same ruleset and removal is `delete table`. The chain hooks
 * postrouting (forwarded and router-originated packets) at priority 300, after fw4's
 * mangle (-150) and srcnat (100), and matches only the eligible egress interfaces.
 *
 * nft recomputes the IPv4 header checksum and adjusts the TCP checksum for every payload
 * write, CHECKSUM_PARTIAL included; `reset tcp option timestamp` overwrites the option
 * with NOPs and fixes the checksum, like clear_tcp_syn_ts. Non-first fragments never match
 * `tcp ...` expressions (nft knows there is no TCP header in them).
 *
 * The gso_max_segs change for IP ID 0 (see loader.ts, ipIdGso) applies here too; the
 * original values are kept in the table's comment, so removal can restore them even after
 * an agent restart. The comment also carries a digest of the table's chain and rules: a
 * re-apply that would install the same table leaves it alone, so its rule counters
 * (telemetry) survive, as the eBPF path's pinned counters do.
 */
import { createHash } from 'node:crypto';
import { runChecked, type RouterHost } from '../../core/host/router-host.js';
import type { DatapathOptions } from './loader.js';
import { eligibleInterfaces } from './wan-eligibility.js';
import { validateRewrite, type RewriteConfig } from '../../core/programs.js';

export const NFT_FAMILY = 'inet';
export const NFT_TABLE = 'wrtfleet';
export const NFT_CHAIN = 'egress_rewrite';
/** After fw4's mangle (-150) and srcnat (100): we see the final packet. */
export const NFT_PRIORITY = 300;

export interface NftEvidence {
  mode: 'nftables';
  table: string;
  interfaces: string[];
  skipped: { ifname: string; reason: string }[];
  ruleset: string;
  gsoMaxSegs: Record<string, number>;
}

function q(name: string): string {
  if (!/^[A-Za-z0-9_.@-]+$/.test(name)) throw new Error(`refusing interface name ${JSON.stringify(name)}`);
  return `"${name}"`;
}

/** The statements of our chain for `cfg` on `ifaces` (exported for tests and review). */
export function nftRules(cfg: RewriteConfig, ifaces: string[]): string[] {
  validateRewrite(cfg);
  if (!ifaces.length) return [];
  const oif = `oifname { ${ifaces.map(q).join(', ')} }`;
  const firstSyn = 'tcp flags & (syn | ack) == syn';
  const rules: string[] = [];
  if (cfg.programs.includes('set_ip_id_zero')) rules.push(`${oif} ip id != 0 ip id set 0`);
  if (cfg.programs.includes('set_ip_ttl')) {
    rules.push(`${oif} ip ttl != ${cfg.ttl} ip ttl set ${cfg.ttl}`);
    // 2-254: neighbour discovery (255) and MLD (1) keep theirs, as in the eBPF program and iptables.
    if (cfg.ipv6HopLimit)
      rules.push(`${oif} ip6 hoplimit 2-254 ip6 hoplimit != ${cfg.ttl} ip6 hoplimit set ${cfg.ttl}`);
  }
  if (cfg.programs.includes('set_tcp_syn_window'))
    rules.push(`${oif} ip protocol tcp ${firstSyn} tcp window != ${cfg.synWindow} tcp window set ${cfg.synWindow}`);
  if (cfg.programs.includes('clear_tcp_syn_ts'))
    rules.push(`${oif} ip protocol tcp ${firstSyn} tcp option timestamp exists reset tcp option timestamp`);
  return rules.map((r) => `${r} counter`);
}

async function nft(host: RouterHost, script: string): Promise<void> {
  await runChecked(host, ['nft', '-f', '-'], { input: script });
}

async function tableComment(host: RouterHost): Promise<string | null> {
  // Text, not -j: nft 1.0.6's JSON output leaves table comments out.
  const r = await host.run(['nft', 'list', 'table', NFT_FAMILY, NFT_TABLE]);
  if (r.code !== 0) return null;
  return r.stdout.match(/^\s*comment "([^"]*)"/m)?.[1] ?? '';
}

function parseGso(comment: string | null): Record<string, number> {
  const out: Record<string, number> = {};
  for (const m of (comment ?? '').matchAll(/gso:([A-Za-z0-9_.@-]+)=(\d+)/g)) out[m[1]!] = Number(m[2]);
  return out;
}

async function gsoOf(host: RouterHost, ifname: string): Promise<number | null> {
  const r = await host.run(['ip', '-d', '-j', 'link', 'show', 'dev', ifname]);
  if (r.code !== 0) return null;
  return (JSON.parse(r.stdout) as { gso_max_segs?: number }[])[0]?.gso_max_segs ?? null;
}

export async function applyNft(host: RouterHost, opts: DatapathOptions): Promise<NftEvidence> {
  validateRewrite(opts.rewrite);
  const elig = await eligibleInterfaces(host, opts);
  const ifaces = elig.eligible.map((e) => e.ifname);

  // gso_max_segs: remember originals (from an earlier apply, or now), lower, restore the rest.
  const existing = await tableComment(host);
  const saved = parseGso(existing);
  const wantSingle =
    opts.rewrite.programs.includes('set_ip_id_zero') && (opts.ipIdGso ?? 'single-segment') === 'single-segment';
  const gso: Record<string, number> = {};
  for (const i of elig.eligible) {
    if (!wantSingle) continue;
    // Already 1 with nothing saved: an earlier table was lost; use the kernel default.
    gso[i.ifname] =
      saved[i.ifname] ??
      (i.gsoMaxSegs === 1 || i.gsoMaxSegs === undefined ? Math.min(65535, i.tsoMaxSegs ?? 65535) : i.gsoMaxSegs);
    if (i.gsoMaxSegs !== 1) await runChecked(host, ['ip', 'link', 'set', 'dev', i.ifname, 'gso_max_segs', '1']);
  }
  for (const [ifname, orig] of Object.entries(saved)) {
    if (ifname in gso) continue;
    if ((await gsoOf(host, ifname)) !== null)
      await host.run(['ip', 'link', 'set', 'dev', ifname, 'gso_max_segs', String(orig)]);
  }

  const chain = [
    `  chain ${NFT_CHAIN} {`,
    `    type filter hook postrouting priority ${NFT_PRIORITY}; policy accept;`,
    ...nftRules(opts.rewrite, ifaces).map((r) => `    ${r}`),
    '  }',
  ];
  const digest = createHash('sha256').update(chain.join('\n')).digest('hex').slice(0, 8);
  const comment = `wrtfleet datapath fallback; ${[...Object.entries(gso).map(([k, v]) => `gso:${k}=${v}`), `rules:${digest}`].join(' ')}`;
  if (comment !== existing) {
    // "add table" + "delete table" makes the delete valid whether or not the table exists;
    // everything in one file is one transaction: no window without rules, no duplicates.
    await nft(
      host,
      [
        `add table ${NFT_FAMILY} ${NFT_TABLE}`,
        `delete table ${NFT_FAMILY} ${NFT_TABLE}`,
        `table ${NFT_FAMILY} ${NFT_TABLE} {`,
        `  comment "${comment}"`,
        ...chain,
        '}',
        '',
      ].join('\n'),
    );
  }
  const listed = await host.run(['nft', 'list', 'table', NFT_FAMILY, NFT_TABLE]);
  return {
    mode: 'nftables',
    table: `${NFT_FAMILY} ${NFT_TABLE}`,
    interfaces: ifaces,
    skipped: elig.skipped,
    ruleset: listed.stdout,
    gsoMaxSegs: gso,
  };
}

/** Deletes our table and restores gso_max_segs. Safe to call when nothing is installed. */
export async function removeNft(host: RouterHost): Promise<{ removed: boolean }> {
  const comment = await tableComment(host);
  if (comment === null) return { removed: false };
  for (const [ifname, orig] of Object.entries(parseGso(comment))) {
    if ((await gsoOf(host, ifname)) !== null)
      await host.run(['ip', 'link', 'set', 'dev', ifname, 'gso_max_segs', String(orig)]);
  }
  await nft(host, `delete table ${NFT_FAMILY} ${NFT_TABLE}\n`);
  return { removed: true };
}
