/**
 * Traffic through a lab guest as a router, seen on the wire at its WAN peer: the LAN client
 * (namespace wflab-<arch>-lan) pings and opens TCP connections with data to the peer
 * (wflab-<arch>-wan) over the plain WAN (203.0.113.1, 2001:db8:1::1) and over VLAN 100
 * (198.51.100.1), the guest pings the peer itself, and tcpdump in the peer namespace records
 * what arrives. The packets are then judged per path with lab/wire/wire-check.ts (IPv4) and
 * the IPv6 hop-limit check here.
 */
import type { RouterHost } from '../../core/host/router-host.js';
import { capturePackets } from '../wire/capture.js';
import { onesSum } from '../wire/frames.js';
import type { PcapPacket } from '../wire/pcap.js';
import { checkWire, type WireExpect, type WireReport } from '../wire/wire-check.js';
import { deviceWith, IPERF_PORT, IperfPath, PATH_ADDR } from './iperf-path.js';

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

/** The LAN client and WAN peer of one guest, set up for traffic on both paths (IperfPath) and put back by `close`. */
export class LabTraffic extends IperfPath {
  /** `namespaces`: the guest's namespace prefix, wflab-<arch> (lab/topology.ts). */
  static override async open(namespaces: string): Promise<LabTraffic> {
    const { client, peer } = await IperfPath.devices(namespaces);
    // Both paths arrive on the peer's trunk: the VLAN's frames tagged (lab/topology.ts ends
    // the tag with a tc program on the trunk's ingress, after tcpdump has seen the frame).
    const traffic = new LabTraffic(namespaces, client, peer);
    if (!(await deviceWith(traffic.peer, PATH_ADDR.peerVlan)))
      throw new Error(`lab topology ${namespaces}: peer ${PATH_ADDR.peerVlan} missing`);
    return IperfPath.prepared(traffic);
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
    for (const target of [PATH_ADDR.peer, PATH_ADDR.peerVlan]) {
      await must(this.client, ['ping', '-c', '3', '-i', '0.2', '-W', '5', target]);
      await must(this.client, ['iperf3', '-c', target, '-p', String(IPERF_PORT), '-n', bytes]);
    }
    await must(this.client, ['ping', '-6', '-c', '3', '-i', '0.2', '-W', '5', PATH_ADDR.peer6]);
    await must(this.client, ['iperf3', '-6', '-c', PATH_ADDR.peer6, '-p', String(IPERF_PORT), '-n', bytes]);
    for (const target of [PATH_ADDR.peer, PATH_ADDR.peerVlan])
      await must(guest, ['ping', '-c', '2', '-W', '5', target]);
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
}
