/**
 * Traffic through a lab guest as a router, seen on the wire at its WAN peer: the LAN client
 * (namespace wflab-<arch>-lan) pings and opens TCP connections with data to the peer
 * (wflab-<arch>-wan) over the plain WAN (203.0.113.1, 2001:db8:1::1) and over VLAN 100
 * (198.51.100.1), the guest pings the peer itself, and tcpdump in the peer namespace records
 * what arrives. The packets are then judged per path with lab/wire/wire-check.ts (IPv4) and
 * the IPv6 hop-limit check here.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { NetnsHost } from '../../agent/datapath/netns-host.js';
import { LocalHost } from '../../core/host/local-host.js';
import { runChecked, type RouterHost } from '../../core/host/router-host.js';
import { LAB_ADDRESSES } from '../topology.js';
import { capturePackets } from '../wire/capture.js';
import { onesSum } from '../wire/frames.js';
import type { PcapPacket } from '../wire/pcap.js';
import { checkWire, type WireExpect, type WireReport } from '../wire/wire-check.js';

const A = LAB_ADDRESSES;
/** The lab's addresses this module uses (lab/topology.ts). */
export const LAB_ADDR = {
  client: A.lan.client,
  guestLan: A.lan.guest,
  guestLan6: A.lan.guest6,
  guestWan: A.wan.guest,
  guestWan6: A.wan.guest6,
  peer: A.wan.peer,
  peer6: A.wan.peer6,
  peerVlan: A.vlan.peer,
};

const local = new LocalHost();

interface AddrRow {
  ifname: string;
  link?: string;
  addr_info?: { local?: string }[];
}

async function devWith(host: RouterHost, address: string): Promise<AddrRow | undefined> {
  const rows = JSON.parse(await runChecked(host, ['ip', '-j', 'addr', 'show'])) as AddrRow[];
  return rows.find((r) => r.addr_info?.some((a) => a.local === address));
}

/** Packets of one path (plain WAN or VLAN 100), IPv4 judged by checkWire, IPv6 by hop limit. */
export interface PathReport {
  ipv4: WireReport;
  ipv6: Ipv6Report;
}

export interface Ipv6Report {
  packets: number;
  tcp: number;
  echoRequests: number;
  /** Hop limits seen on echo requests and TCP (neighbour discovery and MLD left out). */
  hopLimits: number[];
  violations: string[];
}

export interface TrafficReport {
  plain: PathReport;
  vlan: PathReport;
  /** Largest frame seen (MTU-sized unless something aggregated). */
  maxFrame: number;
  seconds: number;
}

/** A frame's VLAN id (first tag) and the offset and ethertype behind its tags. */
function l2Of(frame: Buffer): { vid: number | null; off: number; ethertype: number } {
  let et = frame.readUInt16BE(12);
  let off = 14;
  let vid: number | null = null;
  while ((et === 0x8100 || et === 0x88a8) && frame.length >= off + 4) {
    vid ??= frame.readUInt16BE(off) & 0x0fff;
    et = frame.readUInt16BE(off + 2);
    off += 4;
  }
  return { vid, off, ethertype: et };
}

/** IPv6 packets: hop limit `hopLimit` on everything but ND (255) and MLD (1); TCP checksums verified. */
export function checkIpv6(packets: PcapPacket[], hopLimit: number | undefined): Ipv6Report {
  const rep: Ipv6Report = { packets: 0, tcp: 0, echoRequests: 0, hopLimits: [], violations: [] };
  for (const [i, pk] of packets.entries()) {
    if (pk.data.length < 14) continue;
    const { off, ethertype } = l2Of(pk.data);
    if (ethertype !== 0x86dd || pk.data.length < off + 40) continue;
    const f = pk.data;
    rep.packets++;
    const next = f[off + 6]!;
    const hl = f[off + 7]!;
    const payload = f.subarray(off + 40, off + 40 + f.readUInt16BE(off + 4));
    const isEcho = next === 58 && payload[0] === 128;
    if (next === 6) {
      rep.tcp++;
      const pseudo = Buffer.alloc(40);
      f.copy(pseudo, 0, off + 8, off + 40);
      pseudo.writeUInt32BE(payload.length, 32);
      pseudo[39] = 6;
      if (onesSum([pseudo, payload]) !== 0xffff) rep.violations.push(`#${i}: bad TCP/IPv6 checksum`);
    }
    if (isEcho) rep.echoRequests++;
    if (next === 6 || isEcho) {
      rep.hopLimits.push(hl);
      if (hopLimit !== undefined && hl !== hopLimit) rep.violations.push(`#${i}: hop limit ${hl} != ${hopLimit}`);
    }
  }
  return rep;
}

/** What a path's packets are expected to carry (undefined: left as the stacks sent them). */
export interface PathExpect {
  ipv4?: WireExpect;
  hopLimit?: number;
}

/** The LAN client and WAN peer of one guest, set up for traffic (routes, listener, offloads) and put back by `close`. */
export class LabTraffic {
  readonly client: NetnsHost;
  readonly peer: NetnsHost;
  private server: ChildProcess | undefined;
  private undo: (() => Promise<unknown>)[] = [];

  private constructor(
    readonly namespaces: string,
    readonly peerDev: string,
    readonly clientDev: string,
  ) {
    this.client = new NetnsHost(local, `${namespaces}-lan`);
    this.peer = new NetnsHost(local, `${namespaces}-wan`);
  }

  /** `namespaces`: the guest's namespace prefix, wflab-<arch> (lab/topology.ts). */
  static async open(namespaces: string): Promise<LabTraffic> {
    const peer = new NetnsHost(local, `${namespaces}-wan`);
    const client = new NetnsHost(local, `${namespaces}-lan`);
    const plain = await devWith(peer, LAB_ADDR.peer);
    const vlan = await devWith(peer, LAB_ADDR.peerVlan);
    const cl = await devWith(client, LAB_ADDR.client);
    if (!plain || !vlan || !cl)
      throw new Error(
        `lab topology ${namespaces}: peer ${LAB_ADDR.peer} ${plain ? 'found' : 'missing'}, peer ${LAB_ADDR.peerVlan} ${vlan ? 'found' : 'missing'}, client ${LAB_ADDR.client} ${cl ? 'found' : 'missing'}`,
      );
    // Both paths arrive on the peer's trunk: the VLAN's frames tagged (lab/topology.ts ends
    // the tag with a tc program on the trunk's ingress, after tcpdump has seen the frame).
    const t = new LabTraffic(namespaces, plain.ifname, cl.ifname);
    await t.prepare();
    return t;
  }

  /** Routes back to the LAN (the lab has no NAT), a TCP listener on the peer, a client that segments itself. */
  private async prepare(): Promise<void> {
    for (const [host, prefix, via] of [
      [this.peer, '192.168.1.0/24', LAB_ADDR.guestWan],
      [this.peer, 'fd00:1::/64', LAB_ADDR.guestWan6],
      [this.client, 'default', LAB_ADDR.guestLan],
      [this.client, 'default', LAB_ADDR.guestLan6],
    ] as const) {
      const family = via.includes(':') ? '-6' : '-4';
      const have = await runChecked(host, ['ip', family, 'route', 'show', prefix]);
      if (have.trim()) continue;
      await runChecked(host, ['ip', family, 'route', 'add', prefix, 'via', via]);
      this.undo.push(() => host.run(['ip', family, 'route', 'del', prefix, 'via', via]));
    }
    // Frames from a LAN port arrive MTU-sized with full checksums (as test/datapath's client):
    // no GSO aggregates or CHECKSUM_PARTIAL seeds from the client's veth.
    await runChecked(this.client, ['ethtool', '-K', this.clientDev, 'tx', 'off', 'tso', 'off', 'gso', 'off']);
    this.undo.push(() => this.client.run(['ethtool', '-K', this.clientDev, 'tx', 'on', 'tso', 'on', 'gso', 'on']));
    this.server = spawn('nsenter', [`--net=/run/netns/${this.peer.netns}`, 'iperf3', '-s', '-p', '5201'], {
      stdio: 'ignore',
    });
    for (let i = 0; i < 50; i++) {
      const r = await this.peer.run(['ss', '-Htln', 'sport = :5201']);
      if (r.stdout.includes('5201')) return;
      await new Promise((res) => setTimeout(res, 100));
    }
    throw new Error('iperf3 server in the WAN peer namespace did not start');
  }

  /**
   * One round of traffic: from the client (forwarded) ICMP echo and TCP with data to the plain
   * and VLAN peers and over IPv6, from the guest (router-originated) ICMP echo to both.
   */
  async traffic(guest: RouterHost, bytes = '64K'): Promise<void> {
    const must = async (host: RouterHost, argv: string[], timeoutMs = 60_000) => {
      const r = await host.run(argv, { timeoutMs });
      if (r.code !== 0)
        throw new Error(`${argv.join(' ')} on ${host.description}: ${(r.stdout + r.stderr).trim().slice(-400)}`);
    };
    for (const target of [LAB_ADDR.peer, LAB_ADDR.peerVlan]) {
      await must(this.client, ['ping', '-c', '3', '-i', '0.2', '-W', '5', target]);
      await must(this.client, ['iperf3', '-c', target, '-p', '5201', '-n', bytes]);
    }
    await must(this.client, ['ping', '-6', '-c', '3', '-i', '0.2', '-W', '5', LAB_ADDR.peer6]);
    await must(this.client, ['iperf3', '-6', '-c', LAB_ADDR.peer6, '-p', '5201', '-n', bytes]);
    for (const target of [LAB_ADDR.peer, LAB_ADDR.peerVlan]) await must(guest, ['ping', '-c', '2', '-W', '5', target]);
  }

  /** Runs `fn` while capturing at the peer; splits the packets by path and judges each. */
  async capture(
    fn: () => Promise<void>,
    expect: { plain: PathExpect; vlan: PathExpect },
  ): Promise<TrafficReport & { packets: PcapPacket[] }> {
    const started = Date.now();
    const packets = await capturePackets(
      { netns: this.peer.netns, dev: this.peerDev },
      'ip or ip6 or (vlan and (ip or ip6))',
      fn,
      1000,
    );
    const vlan = packets.filter((p) => p.data.length >= 14 && l2Of(p.data).vid === 100);
    const plain = packets.filter((p) => p.data.length >= 14 && l2Of(p.data).vid === null);
    const judge = (pk: PcapPacket[], e: PathExpect): PathReport => ({
      ipv4: checkWire(pk, e.ipv4 ?? {}),
      ipv6: checkIpv6(pk, e.hopLimit),
    });
    return {
      plain: judge(plain, expect.plain),
      vlan: judge(vlan, expect.vlan),
      maxFrame: Math.max(0, ...packets.map((p) => p.origLen)),
      seconds: (Date.now() - started) / 1000,
      packets,
    };
  }

  async close(): Promise<void> {
    if (this.server && this.server.exitCode === null) {
      const done = new Promise((res) => this.server!.once('exit', res));
      this.server.kill('SIGKILL');
      await done;
    }
    for (const u of this.undo.reverse()) await u().catch(() => undefined);
    this.undo = [];
  }
}
