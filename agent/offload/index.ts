/**
 * Flow offloading on OpenWrt through uci and the firewall, fw4 or fw3 (docs/DOMAIN.md, Flow
 * offloading).
 *
 * Write path, the same on both: `uci set firewall.@defaults[0].flow_offloading[_hw]=...`,
 * `uci commit firewall`, `/etc/init.d/firewall reload`. Read-back: on fw4 `nft list flowtables`,
 * on fw3 the FLOWOFFLOAD rule in `iptables-save` (agent/offload/fw3.ts): the live kernel state,
 * not what the firewall would generate, so the evidence is what actually runs.
 *
 * fw4 falls back on its own: with flow_offloading_hw=1 on a device without a flow-offload
 * engine, it test-loads the flowtable with `nft -c`, warns "Hardware flow offloading
 * unavailable, falling back to software offloading" and generates the flowtable without
 * `flags offload`. We detect that from the live flowtable (configured hw, no offload flag),
 * and quote the warning when the reload printed it.
 *
 * uncommitted uci changes made by someone else would be committed along with ours by
 * `uci commit firewall`, so we refuse to touch the firewall config while any are pending.
 */
import { runChecked, type RouterHost } from '../../core/host/router-host.js';
import { FW3_FALLBACK_WARNING, fw3LiveMode, readFlowOffloadRules, type FlowOffloadRule } from './fw3.js';

export { FW3_FALLBACK_WARNING, parseFlowOffloadRules, type FlowOffloadRule } from './fw3.js';

export const UCI_DEFAULTS = 'firewall.@defaults[0]';
/** uci and fw4's reload can take long on a slow router's flash; 60 s before we call it failed. */
const UCI_RUN = { timeoutMs: 60_000 };
export const OFFLOAD_OPTIONS = ['flow_offloading', 'flow_offloading_hw'] as const;
export type OffloadOption = (typeof OFFLOAD_OPTIONS)[number];
export type OffloadLiveMode = 'off' | 'software' | 'hardware';
export const FW4_FALLBACK_WARNING = 'Hardware flow offloading unavailable, falling back to software offloading';

/** The two options as uci holds them; null means "not set" (fw4's default, 0). */
export type UciOffloadValues = Record<OffloadOption, string | null>;

export interface Flowtable {
  family: string;
  table: string;
  name: string;
  hook: string | null;
  priority: string | null;
  devices: string[];
  offloadFlag: boolean;
  counter: boolean;
}

export interface OffloadSupport {
  supported: boolean;
  /** Why not, naming the missing piece. */
  reason: string;
  /** Which firewall carries the options (absent when unsupported). */
  firewall?: 'fw4' | 'fw3';
}

export interface OffloadState {
  support: OffloadSupport;
  uci: UciOffloadValues | null;
  /** Mode the uci options ask for (hw only counts with flow_offloading=1). */
  configured: OffloadLiveMode | null;
  /** Mode the kernel runs, from fw4's flowtable or fw3's FLOWOFFLOAD rule. */
  live: OffloadLiveMode | null;
  flowtables: Flowtable[];
  /** fw3: the FLOWOFFLOAD rules of iptables-save (empty on fw4). */
  rules?: FlowOffloadRule[];
  /** fw3: offloaded flows in /proc/net/nf_conntrack, the only sign of what --hw achieved. */
  flows?: { software: number; hardware: number };
  /** Configured hardware but the firewall offloads in software (fw4's flowtable, fw3's flows). */
  fallback: boolean;
}

export interface OffloadApplyEvidence extends OffloadState {
  changes: string[];
  warnings: string[];
}

/**
 * Parses `nft list flowtables` (or any ruleset listing) into flowtables. nft prints one
 * attribute per line: `hook ingress priority filter`, `devices = { a, b }`, `flags offload`,
 * `counter`.
 */
export function parseFlowtables(text: string): Flowtable[] {
  const out: Flowtable[] = [];
  let family = '';
  let table = '';
  let current: Flowtable | null = null;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    let m: RegExpMatchArray | null;
    if ((m = line.match(/^table\s+(\S+)\s+(\S+)\s*\{/))) {
      family = m[1]!;
      table = m[2]!;
    } else if ((m = line.match(/^flowtable\s+(\S+)\s*\{(.*)$/))) {
      current = {
        family,
        table,
        name: m[1]!,
        hook: null,
        priority: null,
        devices: [],
        offloadFlag: false,
        counter: false,
      };
      out.push(current);
      // Single-line form: flowtable ft { hook ingress priority 0; devices = { x }; flags offload; }
      if (m[2]!.includes('}')) {
        for (const part of m[2]!.split(';')) applyAttr(current, part.trim());
        current = null;
      }
    } else if (current) {
      if (line === '}') current = null;
      else for (const part of line.split(';')) applyAttr(current, part.trim());
    }
  }
  return out;
}

function applyAttr(ft: Flowtable, attr: string): void {
  let m: RegExpMatchArray | null;
  if ((m = attr.match(/^hook\s+(\S+)\s+priority\s+(.+)$/))) {
    ft.hook = m[1]!;
    ft.priority = m[2]!.trim();
  } else if ((m = attr.match(/^devices\s*=\s*\{?\s*([^}]*)\}?/))) {
    ft.devices = m[1]!
      .split(',')
      .map((d) => d.trim().replace(/^"|"$/g, ''))
      .filter(Boolean);
  } else if (/^flags\s+.*\boffload\b/.test(attr)) ft.offloadFlag = true;
  else if (attr === 'counter') ft.counter = true;
}

export function configuredMode(values: UciOffloadValues): OffloadLiveMode {
  if (values.flow_offloading !== '1') return 'off';
  return values.flow_offloading_hw === '1' ? 'hardware' : 'software';
}

/** fw4's flowtable (table inet fw4) decides the mode; other tables' flowtables are not ours to judge. */
export function liveMode(flowtables: Flowtable[]): OffloadLiveMode {
  const fw4 = flowtables.filter((f) => f.table === 'fw4');
  if (fw4.length === 0) return 'off';
  return fw4.some((f) => f.offloadFlag) ? 'hardware' : 'software';
}

/**
 * Can this host's flow offloading be managed? Needs uci and fw4 (OpenWrt 22.03+). Without
 * uci the answer is no, and the reason also says whether the kernel could offload at all
 * (a test flowtable in a throw-away table, added and deleted in one nft transaction).
 */
export async function offloadSupport(host: RouterHost): Promise<OffloadSupport> {
  const uci = await host.run(['uci', '-q', 'get', `${UCI_DEFAULTS}`]);
  if (uci.code === 127)
    return {
      supported: false,
      reason: `no uci on this host (not OpenWrt): flow offloading is managed through uci/fw4 only; ${await kernelFlowtableSupport(host)}`,
    };
  if (uci.code !== 0)
    return {
      supported: false,
      reason: 'uci has no firewall defaults section (firewall.@defaults[0]): is the firewall package installed?',
    };
  const fw4 = await host.run(['sh', '-c', 'command -v fw4']);
  if (fw4.code === 0) return { supported: true, firewall: 'fw4', reason: 'uci firewall defaults and fw4 present' };
  const fw3 = await host.run(['sh', '-c', 'command -v fw3']);
  if (fw3.code === 0)
    return {
      supported: true,
      firewall: 'fw3',
      reason: 'uci firewall defaults and fw3 present: offloading is an iptables FLOWOFFLOAD rule (kmod-ipt-offload)',
    };
  return {
    supported: false,
    reason: 'neither fw4 nor fw3 found: no OpenWrt firewall turns the uci options into offloading',
  };
}

async function kernelFlowtableSupport(host: RouterHost): Promise<string> {
  const dev = 'lo';
  const script = `add table inet wf_offload_probe\nadd flowtable inet wf_offload_probe ft { hook ingress priority 0; devices = { ${dev} }; }\ndelete table inet wf_offload_probe\n`;
  const r = await host.run(['nft', '-f', '-'], { input: script });
  if (r.code === 127) return 'nft is not installed either, so kernel flowtable support was not tested';
  if (r.code === 0) return 'the kernel itself does support nftables flowtables (a test flowtable loaded)';
  const config = await host.run([
    'sh',
    '-c',
    'zcat /proc/config.gz 2>/dev/null | grep -E "^(# )?CONFIG_NF_FLOW_TABLE[ =]"',
  ]);
  const cfg = config.stdout.trim();
  const err = (r.stderr.match(/Error: ([^\n]+)/)?.[1] ?? r.stderr.trim()).slice(0, 120);
  return `and this kernel has no nf_flow_table: a test flowtable was refused (${err})${cfg ? `; /proc/config.gz: ${cfg}` : ''}`;
}

export async function readUciOffload(host: RouterHost): Promise<UciOffloadValues> {
  const values = {} as UciOffloadValues;
  for (const option of OFFLOAD_OPTIONS) {
    const r = await host.run(['uci', '-q', 'get', `${UCI_DEFAULTS}.${option}`]);
    // uci -q get exits 1 with no output for an unset option.
    values[option] = r.code === 0 ? r.stdout.trim() : null;
  }
  return values;
}

export async function readOffload(host: RouterHost, support?: OffloadSupport): Promise<OffloadState> {
  const sup = support ?? (await offloadSupport(host));
  if (!sup.supported) return { support: sup, uci: null, configured: null, live: null, flowtables: [], fallback: false };
  const uci = await readUciOffload(host);
  if (sup.firewall === 'fw3') return readFw3Offload(host, sup, uci);
  const flowtables = parseFlowtables(await runChecked(host, ['nft', 'list', 'flowtables']));
  const configured = configuredMode(uci);
  const live = liveMode(flowtables);
  return {
    support: sup,
    uci,
    configured,
    live,
    flowtables,
    fallback: configured === 'hardware' && live === 'software',
  };
}

async function readFw3Offload(host: RouterHost, support: OffloadSupport, uci: UciOffloadValues): Promise<OffloadState> {
  const rules = await readFlowOffloadRules(host);
  if (rules === null) throw new Error('iptables-save -t filter failed: the FLOWOFFLOAD rule cannot be read back');
  const configured = configuredMode(uci);
  const live = fw3LiveMode(rules);
  const conntrack = await host.readFile('/proc/net/nf_conntrack');
  const flows = conntrack ? countOffloadedFlows(conntrack) : { software: 0, hardware: 0 };
  // --hw on the rule with only software-offloaded flows: the engine took none (fw3 cannot tell by itself).
  const fallback = configured === 'hardware' && live === 'hardware' && flows.software > 0 && flows.hardware === 0;
  return { support, uci, configured, live, flowtables: [], rules, flows, fallback };
}

async function pendingFirewallChanges(host: RouterHost): Promise<string> {
  return (await runChecked(host, ['uci', 'changes', 'firewall'])).trim();
}

/**
 * Sets the two options to `target` (null deletes the option: used to restore "unset"),
 * commits, reloads fw4 and reads back. Idempotent: when uci already holds `target` and
 * the live flowtable matches, nothing is written and fw4 is not reloaded.
 */
export async function applyOffload(host: RouterHost, target: UciOffloadValues): Promise<OffloadApplyEvidence> {
  const support = await offloadSupport(host);
  if (!support.supported) throw new Error(`flow offloading unsupported: ${support.reason}`);
  const before = await readOffload(host, support);
  const changes: string[] = [];
  const warnings: string[] = [];
  const uciSame = OFFLOAD_OPTIONS.every((o) => before.uci![o] === target[o]);
  const wantMode = configuredMode(target);
  const liveOk = before.live === wantMode || (wantMode === 'hardware' && before.fallback);
  if (uciSame && liveOk) return { ...before, changes, warnings };

  if (!uciSame) {
    const pending = await pendingFirewallChanges(host);
    if (pending)
      throw new Error(
        `the firewall config has uncommitted uci changes made outside wrtfleet; refusing to commit them along with ours:\n${pending}`,
      );
    for (const option of OFFLOAD_OPTIONS) {
      if (before.uci![option] === target[option]) continue;
      const value = target[option];
      if (value === null) await runChecked(host, ['uci', 'delete', `${UCI_DEFAULTS}.${option}`], UCI_RUN);
      else await runChecked(host, ['uci', 'set', `${UCI_DEFAULTS}.${option}=${value}`], UCI_RUN);
      changes.push(`uci ${option}: ${before.uci![option] ?? '(unset)'} -> ${value ?? '(unset)'}`);
    }
    try {
      await runChecked(host, ['uci', 'commit', 'firewall'], UCI_RUN);
    } catch (err) {
      await host.run(['uci', 'revert', 'firewall']);
      throw err;
    }
    changes.push('uci commit firewall');
  }
  const reload = await runChecked(host, ['/etc/init.d/firewall', 'reload'], { ...UCI_RUN, output: 'stdout+stderr' });
  changes.push('/etc/init.d/firewall reload');
  for (const line of reload.split('\n')) if (line.trim()) warnings.push(line.trim());
  const after = await readOffload(host, support);
  if (after.fallback && support.firewall === 'fw3') warnings.push(FW3_FALLBACK_WARNING);
  else if (after.fallback && !warnings.some((w) => w.includes(FW4_FALLBACK_WARNING))) {
    warnings.push(
      `fw4 installed a software flowtable although flow_offloading_hw=1 (its hardware check failed: ${FW4_FALLBACK_WARNING.toLowerCase()})`,
    );
  }
  return { ...after, changes, warnings };
}

/** Problems between the live state and the mode a plan asked for (empty: verified). */
export function verifyOffload(
  state: OffloadState,
  expected: OffloadLiveMode,
  opts: { acceptFallback?: boolean } = {},
): string[] {
  const problems: string[] = [];
  if (!state.support.supported) return [`flow offloading unsupported: ${state.support.reason}`];
  if (state.configured !== expected)
    problems.push(`uci asks for ${state.configured} offload, the plan for ${expected}`);
  if (state.support.firewall === 'fw3') return [...problems, ...verifyFw3(state, expected, opts)];
  const fw4 = state.flowtables.filter((f) => f.table === 'fw4');
  if (expected === 'off' && fw4.length > 0)
    problems.push(`fw4 flowtable ${fw4.map((f) => f.name).join(', ')} present although offloading is off`);
  if (expected !== 'off' && fw4.length === 0)
    problems.push('no fw4 flowtable in the live ruleset (nft list flowtables)');
  if (expected === 'software' && fw4.some((f) => f.offloadFlag))
    problems.push('fw4 flowtable has flags offload although the plan asks for software offload');
  if (expected === 'hardware' && fw4.length > 0 && !fw4.some((f) => f.offloadFlag) && !opts.acceptFallback) {
    problems.push(`fw4 flowtable has no flags offload: fw4 fell back to software (${FW4_FALLBACK_WARNING})`);
  }
  return problems;
}

function verifyFw3(state: OffloadState, expected: OffloadLiveMode, opts: { acceptFallback?: boolean }): string[] {
  const forward = (state.rules ?? []).filter((r) => r.chain === 'FORWARD');
  if (expected === 'off')
    return forward.length > 0 ? ['FLOWOFFLOAD rule in the FORWARD chain although offloading is off'] : [];
  if (forward.length === 0)
    return [
      'no FLOWOFFLOAD rule in the FORWARD chain (iptables-save -t filter): fw3 did not add it; is kmod-ipt-offload installed?',
    ];
  if (expected === 'software' && forward.some((r) => r.hardware))
    return ['the FLOWOFFLOAD rule has --hw although the plan asks for software offload'];
  if (expected === 'hardware' && !forward.some((r) => r.hardware))
    return ['the FLOWOFFLOAD rule has no --hw although the plan asks for hardware offload'];
  if (expected === 'hardware' && state.fallback && !opts.acceptFallback)
    return [
      `${FW3_FALLBACK_WARNING} (/proc/net/nf_conntrack: ${state.flows?.software ?? 0} [OFFLOAD], 0 [HW_OFFLOAD])`,
    ];
  return [];
}

/** Counts of offloaded conntrack entries ([OFFLOAD] software, [HW_OFFLOAD] hardware). */
export function countOffloadedFlows(conntrack: string): { software: number; hardware: number } {
  let software = 0;
  let hardware = 0;
  for (const line of conntrack.split('\n')) {
    if (line.includes('[HW_OFFLOAD]')) hardware += 1;
    else if (line.includes('[OFFLOAD]')) software += 1;
  }
  return { software, hardware };
}
