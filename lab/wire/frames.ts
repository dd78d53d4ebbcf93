/**
 * Frame construction and checksum verification: the datapath tests' frames and the lab's
 * wire checks (moved here from test/bpf so product tooling, lab/, never imports test/).
 *
 * Written from the RFCs, independently of the BPF programs: checksums are always
 * computed from scratch over the whole header/segment (never incrementally), so a wrong
 * incremental update in a program cannot be mirrored by a matching mistake here.
 */

/** RFC 1071 one's complement sum of 16-bit big-endian words, folded to 16 bits. */
export function onesSum(chunks: Buffer[]): number {
  let sum = 0;
  const all = Buffer.concat(chunks);
  for (let i = 0; i + 1 < all.length; i += 2) sum += all.readUInt16BE(i);
  if (all.length % 2) sum += (all[all.length - 1] ?? 0) << 8;
  while (sum > 0xffff) sum = (sum & 0xffff) + (sum >>> 16);
  return sum;
}

export function checksum(chunks: Buffer[]): number {
  return ~onesSum(chunks) & 0xffff;
}

export interface Ipv4Opts {
  src?: string;
  dst?: string;
  id?: number;
  ttl?: number;
  proto?: number;
  df?: boolean;
  mf?: boolean;
  /** Fragment offset in 8-byte units. */
  fragOffset?: number;
  /** IP options (padded by the caller to a multiple of 4). */
  options?: Buffer;
  tos?: number;
  /** Override tot_len (garbage tests). */
  totLen?: number;
}

export function ip4(addr: string): Buffer {
  return Buffer.from(addr.split('.').map((x) => Number(x)));
}

export function ipv4(payload: Buffer, o: Ipv4Opts = {}): Buffer {
  const opts = o.options ?? Buffer.alloc(0);
  if (opts.length % 4) throw new Error('IPv4 options must be padded to 4 bytes');
  const ihl = 5 + opts.length / 4;
  const h = Buffer.alloc(ihl * 4);
  h[0] = 0x40 | ihl;
  h[1] = o.tos ?? 0;
  h.writeUInt16BE(o.totLen ?? ihl * 4 + payload.length, 2);
  h.writeUInt16BE(o.id ?? 0x1234, 4);
  h.writeUInt16BE((o.df ? 0x4000 : 0) | (o.mf ? 0x2000 : 0) | (o.fragOffset ?? 0), 6);
  h[8] = o.ttl ?? 63;
  h[9] = o.proto ?? 6;
  ip4(o.src ?? '192.0.2.10').copy(h, 12);
  ip4(o.dst ?? '198.51.100.20').copy(h, 16);
  opts.copy(h, 20);
  h.writeUInt16BE(checksum([h]), 10);
  return Buffer.concat([h, payload]);
}

export interface TcpOpts {
  sport?: number;
  dport?: number;
  seq?: number;
  ack?: number;
  flags?: number;
  window?: number;
  options?: Buffer;
  payload?: Buffer;
}

export const TCP_FIN = 0x01;
export const TCP_SYN = 0x02;
export const TCP_RST = 0x04;
export const TCP_PSH = 0x08;
export const TCP_ACK = 0x10;

/** TCP segment with a checksum over the IPv4 pseudo-header of src/dst. */
export function tcp(o: TcpOpts, src = '192.0.2.10', dst = '198.51.100.20'): Buffer {
  const opts = o.options ?? Buffer.alloc(0);
  if (opts.length % 4) throw new Error('TCP options must be padded to 4 bytes');
  const payload = o.payload ?? Buffer.alloc(0);
  const h = Buffer.alloc(20 + opts.length);
  h.writeUInt16BE(o.sport ?? 40000, 0);
  h.writeUInt16BE(o.dport ?? 443, 2);
  h.writeUInt32BE(o.seq ?? 0x01020304, 4);
  h.writeUInt32BE(o.ack ?? 0, 8);
  h[12] = (h.length / 4) << 4;
  h[13] = o.flags ?? TCP_SYN;
  h.writeUInt16BE(o.window ?? 64240, 14);
  opts.copy(h, 20);
  const seg = Buffer.concat([h, payload]);
  seg.writeUInt16BE(checksum([pseudo4(ip4(src), ip4(dst), 6, seg.length), seg]), 16);
  return seg;
}

export function pseudo4(src: Buffer, dst: Buffer, proto: number, len: number): Buffer {
  const p = Buffer.alloc(12);
  src.copy(p, 0);
  dst.copy(p, 4);
  p[9] = proto;
  p.writeUInt16BE(len, 10);
  return p;
}

/** Option builders (RFC 9293, RFC 7323, RFC 2018). */
export const opt = {
  nop: () => Buffer.from([1]),
  eol: () => Buffer.from([0]),
  mss: (v = 1460) => Buffer.from([2, 4, v >> 8, v & 0xff]),
  ws: (s = 7) => Buffer.from([3, 3, s]),
  sackPerm: () => Buffer.from([4, 2]),
  ts: (val = 0xa1b2c3d4, ecr = 0) => {
    const b = Buffer.alloc(10);
    b[0] = 8;
    b[1] = 10;
    b.writeUInt32BE(val, 2);
    b.writeUInt32BE(ecr, 6);
    return b;
  },
  /** Pads with EOL... no: with NOPs is what stacks do in the middle; EOL-padding at the end. */
  pad4: (b: Buffer) => (b.length % 4 ? Buffer.concat([b, Buffer.alloc(4 - (b.length % 4), 0)]) : b),
};

/** Linux's SYN option layout: MSS, SACK_PERM, TS, NOP, WS (TS at even offset 8). */
export function linuxSynOptions(): Buffer {
  return Buffer.concat([opt.mss(), opt.sackPerm(), opt.ts(), opt.nop(), opt.ws()]);
}

/** NOP, MSS, TS, ... : TS starts at TCP byte 25 (odd). */
export function oddTsSynOptions(): Buffer {
  return opt.pad4(
    Buffer.concat([opt.nop(), opt.mss(), opt.ts(0xdeadbeef, 0x01020304), opt.nop(), opt.ws(), opt.sackPerm()]),
  );
}

export function mac(n: number): Buffer {
  return Buffer.from([0x02, 0, 0, 0, 0, n]);
}

export interface L2Opts {
  /** VLAN tags, outermost first: [tpid, vid]. */
  tags?: [number, number][];
  /** Wrap in a PPPoE session header with this PPP protocol (0x0021 IPv4, 0x0057 IPv6). */
  pppoe?: number;
  /** Ethertype of the payload when not PPPoE (default 0x0800). */
  ethertype?: number;
}

export function ether(payload: Buffer, o: L2Opts = {}): Buffer {
  const parts: Buffer[] = [mac(2), mac(1)];
  for (const [tpid, vid] of o.tags ?? []) {
    const t = Buffer.alloc(4);
    t.writeUInt16BE(tpid, 0);
    t.writeUInt16BE(vid & 0x0fff, 2);
    parts.push(t);
  }
  const et = Buffer.alloc(2);
  if (o.pppoe !== undefined) {
    et.writeUInt16BE(0x8864, 0);
    const ph = Buffer.alloc(8);
    ph[0] = 0x11;
    ph[1] = 0x00;
    ph.writeUInt16BE(0x1234, 2);
    ph.writeUInt16BE(payload.length + 2, 4);
    ph.writeUInt16BE(o.pppoe, 6);
    parts.push(et, ph, payload);
  } else {
    et.writeUInt16BE(o.ethertype ?? 0x0800, 0);
    parts.push(et, payload);
  }
  return Buffer.concat(parts);
}

/** Minimal IPv6 header + payload (no extension headers). */
export function ipv6(
  payload: Buffer,
  o: { hopLimit?: number; nextHeader?: number; src?: Buffer; dst?: Buffer } = {},
): Buffer {
  const h = Buffer.alloc(40);
  h.writeUInt32BE(0x60000000, 0);
  h.writeUInt16BE(payload.length, 4);
  h[6] = o.nextHeader ?? 59; // no next header
  h[7] = o.hopLimit ?? 63;
  (o.src ?? Buffer.from('20010db8000000000000000000000001', 'hex')).copy(h, 8);
  (o.dst ?? Buffer.from('20010db8000000000000000000000002', 'hex')).copy(h, 24);
  return Buffer.concat([h, payload]);
}

// ---------------------------------------------------------------- parsing (assertions)

export interface ParsedIpv4 {
  /** Offset of the IPv4 header in the frame. */
  l3: number;
  ihl: number;
  totLen: number;
  id: number;
  ttl: number;
  proto: number;
  fragOffset: number;
  headerChecksumOk: boolean;
  tcp?: ParsedTcp;
}

export interface ParsedTcp {
  l4: number;
  flags: number;
  window: number;
  /** Options as [kind, offsetInTcpHeader, length] (NOP/EOL included). */
  options: [number, number, number][];
  /** Full checksum over pseudo-header + segment; only computed when the segment is complete. */
  checksumOk: boolean | null;
}

/** Finds the IPv4 header behind Ethernet, up to two VLAN tags and PPPoE, or raw (l2 = 'raw'). */
export function findIpv4(frame: Buffer, l2: 'ethernet' | 'raw' = 'ethernet'): ParsedIpv4 | null {
  let off = 0;
  if (l2 === 'ethernet') {
    if (frame.length < 14) return null;
    let et = frame.readUInt16BE(12);
    off = 14;
    for (let i = 0; i < 2 && (et === 0x8100 || et === 0x88a8); i++) {
      if (frame.length < off + 4) return null;
      et = frame.readUInt16BE(off + 2);
      off += 4;
    }
    if (et === 0x8864) {
      if (frame.length < off + 8 || frame.readUInt16BE(off + 6) !== 0x0021) return null;
      off += 8;
    } else if (et !== 0x0800) return null;
  }
  return parseIpv4At(frame, off);
}

export function parseIpv4At(frame: Buffer, l3: number): ParsedIpv4 | null {
  if (frame.length < l3 + 20 || frame[l3]! >> 4 !== 4) return null;
  const ihl = (frame[l3]! & 0x0f) * 4;
  if (ihl < 20 || frame.length < l3 + ihl) return null;
  const totLen = frame.readUInt16BE(l3 + 2);
  const fragField = frame.readUInt16BE(l3 + 6);
  const p: ParsedIpv4 = {
    l3,
    ihl,
    totLen,
    id: frame.readUInt16BE(l3 + 4),
    ttl: frame[l3 + 8]!,
    proto: frame[l3 + 9]!,
    fragOffset: fragField & 0x1fff,
    headerChecksumOk: onesSum([frame.subarray(l3, l3 + ihl)]) === 0xffff,
  };
  if (p.proto === 6 && p.fragOffset === 0 && frame.length >= l3 + ihl + 20) {
    const l4 = l3 + ihl;
    const doff = (frame[l4 + 12]! >> 4) * 4;
    const options: [number, number, number][] = [];
    for (let i = 20; i < doff && l4 + i < frame.length;) {
      const kind = frame[l4 + i]!;
      if (kind === 0 || kind === 1) {
        options.push([kind, i, 1]);
        if (kind === 0) break;
        i++;
        continue;
      }
      const len = frame[l4 + i + 1] ?? 0;
      if (len < 2) break;
      options.push([kind, i, len]);
      i += len;
    }
    const segLen = totLen - ihl;
    const complete = totLen > 0 && frame.length >= l3 + totLen;
    const src = frame.subarray(l3 + 12, l3 + 16);
    const dst = frame.subarray(l3 + 16, l3 + 20);
    p.tcp = {
      l4,
      flags: frame[l4 + 13]!,
      window: frame.readUInt16BE(l4 + 14),
      options,
      checksumOk: complete ? onesSum([pseudo4(src, dst, 6, segLen), frame.subarray(l4, l4 + segLen)]) === 0xffff : null,
    };
  }
  return p;
}
