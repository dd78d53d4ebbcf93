/**
 * Checks every captured IPv4 packet against what the rewrite chain promises on the wire.
 * Uses the independent parser/checksum code of frames.ts (shared by the x86 datapath tests and
 * the lab's checks on the MIPS guests).
 */
import { findIpv4, onesSum, pseudo4 } from './frames.js';
import type { PcapPacket } from './pcap.js';

export interface WireExpect {
  ttl?: number;
  idZero?: boolean;
  synWindow?: number;
  noSynTimestamp?: boolean;
  /**
   * Accept a TCP checksum that is exactly the pseudo-header sum: what CHECKSUM_PARTIAL
   * packets carry when checksum offload is on (veth hands them over uncompleted; a NIC
   * fills in the rest). Anything else, e.g. a seed the program corrupted, still fails.
   */
  allowPartialChecksum?: boolean;
}

export interface WireReport {
  ipv4: number;
  tcp: number;
  icmp: number;
  firstSyns: number;
  fullChecksums: number;
  partialChecksums: number;
  maxLen: number;
  violations: string[];
}

export function checkWire(packets: PcapPacket[], exp: WireExpect): WireReport {
  const rep: WireReport = {
    ipv4: 0,
    tcp: 0,
    icmp: 0,
    firstSyns: 0,
    fullChecksums: 0,
    partialChecksums: 0,
    maxLen: 0,
    violations: [],
  };
  const bad = (i: number, msg: string) => {
    if (rep.violations.length < 20) rep.violations.push(`#${i}: ${msg}`);
    else if (rep.violations.length === 20) rep.violations.push('...');
  };
  packets.forEach((pk, i) => {
    if (pk.data.length < pk.origLen) return bad(i, 'capture truncated');
    const p = findIpv4(pk.data);
    if (!p) return;
    rep.ipv4++;
    rep.maxLen = Math.max(rep.maxLen, p.totLen);
    if (!p.headerChecksumOk) bad(i, 'bad IPv4 header checksum');
    if (exp.ttl !== undefined && p.ttl !== exp.ttl) bad(i, `TTL ${p.ttl} != ${exp.ttl}`);
    if (exp.idZero && p.id !== 0) bad(i, `IP ID ${p.id} != 0 (len ${p.totLen})`);
    if (p.proto === 1) {
      rep.icmp++;
      if (onesSum([pk.data.subarray(p.l3 + p.ihl, p.l3 + p.totLen)]) !== 0xffff) bad(i, 'bad ICMP checksum');
    }
    if (!p.tcp) return;
    rep.tcp++;
    const t = p.tcp;
    if (t.checksumOk) rep.fullChecksums++;
    else {
      const seg = pk.data.subarray(t.l4, p.l3 + p.totLen);
      const ps = onesSum([
        pseudo4(pk.data.subarray(p.l3 + 12, p.l3 + 16), pk.data.subarray(p.l3 + 16, p.l3 + 20), 6, seg.length),
      ]);
      if (exp.allowPartialChecksum && seg.readUInt16BE(16) === ps) rep.partialChecksums++;
      else bad(i, `bad TCP checksum (flags 0x${t.flags.toString(16)}, len ${p.totLen})`);
    }
    if ((t.flags & 0x12) === 0x02) {
      rep.firstSyns++;
      if (exp.synWindow !== undefined && t.window !== exp.synWindow)
        bad(i, `first SYN window ${t.window} != ${exp.synWindow}`);
      if (exp.noSynTimestamp && t.options.some((o) => o[0] === 8)) bad(i, 'first SYN still carries a Timestamp option');
    }
  });
  return rep;
}
