/**
 * Step 3, where eBPF does not run: which in-kernel rules do the rewrites instead
 * (docs/DOMAIN.md, Datapath on fw3 releases).
 *
 * nftables covers all four rewrites and is what fw4 routers (22.03+) and generic Linux hosts
 * have. fw3 routers (19.07, 21.02) carry iptables and only sometimes nft: with nft installed
 * they get the nftables rules too; without it, the iptables fallback runs what iptables has
 * targets for (TTL --ttl-set, HL --hl-set, TCPOPTSTRIP) and the plan names what cannot run
 * (IP-ID zeroing, the SYN window) instead of refusing: the other rewrites are still worth having.
 */
import { firewallGeneration } from '../facts/firewall.js';
import type { ProgramName } from '../programs.js';
import type { Plan, PlanFacts, PlannedProgram, Sinks, UnavailableRewrite } from './types.js';

/** Why a rewrite has no iptables target; the rewrites absent here have one. */
const NO_IPTABLES_TARGET: Partial<Record<ProgramName, string>> = {
  set_ip_id_zero:
    'iptables has no target that writes the IPv4 ID (nftables `ip id set 0` and the eBPF program can; install nftables to run it)',
  set_tcp_syn_window:
    'iptables has no target that sets the TCP window (TCPMSS changes only the MSS option; nftables `tcp window set` and the eBPF program can; install nftables to run it)',
};

/** The userland extensions of the TTL, HL and TCPOPTSTRIP targets; kmod-ipt-ipopt comes with them. */
const IPOPT_PACKAGE = 'iptables-mod-ipopt';

export function netfilterFallback(
  facts: PlanFacts,
  programs: PlannedProgram[],
  why: string,
  { decide, warnings, prerequisites }: Pick<Sinks, 'decide' | 'warnings' | 'prerequisites'>,
): Plan['datapath'] {
  const firewall = firewallGeneration(facts);
  if (firewall?.generation !== 'fw3' || facts.packages?.nft === true) {
    decide('datapath.mode', 'nftables', `${why}: the rewrites run as in-kernel nftables rules`);
    if (firewall?.generation === 'fw3')
      warnings.push(
        `nftables rewriting on a fw3 (iptables) release (${firewall.why}): nft there is older and may lack a statement (reset tcp option); nft -f then refuses the whole table and the apply rolls back`,
      );
    return { mode: 'nftables', attach: null, bpfObject: null, programs };
  }

  const runnable = programs.filter((p) => !NO_IPTABLES_TARGET[p.name]);
  const unavailable: UnavailableRewrite[] = programs
    .filter((p) => NO_IPTABLES_TARGET[p.name])
    .map((p) => ({ program: p.name, reason: NO_IPTABLES_TARGET[p.name]! }));
  const lost = unavailable.map((u) => u.program).join(', ');
  const base = `${why}; ${firewall.why} and nft is not installed${facts.packages?.nft === null || facts.packages?.nft === undefined ? ' (the installed packages are unknown, and fw3 always carries iptables)' : ''}`;
  if (unavailable.length > 0)
    warnings.push(
      `iptables fallback: ${lost} cannot run (no iptables target); install nftables to run ${unavailable.length > 1 ? 'them' : 'it'}`,
    );

  if (runnable.length === 0) {
    decide(
      'datapath.mode',
      'none',
      `${base}: the iptables fallback would have to run ${lost}, which have no iptables target, so nothing runs`,
    );
    return { mode: 'none', attach: null, bpfObject: null, programs: [], unavailable };
  }
  const targets = runnable.map(iptablesTargetOf).join(', ');
  decide(
    'datapath.mode',
    'iptables',
    `${base}: the rewrites iptables has targets for run as mangle POSTROUTING rules (${targets})${unavailable.length > 0 ? `; ${lost} cannot run there` : ''}; a target the router's kernel lacks makes iptables-restore fail, and the apply rolls back naming it`,
  );
  const installed = facts.packages?.installed;
  if (
    runnable.some((p) => p.name === 'set_ip_ttl' || p.name === 'clear_tcp_syn_ts') &&
    facts.packages?.manager &&
    installed &&
    !installed[IPOPT_PACKAGE]
  )
    prerequisites.push({
      package: IPOPT_PACKAGE,
      reason:
        'the TTL, HL and TCPOPTSTRIP targets of the iptables fallback come with iptables-mod-ipopt (and kmod-ipt-ipopt)',
    });
  return {
    mode: 'iptables',
    attach: null,
    bpfObject: null,
    programs: runnable,
    ...(unavailable.length ? { unavailable } : {}),
  };
}

function iptablesTargetOf(program: PlannedProgram): string {
  switch (program.name) {
    case 'set_ip_ttl':
      return `TTL --ttl-set ${program.config.ttl}${program.config.ipv6HopLimit ? `, HL --hl-set ${program.config.ttl}` : ''}`;
    case 'clear_tcp_syn_ts':
      return 'TCPOPTSTRIP --strip-options timestamp on first SYNs';
    default:
      return program.name;
  }
}
