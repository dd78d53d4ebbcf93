/**
 * iptables fallback for fw3 routers (OpenWrt 19.07, 21.02) where eBPF cannot run and nft is
 * not installed (docs/DOMAIN.md, Datapath on fw3 releases): the rewrites iptables has targets
 * for, as mangle POSTROUTING rules. TTL --ttl-set (set_ip_ttl), HL --hl-set (its IPv6 hop
 * limit) and TCPOPTSTRIP --strip-options timestamp on first SYNs (clear_tcp_syn_ts), which
 * overwrites the option with NOPs and fixes the checksum as the eBPF program does. IP-ID
 * zeroing and the SYN window have no target; the plan never hands them here.
 *
 * One chain of our own per family, `wrtfleet_egress` in the mangle table, jumped to from
 * POSTROUTING and matching only the eligible egress interfaces. It is written in one
 * `iptables-restore --noflush` transaction (declaring the chain flushes it), so applying twice
 * gives the same rules; removal unhooks, flushes and deletes it. fw3 reloads flush only the
 * rules it marked "!fw3", so ours survive a firewall reload. Every rule carries a comment
 * `wrtfleet:<program>`: read-back and counters know which rewrite a rule is, and a re-apply that
 * would write the same rules leaves them alone, so their counters (telemetry) survive.
 *
 * `command` names the iptables binary: the router's `iptables`, or on Debian either backend
 * (`iptables-legacy`, `iptables-nft`); `-save`, `-restore` and the ip6tables twins follow it.
 */
import type { RouterHost } from '../../core/host/router-host.js';
import { validateRewrite, type ProgramName, type RewriteConfig } from '../../core/programs.js';
import { eligibleInterfaces, type WanSelection } from './wan-eligibility.js';

export const IPT_TABLE = 'mangle';
export const IPT_CHAIN = 'wrtfleet_egress';
const HOOK = 'POSTROUTING';
const COMMENT = 'wrtfleet:';
/** The rewrites with an iptables target; the others cannot run in this fallback. */
const IPTABLES_PROGRAMS: readonly ProgramName[] = ['set_ip_ttl', 'clear_tcp_syn_ts'];

export type IptablesFamily = 'ipv4' | 'ipv6';

export interface IptablesOptions extends WanSelection {
  rewrite: RewriteConfig;
  /** The iptables binary (default `iptables`). */
  iptables?: string;
}

/** Our chain in one family, as iptables-save shows it. */
export interface LiveIptablesChain {
  /** Our rule lines (`-A wrtfleet_egress ...`), without counters. */
  rules: string[];
  /** POSTROUTING jumps to the chain. */
  hooked: boolean;
}

export interface LiveIptables {
  present: boolean;
  ipv4: LiveIptablesChain | null;
  ipv6: LiveIptablesChain | null;
  /** Interfaces our rules match (-o). */
  interfaces: string[];
  /** Rules in both families. */
  rules: number;
}

export interface IptablesEvidence {
  mode: 'iptables';
  chain: string;
  interfaces: string[];
  skipped: { ifname: string; reason: string }[];
  rules: Record<IptablesFamily, string[]>;
  changes: string[];
}

function binaries(command = 'iptables', family: IptablesFamily) {
  const base = family === 'ipv6' ? command.replace(/^(.*\/)?iptables/, '$1ip6tables') : command;
  return { run: base, save: `${base}-save`, restore: `${base}-restore` };
}

function oif(name: string): string {
  if (!/^[A-Za-z0-9_.@-]{1,15}$/.test(name)) throw new Error(`refusing interface name ${JSON.stringify(name)}`);
  return name;
}

/** The rule specs of our chain per family for `cfg` on `ifaces` (after `-A wrtfleet_egress`). */
export function iptablesRules(cfg: RewriteConfig, ifaces: string[]): Record<IptablesFamily, string[]> {
  validateRewrite(cfg);
  const unsupported = cfg.programs.filter((p) => !IPTABLES_PROGRAMS.includes(p));
  if (unsupported.length > 0) throw new Error(`no iptables target for ${unsupported.join(', ')}`);
  const out: Record<IptablesFamily, string[]> = { ipv4: [], ipv6: [] };
  const tag = (program: ProgramName) => `-m comment --comment ${COMMENT}${program}`;
  for (const ifname of ifaces.map(oif)) {
    if (cfg.programs.includes('set_ip_ttl')) {
      out.ipv4.push(`-o ${ifname} ${tag('set_ip_ttl')} -j TTL --ttl-set ${cfg.ttl}`);
      // Neighbour discovery must arrive with hop limit 255 (RFC 4861) and MLD with 1 (RFC 3810): rewriting them
      // breaks IPv6 on the link, so those two values pass unchanged.
      if (cfg.ipv6HopLimit)
        out.ipv6.push(`-o ${ifname} -m hl --hl-gt 1 -m hl --hl-lt 255 ${tag('set_ip_ttl')} -j HL --hl-set ${cfg.ttl}`);
    }
    if (cfg.programs.includes('clear_tcp_syn_ts'))
      out.ipv4.push(
        `-o ${ifname} -p tcp -m tcp --tcp-flags SYN,ACK SYN ${tag('clear_tcp_syn_ts')} -j TCPOPTSTRIP --strip-options timestamp`,
      );
  }
  return out;
}

/** Our chain in `iptables-save -t mangle` output; null when the chain does not exist. */
export function parseIptablesChain(save: string): LiveIptablesChain | null {
  const lines = save.split('\n').map((l) => l.trim().replace(/^\[\d+:\d+\]\s+/, ''));
  if (!lines.some((l) => l.startsWith(`:${IPT_CHAIN} `))) return null;
  return {
    rules: lines.filter((l) => l.startsWith(`-A ${IPT_CHAIN} `)),
    hooked: lines.some((l) => new RegExp(`^-A ${HOOK} (.* )?-j ${IPT_CHAIN}$`).test(l)),
  };
}

/** What a rule is, however an iptables version prints it: program, interface, target and value. */
function ruleKey(rule: string): string {
  const program = /--comment "?wrtfleet:(\w+)"?/.exec(rule)?.[1] ?? '?';
  const ifname = /(?:^|\s)-o (\S+)/.exec(rule)?.[1] ?? '?';
  const target = /-j (\S+)(?: --(?:ttl|hl)-set (\d+))?/.exec(rule);
  return `${program}/${ifname}/${target?.[1] ?? '?'}${target?.[2] ? ` ${target[2]}` : ''}`;
}

/**
 * `iptables-restore --noflush` input declaring our chain (which flushes it) with these
 * `-A` lines, and the POSTROUTING jump when `hook` (a jump already there is not added twice).
 */
function chainScript(ruleLines: string[], hook: boolean): string {
  return [
    `*${IPT_TABLE}`,
    `:${IPT_CHAIN} - [0:0]`,
    ...ruleLines,
    ...(hook ? [`-A ${HOOK} -j ${IPT_CHAIN}`] : []),
    'COMMIT',
    '',
  ].join('\n');
}

async function readChain(host: RouterHost, command: string | undefined, family: IptablesFamily) {
  const r = await host.run([binaries(command, family).save, '-t', IPT_TABLE]);
  if (r.code !== 0) return null;
  return parseIptablesChain(r.stdout);
}

export async function readIptables(host: RouterHost, command?: string): Promise<LiveIptables> {
  const [ipv4, ipv6] = await Promise.all([readChain(host, command, 'ipv4'), readChain(host, command, 'ipv6')]);
  const all = [...(ipv4?.rules ?? []), ...(ipv6?.rules ?? [])];
  const interfaces = [...new Set(all.map((r) => /(?:^|\s)-o (\S+)/.exec(r)?.[1]).filter((x): x is string => !!x))];
  return { present: ipv4 !== null || ipv6 !== null, ipv4, ipv6, interfaces: interfaces.sort(), rules: all.length };
}

async function restore(host: RouterHost, command: string | undefined, family: IptablesFamily, script: string) {
  const bin = binaries(command, family).restore;
  const r = await host.run([bin, '-w', '--noflush'], { input: script });
  if (r.code !== 0)
    throw new Error(
      `${bin} --noflush (exit ${r.code ?? 'none'}): ${(r.stderr || r.stdout).trim().split('\n').slice(-4).join(' | ')}`,
    );
}

/** Writes `rules` as our chain of one family (hooked), or removes the chain when there are none. */
async function writeFamily(
  host: RouterHost,
  command: string | undefined,
  family: IptablesFamily,
  rules: string[],
  live: LiveIptablesChain | null,
  changes: string[],
): Promise<void> {
  if (rules.length === 0) {
    if (live && (await removeFamily(host, command, family))) changes.push(`${family}: removed ${IPT_CHAIN}`);
    return;
  }
  const want = rules.map(ruleKey).join('\n');
  if (live?.hooked && live.rules.map(ruleKey).join('\n') === want) return;
  await restore(
    host,
    command,
    family,
    chainScript(
      rules.map((r) => `-A ${IPT_CHAIN} ${r}`),
      !live?.hooked,
    ),
  );
  changes.push(`${family}: ${IPT_TABLE} ${IPT_CHAIN} with ${rules.length} rule${rules.length === 1 ? '' : 's'}`);
}

export async function applyIptables(host: RouterHost, opts: IptablesOptions): Promise<IptablesEvidence> {
  const elig = await eligibleInterfaces(host, opts);
  const ifaces = elig.eligible.map((e) => e.ifname);
  const rules = iptablesRules(opts.rewrite, ifaces);
  const changes: string[] = [];
  for (const family of ['ipv4', 'ipv6'] as const)
    await writeFamily(
      host,
      opts.iptables,
      family,
      rules[family],
      await readChain(host, opts.iptables, family),
      changes,
    );
  return {
    mode: 'iptables',
    chain: `${IPT_TABLE} ${IPT_CHAIN}`,
    interfaces: ifaces,
    skipped: elig.skipped,
    rules,
    changes,
  };
}

/** Unhooks, flushes and deletes our chain of one family; false when it was not there. */
async function removeFamily(host: RouterHost, command: string | undefined, family: IptablesFamily): Promise<boolean> {
  const live = await readChain(host, command, family);
  if (!live) return false;
  const bin = binaries(command, family).run;
  // Every jump goes (someone may have added a second one); each -D removes one.
  for (let i = 0; i < 8; i++) {
    const d = await host.run([bin, '-w', '-t', IPT_TABLE, '-D', HOOK, '-j', IPT_CHAIN]);
    if (d.code !== 0) break;
  }
  for (const step of [
    ['-F', IPT_CHAIN],
    ['-X', IPT_CHAIN],
  ]) {
    const r = await host.run([bin, '-w', '-t', IPT_TABLE, ...step]);
    if (r.code !== 0)
      throw new Error(`${bin} -t ${IPT_TABLE} ${step.join(' ')} (exit ${r.code ?? 'none'}): ${r.stderr.trim()}`);
  }
  return true;
}

/** Removes our chains in both families. Safe when nothing is installed or iptables is absent. */
export async function removeIptables(host: RouterHost, command?: string): Promise<{ removed: boolean }> {
  const v4 = await removeFamily(host, command, 'ipv4');
  const v6 = await removeFamily(host, command, 'ipv6');
  return { removed: v4 || v6 };
}

/** Puts back chains read earlier (a snapshot with no applied record behind it). */
export async function restoreIptables(host: RouterHost, live: LiveIptables, command?: string): Promise<void> {
  for (const family of ['ipv4', 'ipv6'] as const) {
    const chain = live[family];
    if (!chain) continue;
    await restore(host, command, family, chainScript(chain.rules, chain.hooked));
  }
}

/**
 * Packets our rules matched, per program, both families and every interface added up
 * (`iptables-save -c`). TTL and HL rules match every packet they set, changed or not.
 */
export async function readIptablesCounters(host: RouterHost, command?: string): Promise<Map<ProgramName, number>> {
  const counts = new Map<ProgramName, number>();
  for (const family of ['ipv4', 'ipv6'] as const) {
    const r = await host.run([binaries(command, family).save, '-c', '-t', IPT_TABLE]);
    if (r.code !== 0) continue;
    for (const m of r.stdout.matchAll(
      new RegExp(`^\\[(\\d+):\\d+\\] -A ${IPT_CHAIN} .*--comment "?wrtfleet:(\\w+)`, 'gm'),
    )) {
      const program = m[2] as ProgramName;
      counts.set(program, (counts.get(program) ?? 0) + Number(m[1]));
    }
  }
  return counts;
}
