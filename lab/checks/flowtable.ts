/**
 * Software flow offloading on a lab guest as OpenWrt's fw4 sets it up for `flow_offloading=1`
 * (the captured `fw4 print` / `nft list ruleset` in fixtures/ and test/agent/apply/transcripts/):
 * a flowtable `ft` on the ingress hook of the LAN and WAN devices, and the forward chain's
 * `meta l4proto { tcp, udp } flow offload @ft` ahead of the established-accept verdict map.
 * The guest has no uci or fw4, so the table is written with nft directly (the agent's own
 * offload code, agent/offload, drives uci and fw4 and reads back exactly this flowtable).
 *
 * And the kernel state the offload checks and the lab bench read back: offloaded entries in
 * /proc/net/nf_conntrack, the forward chain's packet counter (frozen once flows bypass the
 * hooks), the egress qdisc's counters, the devices' packet counters and /proc/stat.
 */
import { runChecked, type RouterHost } from '../../core/host/router-host.js';

export const FW4_TABLE = 'fw4';
/** The comment fw4 puts on its offload rule; the lab's rule carries it too. */
const OFFLOAD_RULE_COMMENT = '!fw4: Traffic offloading';
const FORWARD_COUNTER_COMMENT = 'lab: packets on the forward hook';

/**
 * The part of fw4's table that offloading needs, for `devices` (fw4 lists the LAN and WAN
 * devices of its zones). The first rule only counts: a packet of an offloaded flow never
 * reaches it. `offload: false` leaves the flowtable and its rule out: fw4 without
 * flow_offloading, conntrack and the forward chain alone.
 */
export function fw4Script(devices: string[], offload = true): string {
  for (const d of devices) if (!/^[A-Za-z0-9_.@-]+$/.test(d)) throw new Error(`refusing device name ${d}`);
  return [
    `add table inet ${FW4_TABLE}`,
    `delete table inet ${FW4_TABLE}`,
    `table inet ${FW4_TABLE} {`,
    ...(offload
      ? [
          '  flowtable ft {',
          '    hook ingress priority filter',
          `    devices = { ${devices.join(', ')} }`,
          '    counter',
          '  }',
        ]
      : []),
    '  chain forward {',
    '    type filter hook forward priority filter; policy accept;',
    `    meta l4proto tcp counter comment "${FORWARD_COUNTER_COMMENT}"`,
    ...(offload ? [`    meta l4proto { tcp, udp } flow offload @ft comment "${OFFLOAD_RULE_COMMENT}"`] : []),
    '    ct state vmap { established : accept, related : accept, invalid : drop } comment "!fw4: Handle forwarded flows"',
    '  }',
    '}',
    '',
  ].join('\n');
}

/** Installs (or replaces, in one transaction) the fw4-like table. */
export async function installFw4(host: RouterHost, devices: string[], offload = true): Promise<void> {
  await runChecked(host, ['nft', '-f', '-'], { input: fw4Script(devices, offload) });
}

/** Deletes the table; the flowtable's flows are torn down with it. */
export async function removeFw4(host: RouterHost): Promise<void> {
  const r = await host.run(['nft', 'list', 'table', 'inet', FW4_TABLE]);
  if (r.code === 0) await runChecked(host, ['nft', 'delete', 'table', 'inet', FW4_TABLE]);
}

/** One TCP entry of /proc/net/nf_conntrack, the fields the checks read. */
export interface ConntrackEntry {
  line: string;
  /** TCP state; empty while the flow is offloaded (the entry then prints none). */
  state: string;
  src: string;
  dst: string;
  sport: number;
  dport: number;
  /** `[OFFLOAD]` (software) or `[HW_OFFLOAD]` on the line. */
  offload: 'software' | 'hardware' | null;
  assured: boolean;
}

/** The TCP entries of /proc/net/nf_conntrack (the original direction's tuple). */
export function parseConntrack(text: string): ConntrackEntry[] {
  const out: ConntrackEntry[] = [];
  for (const line of text.split('\n')) {
    // An offloaded entry has neither timeout nor state: `tcp 6 src=...` (the flowtable owns its timer).
    const m = line.match(/\btcp\s+\d+\s+(?:\d+\s+)?(?:([A-Z_]+)\s+)?src=(\S+)\s+dst=(\S+)\s+sport=(\d+)\s+dport=(\d+)/);
    if (!m) continue;
    out.push({
      line: line.trim(),
      state: m[1] ?? '',
      src: m[2]!,
      dst: m[3]!,
      sport: Number(m[4]),
      dport: Number(m[5]),
      offload: line.includes('[HW_OFFLOAD]') ? 'hardware' : line.includes('[OFFLOAD]') ? 'software' : null,
      assured: line.includes('[ASSURED]'),
    });
  }
  return out;
}

/** A snapshot of everything the offload observations compare between two instants, in one command. */
export interface KernelSample {
  at: number;
  conntrack: ConntrackEntry[];
  /** Packets the forward chain's counting rule saw (null: no fw4 table). */
  forwardPackets: number | null;
  /** Packets our nftables fallback's rules counted, summed (null: no wrtfleet table). */
  nftRewritePackets: number | null;
  /** Packets the egress qdiscs of `qdiscDev` sent (all of them summed: mq + its children count twice, so root only). */
  qdiscPackets: number;
  /** rx/tx packets per device from /proc/net/dev. */
  dev: Record<string, { rx: number; tx: number }>;
  /** /proc/stat's first line: busy and idle USER_HZ ticks of all CPUs. */
  cpu: { busy: number; idle: number };
}

const SAMPLE_SEPARATOR = '----wf-sample----';

/** Reads conntrack, nft counters, the qdisc, the devices and CPU time in one round trip. */
export async function sampleKernel(host: RouterHost, qdiscDev = 'eth1'): Promise<KernelSample> {
  const parts = [
    'cat /proc/net/nf_conntrack 2>/dev/null',
    `nft -j list table inet ${FW4_TABLE} 2>/dev/null`,
    'nft -j list table inet wrtfleet 2>/dev/null',
    `tc -s -j qdisc show dev ${qdiscDev} root`,
    'cat /proc/net/dev',
    'head -n1 /proc/stat',
  ];
  const at = Date.now();
  const out = await runChecked(host, ['sh', '-c', parts.join(`; echo ${SAMPLE_SEPARATOR}; `)]);
  const [conntrack, fw4, ours, qdisc, dev, stat] = out.split(`${SAMPLE_SEPARATOR}\n`);
  return {
    at,
    conntrack: parseConntrack(conntrack ?? ''),
    forwardPackets: ruleCounter(fw4 ?? '', (r) => r.comment === FORWARD_COUNTER_COMMENT),
    nftRewritePackets: ruleCounter(ours ?? '', () => true),
    qdiscPackets: ((JSON.parse(qdisc || '[]') as { packets?: number }[])[0]?.packets ?? 0) as number,
    dev: parseNetDev(dev ?? ''),
    cpu: parseCpu(stat ?? ''),
  };
}

interface NftRule {
  comment?: string;
  expr?: { counter?: { packets: number } }[];
}

/** Sums the packets of the counters in the rules `pick` selects; null when the listing is empty (no table). */
function ruleCounter(json: string, pick: (r: NftRule) => boolean): number | null {
  if (!json.trim()) return null;
  const items = (JSON.parse(json) as { nftables: { rule?: NftRule }[] }).nftables;
  let sum = 0;
  for (const it of items)
    if (it.rule && pick(it.rule)) for (const e of it.rule.expr ?? []) sum += e.counter?.packets ?? 0;
  return sum;
}

export function parseNetDev(text: string): Record<string, { rx: number; tx: number }> {
  const out: Record<string, { rx: number; tx: number }> = {};
  for (const line of text.split('\n')) {
    const m = line.match(/^\s*([^:\s]+):\s*(.*)$/);
    if (!m) continue;
    const f = m[2]!.trim().split(/\s+/).map(Number);
    if (f.length >= 10) out[m[1]!] = { rx: f[1]!, tx: f[9]! };
  }
  return out;
}

/** user nice system idle iowait irq softirq steal: busy is all but idle and iowait. */
export function parseCpu(line: string): { busy: number; idle: number } {
  const f = line.trim().split(/\s+/).slice(1).map(Number);
  const idle = (f[3] ?? 0) + (f[4] ?? 0);
  const total = f.slice(0, 8).reduce((a, x) => a + (Number.isFinite(x) ? x : 0), 0);
  return { busy: total - idle, idle };
}

/** The flows of the lab's iperf3 (TCP to port 5201 of `peer`) in a sample. */
export function iperfFlows(s: KernelSample, peer: string): ConntrackEntry[] {
  return s.conntrack.filter((c) => c.dst === peer && c.dport === 5201);
}
