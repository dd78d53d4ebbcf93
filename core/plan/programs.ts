/**
 * Step 2 of resolvePlan: the programs, straight from the spec's l3Rewrite switches, in the
 * order of PROGRAM_NAMES; and the datapath's view of them (rewriteConfigOf).
 */
import { DEFAULT_REWRITE, PROGRAM_NAMES, type RewriteConfig } from '../programs.js';
import type { ProfileSpec } from '../profile-spec.js';
import type { Decide, Plan, PlannedProgram } from './types.js';

export function plannedPrograms(spec: ProfileSpec, decide: Decide): PlannedProgram[] {
  const r = spec.l3Rewrite;
  const programs: PlannedProgram[] = [];
  if (r.ipid) programs.push({ name: 'set_ip_id_zero', scope: 'every-packet', config: {} });
  decide(
    'program.set_ip_id_zero',
    r.ipid ? 'enabled' : 'disabled',
    r.ipid ? 'l3Rewrite.ipid is on: the IPv4 ID of every packet is set to 0' : 'l3Rewrite.ipid is off',
  );

  // IPv6 hop limit rides on set_ip_ttl; validateProfileSpec refuses it without TTL, this guards unvalidated callers.
  const hopLimit = r.ttl.enabled && r.ipv6HopLimit;
  if (r.ttl.enabled)
    programs.push({ name: 'set_ip_ttl', scope: 'every-packet', config: { ttl: r.ttl.value, ipv6HopLimit: hopLimit } });
  decide(
    'program.set_ip_ttl',
    r.ttl.enabled ? `enabled ttl=${r.ttl.value}${hopLimit ? ' +ipv6' : ''}` : 'disabled',
    r.ttl.enabled
      ? `l3Rewrite.ttl is on: the TTL of every IPv4 packet is set to ${r.ttl.value}${hopLimit ? `, and the IPv6 hop limit too (l3Rewrite.ipv6HopLimit)` : '; IPv6 is left untouched (l3Rewrite.ipv6HopLimit is off)'}`
      : `l3Rewrite.ttl is off${r.ipv6HopLimit ? '; ipv6HopLimit is ignored because it rides on set_ip_ttl' : ''}`,
  );

  if (r.tcpwin.enabled)
    programs.push({ name: 'set_tcp_syn_window', scope: 'first-syn', config: { window: r.tcpwin.value } });
  decide(
    'program.set_tcp_syn_window',
    r.tcpwin.enabled ? `enabled window=${r.tcpwin.value}` : 'disabled',
    r.tcpwin.enabled
      ? `l3Rewrite.tcpwin is on: the window of first TCP SYNs is set to ${r.tcpwin.value}`
      : 'l3Rewrite.tcpwin is off',
  );

  if (r.tcpts) programs.push({ name: 'clear_tcp_syn_ts', scope: 'first-syn', config: {} });
  decide(
    'program.clear_tcp_syn_ts',
    r.tcpts ? 'enabled' : 'disabled',
    r.tcpts
      ? 'l3Rewrite.tcpts is on: the timestamp option of first TCP SYNs is overwritten with NOPs'
      : 'l3Rewrite.tcpts is off',
  );
  // Plan order is the datapath's order, whatever order the switches were read in.
  return programs.sort((a, b) => PROGRAM_NAMES.indexOf(a.name) - PROGRAM_NAMES.indexOf(b.name));
}

/**
 * The datapath's view of a plan's programs (agent/datapath/programs.ts): what the loader patches
 * into each object's .rodata. Values of programs that are not enabled keep the datapath defaults.
 */
export function rewriteConfigOf(plan: Pick<Plan, 'datapath'>): RewriteConfig {
  const config: RewriteConfig = { ...DEFAULT_REWRITE, programs: plan.datapath.programs.map((p) => p.name) };
  for (const program of plan.datapath.programs) {
    if (program.name === 'set_ip_ttl') {
      config.ttl = program.config.ttl;
      config.ipv6HopLimit = program.config.ipv6HopLimit;
    }
    if (program.name === 'set_tcp_syn_window') config.synWindow = program.config.window;
  }
  return config;
}
