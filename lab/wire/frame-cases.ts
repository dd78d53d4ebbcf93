/**
 * The crafted frames the program tests run (every parsing trap of docs/DOMAIN.md, The four
 * rewrites) and the reference rewrite they are checked against: built in TypeScript by
 * applying the rewrite and recomputing checksums from scratch. Shared by test/bpf (x86) and
 * the lab's test runs inside the MIPS guests, which must give the same bytes.
 */
import { type ProgramName } from '../../core/programs.js';
import {
  checksum,
  ether,
  findIpv4,
  ipv4,
  ipv6,
  linuxSynOptions,
  oddTsSynOptions,
  opt,
  parseIpv4At,
  pseudo4,
  tcp,
  TCP_ACK,
  TCP_PSH,
  TCP_SYN,
  type L2Opts,
} from './frames.js';

export const TTL = 77; // not a stack default, so every IPv4 frame (TTL 63) must change
export const WINDOW = 29200;

/**
 * The two frames the benchmarks and the lab's timed test runs measure every program on, x86 and
 * MIPS alike: a first SYN and a 1500-byte data segment (TTL 63, ID 0x4d2, window 64240, TS
 * present), so every program has work on its first run.
 */
export const TIMED_FRAMES: { syn: Buffer; data: Buffer } = {
  syn: ether(ipv4(tcp({ options: linuxSynOptions() }), { df: true, id: 0x4d2 })),
  data: ether(
    ipv4(
      tcp({
        flags: TCP_ACK,
        options: Buffer.concat([opt.nop(), opt.nop(), opt.ts()]),
        payload: Buffer.alloc(1448, 0x5a),
      }),
      { df: true, id: 0x4d2 },
    ),
  ),
};

// ------------------------------------------------------------------ frame catalogue

export const SRC = '192.0.2.10';
export const DST = '198.51.100.20';
/** Raw-IP frames: see test/bpf/progrun.ts, bytes 12-13 (source address) must read 0x0800. */
export const RAW_SRC = '8.0.113.7';

export function syn(
  options: Buffer,
  extra: { src?: string; flags?: number; ipOpts?: Buffer; id?: number; mf?: boolean; payload?: Buffer } = {},
): Buffer {
  const src = extra.src ?? SRC;
  const seg = tcp({ flags: extra.flags ?? TCP_SYN, options, payload: extra.payload }, src, DST);
  return ipv4(seg, { src, dst: DST, df: true, id: extra.id ?? 0x4d2, options: extra.ipOpts, mf: extra.mf });
}

export const L2_VARIANTS: [string, L2Opts][] = [
  ['ethernet', {}],
  ['802.1Q', { tags: [[0x8100, 10]] }],
  [
    '802.1ad+802.1Q (QinQ)',
    {
      tags: [
        [0x88a8, 100],
        [0x8100, 7],
      ],
    },
  ],
  ['PPPoE session', { pppoe: 0x0021 }],
  ['802.1Q + PPPoE (DSL VLAN 7)', { tags: [[0x8100, 7]], pppoe: 0x0021 }],
];

export const IP_OPTS_RA = Buffer.from([0x94, 0x04, 0x00, 0x00, 0x01, 0x01, 0x01, 0x00]); // router alert, NOPs, EOL

export interface Case {
  name: string;
  frame: Buffer;
  raw?: boolean;
}

export function tcpCases(): Case[] {
  const cases: Case[] = [];
  for (const [l2name, l2] of L2_VARIANTS) {
    cases.push({ name: `${l2name}: Linux SYN (TS at even offset)`, frame: ether(syn(linuxSynOptions()), l2) });
    cases.push({ name: `${l2name}: SYN with TS at odd offset`, frame: ether(syn(oddTsSynOptions()), l2) });
    cases.push({
      name: `${l2name}: IPv4 options + odd TS`,
      frame: ether(syn(oddTsSynOptions(), { ipOpts: IP_OPTS_RA }), l2),
    });
  }
  cases.push({ name: 'raw IPv4 (PPP device): odd TS', frame: syn(oddTsSynOptions(), { src: RAW_SRC }), raw: true });
  cases.push({
    name: 'raw IPv4 (PPP device): IPv4 options + Linux SYN',
    frame: syn(linuxSynOptions(), { src: RAW_SRC, ipOpts: IP_OPTS_RA }),
    raw: true,
  });
  cases.push({ name: 'SYN-ACK (not a first SYN)', frame: ether(syn(linuxSynOptions(), { flags: TCP_SYN | TCP_ACK })) });
  cases.push({
    name: 'ACK data segment 1500 bytes',
    frame: ether(
      ipv4(
        tcp({
          flags: TCP_ACK | TCP_PSH,
          options: Buffer.concat([opt.nop(), opt.nop(), opt.ts()]),
          payload: Buffer.alloc(1448, 0x5a),
        }),
        { df: true },
      ),
    ),
  });
  cases.push({ name: 'SYN without options', frame: ether(syn(Buffer.alloc(0))) });
  cases.push({
    name: 'SYN, TS at the last 10 option bytes',
    frame: ether(syn(Buffer.concat([opt.mss(), opt.sackPerm(), Buffer.alloc(24, 1), opt.ts()]))),
  });
  cases.push({
    name: 'SYN, two TS options (both odd and even)',
    frame: ether(syn(opt.pad4(Buffer.concat([opt.nop(), opt.ts(1, 2), opt.nop(), opt.ts(3, 4)])))),
  });
  cases.push({
    name: 'SYN, TS after EOL (not an option)',
    frame: ether(
      syn(Buffer.concat([opt.mss(), opt.eol(), Buffer.alloc(1), opt.ts(), Buffer.alloc(0)]).subarray(0, 16)),
    ),
  });
  cases.push({
    name: 'SYN, TS with wrong length 8',
    frame: ether(syn(opt.pad4(Buffer.concat([opt.mss(), Buffer.from([8, 8, 1, 2, 3, 4, 5, 6])])))),
  });
  cases.push({
    name: 'SYN, zero-length option before TS (malformed)',
    frame: ether(syn(opt.pad4(Buffer.concat([Buffer.from([0x1e, 0x00]), opt.ts()])))),
  });
  cases.push({
    name: 'SYN, TS then malformed option (TS honoured by Linux, so cleared)',
    frame: ether(syn(opt.pad4(Buffer.concat([opt.ts(), Buffer.from([0x1e, 0x00])])))),
  });
  cases.push({
    name: 'SYN, option running past the header',
    frame: ether(syn(opt.pad4(Buffer.concat([opt.ts(), opt.nop(), Buffer.from([0x1e, 0x09])])))),
  });
  cases.push({
    name: 'first fragment of a SYN (MF set, offset 0)',
    frame: ether(syn(oddTsSynOptions(), { mf: true })),
  });
  // Bytes after the IP header of a non-first fragment are payload, even if they look like a SYN.
  const synLike = tcp({ flags: TCP_SYN, options: linuxSynOptions() });
  cases.push({
    name: 'non-first fragment whose payload looks like a SYN',
    frame: ether(ipv4(synLike, { fragOffset: 185, id: 0x77 })),
  });
  cases.push({
    name: 'UDP',
    frame: ether(ipv4(Buffer.from('0035003500100000deadbeefcafebabe', 'hex'), { proto: 17 })),
  });
  cases.push({ name: 'ICMP echo', frame: ether(ipv4(Buffer.from('0800f7ff00010001', 'hex'), { proto: 1 })) });
  return cases;
}

/** IPv6 frames: set_ip_ttl's hop-limit rewrite (when switched on), and nothing else's. */
export function ipv6Cases(): Case[] {
  const v6 = ipv6(Buffer.alloc(16, 7), { hopLimit: 3 });
  return [
    ...L2_VARIANTS.map(([l2name, l2]) => ({
      name: `${l2name}: IPv6 hop limit 3`,
      frame: ether(v6, { ...l2, ...(l2.pppoe ? { pppoe: 0x0057 } : { ethertype: 0x86dd }) }),
    })),
    // Left alone: neighbour discovery (255) and MLD (1) must keep their hop limits.
    ...[255, 1].map((hopLimit) => ({
      name: `IPv6 hop limit ${hopLimit}`,
      frame: ether(ipv6(Buffer.alloc(16, 7), { hopLimit, nextHeader: 58 }), { ethertype: 0x86dd }),
    })),
    {
      name: 'IPv6 hop limit already the target',
      frame: ether(ipv6(Buffer.alloc(16, 7), { hopLimit: TTL }), { ethertype: 0x86dd }),
    },
    // tagged: test-run refuses an untagged 0x86dd frame shorter than an IPv6 header
    {
      name: '802.1Q: IPv6 header cut before the addresses',
      frame: ether(v6.subarray(0, 20), { tags: [[0x8100, 10]], ethertype: 0x86dd }),
    },
  ];
}

/** Frames every program must leave byte-for-byte unchanged. */
export function garbageCases(): Case[] {
  const goodSyn = ether(syn(oddTsSynOptions()), { tags: [[0x8100, 7]], pppoe: 0x0021 });
  const cases: Case[] = [
    { name: 'ARP', frame: ether(Buffer.alloc(28, 1), { ethertype: 0x0806 }) },
    { name: 'PPPoE discovery (0x8863)', frame: ether(syn(linuxSynOptions()), { ethertype: 0x8863 }) },
    { name: 'PPPoE session carrying LCP', frame: ether(Buffer.alloc(20, 1), { pppoe: 0xc021 }) },
    {
      name: 'three VLAN tags',
      frame: ether(syn(linuxSynOptions()), {
        tags: [
          [0x88a8, 1],
          [0x8100, 2],
          [0x8100, 3],
        ],
      }),
    },
    { name: 'IPv4 ethertype, version 6 inside', frame: ether(ipv6(Buffer.alloc(8))) },
    {
      name: 'IHL 4',
      frame: (() => {
        const f = ether(syn(linuxSynOptions()));
        f[14] = 0x44;
        return f;
      })(),
    },
    { name: 'tot_len beyond the frame', frame: ether(ipv4(tcp({ options: linuxSynOptions() }), { totLen: 400 })) },
    { name: 'tot_len shorter than IHL', frame: ether(ipv4(tcp({ options: linuxSynOptions() }), { totLen: 12 })) },
    { name: 'tot_len 0 on a non-GSO packet', frame: ether(ipv4(tcp({ options: linuxSynOptions() }), { totLen: 0 })) },
    {
      name: 'PPPoE with bad version/type',
      frame: (() => {
        const f = ether(syn(linuxSynOptions()), { pppoe: 0x0021 });
        f[14] = 0x21;
        return f;
      })(),
    },
  ];
  // Every truncation of a VLAN+PPPoE SYN (bpftool needs at least the 14-byte MAC header).
  for (let len = 14; len < goodSyn.length; len += len < 80 ? 1 : 7)
    cases.push({ name: `VLAN+PPPoE SYN cut at ${len}`, frame: goodSyn.subarray(0, len) });
  // Deterministic junk behind valid L2 headers.
  let seed = 0x2545f491;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 16) & 0xff;
  for (let i = 0; i < 40; i++) {
    const body = Buffer.from(Array.from({ length: 20 + (i % 50) }, rnd));
    body[0] = (body[0]! & 0x0f) | (i % 2 ? 0x30 : 0x40); // alternate version 3 / 4
    if (body[0]! >> 4 === 4) body[0] = 0x40 | (body[0]! & 0x03); // and then IHL < 5
    cases.push({ name: `junk #${i}`, frame: ether(body) });
  }
  return cases;
}

export const TCP_CSUM = 16;
export const IP_CSUM = 10;

export function isFirstSyn(f: Buffer, raw: boolean): boolean {
  const p = raw ? parseIpv4At(f, 0) : findIpv4(f);
  return !!p?.tcp && (p.tcp.flags & 0x12) === 0x02 && p.fragOffset === 0;
}

/** Applies `program` the way docs/DOMAIN.md defines it, recomputing checksums from scratch. */
export function expected(program: ProgramName, frame: Buffer, raw: boolean): Buffer {
  const f = Buffer.from(frame);
  const p = raw ? parseIpv4At(f, 0) : findIpv4(f);
  if (!p) return f;
  const ipHdr = () => f.subarray(p.l3, p.l3 + p.ihl);
  const fixIp = () => {
    f.writeUInt16BE(0, p.l3 + IP_CSUM);
    f.writeUInt16BE(checksum([ipHdr()]), p.l3 + IP_CSUM);
  };
  const fixTcp = () => {
    const seg = f.subarray(p.tcp!.l4, p.l3 + p.totLen);
    seg.writeUInt16BE(0, TCP_CSUM);
    seg.writeUInt16BE(
      checksum([pseudo4(f.subarray(p.l3 + 12, p.l3 + 16), f.subarray(p.l3 + 16, p.l3 + 20), 6, seg.length), seg]),
      TCP_CSUM,
    );
  };
  switch (program) {
    case 'set_ip_id_zero':
      f.writeUInt16BE(0, p.l3 + 4);
      fixIp();
      break;
    case 'set_ip_ttl':
      f[p.l3 + 8] = TTL;
      fixIp();
      break;
    case 'set_tcp_syn_window':
      if (!isFirstSyn(f, raw)) break;
      f.writeUInt16BE(WINDOW, p.tcp!.l4 + 14);
      fixTcp();
      break;
    case 'clear_tcp_syn_ts': {
      if (!isFirstSyn(f, raw)) break;
      let changed = false;
      for (const [kind, at, len] of p.tcp!.options) {
        if (kind === 8 && len === 10) {
          f.fill(1, p.tcp!.l4 + at, p.tcp!.l4 + at + 10);
          changed = true;
        }
      }
      if (changed) fixTcp();
      break;
    }
  }
  return f;
}
