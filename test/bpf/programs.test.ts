/**
 * The four TC programs under BPF_PROG_TEST_RUN on crafted frames: every parsing trap of
 * docs/DOMAIN.md (The four rewrites), for each program, asserting the exact output bytes. Expected outputs are
 * built in TypeScript (lab/wire/frames.ts) by applying the rewrite to the input and
 * recomputing checksums from scratch; the program's incremental checksum must verify.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { readElf, readRodata } from '../../agent/datapath/elf.js';
import { bpfObjectFor, CHAIN_OBJECT, configuredObject, type ObjectName } from '../../agent/datapath/programs.js';
import { DEFAULT_REWRITE, PROGRAM_NAMES, type ProgramName } from '../../core/programs.js';
import {
  ether,
  findIpv4,
  ip4,
  ipv4,
  ipv6,
  linuxSynOptions,
  oddTsSynOptions,
  onesSum,
  tcp,
  TCP_SYN,
} from '../../lab/wire/frames.js';
import { RET_CONTINUE, TestProgram, type RunResult } from './progrun.js';
import {
  TTL,
  WINDOW,
  syn,
  IP_OPTS_RA,
  tcpCases,
  ipv6Cases,
  garbageCases,
  expected,
  assertSameModuloChecksums,
} from './program-cases.js';

/** Runs frames[i] through program(cases[i].raw), a batch per framing; results in the frames' order. */
async function runEach(
  cases: readonly { raw?: boolean }[],
  frames: readonly Buffer[],
  program: (raw: boolean) => TestProgram,
): Promise<RunResult[]> {
  const results: RunResult[] = [];
  for (const raw of [false, true]) {
    const at = cases.flatMap((c, i) => (!!c.raw === raw ? [i] : []));
    const ran = await program(raw).runMany(at.map((i) => frames[i]!));
    for (const [k, i] of at.entries()) results[i] = ran[k]!;
  }
  return results;
}

const programs = new Map<string, TestProgram>();
const get = (name: ProgramName, raw = false) => programs.get(`${name}:${raw ? 'raw' : 'eth'}`)!;

beforeAll(async () => {
  for (const name of PROGRAM_NAMES) {
    for (const raw of [false, true]) {
      programs.set(
        `${name}:${raw ? 'raw' : 'eth'}`,
        await TestProgram.load(
          name,
          { ttl: TTL, synWindow: WINDOW, ipv6HopLimit: true },
          raw ? 'raw-ip' : 'ethernet',
          raw ? 'raw' : 'eth',
        ),
      );
    }
  }
});

afterAll(async () => {
  for (const p of programs.values()) await p.unload();
});

describe('test frames themselves (the independent checksum code)', () => {
  it('builds frames whose checksums verify and detects a flipped bit', () => {
    const f = ether(syn(oddTsSynOptions()), { tags: [[0x8100, 7]], pppoe: 0x0021 });
    const p = findIpv4(f)!;
    expect(p.headerChecksumOk).toBe(true);
    expect(p.tcp!.checksumOk).toBe(true);
    expect(p.tcp!.options.find((o) => o[0] === 8)![1] % 2).toBe(1); // the odd-offset case really is odd
    const bad = Buffer.from(f);
    const at = p.tcp!.l4 + 30;
    bad[at] = bad[at]! ^ 0x10;
    expect(findIpv4(bad)!.tcp!.checksumOk).toBe(false);
    expect(onesSum([Buffer.from([0xff, 0xff, 0x00, 0x01])])).toBe(0x0001);
  });
});

for (const name of PROGRAM_NAMES) {
  describe(name, () => {
    it.each(tcpCases().map((c) => [c.name, c] as const))('%s', async (_n, c) => {
      const prog = get(name, !!c.raw);
      const r = await prog.run(c.frame);
      expect(r.retval).toBe(RET_CONTINUE);
      assertSameModuloChecksums(r.out, expected(name, c.frame, !!c.raw), !!c.raw, `${name} / ${c.name}`);
    });

    it('leaves garbage and truncated frames byte-for-byte unchanged', async () => {
      const cases = garbageCases();
      const results = await get(name).runMany(cases.map((c) => c.frame));
      for (const [i, c] of cases.entries()) {
        expect(results[i]!.retval, c.name).toBe(RET_CONTINUE);
        expect(results[i]!.out.toString('hex'), c.name).toBe(c.frame.toString('hex'));
      }
    });
  });
}

/**
 * wf_chain (bpf/wf_chain.bpf.c) runs the same rewrite functions in one program. Its output
 * must be byte-for-byte what the selected stand-alone programs produce one after another,
 * on every frame of the catalogue, for the full chain and for subsets.
 */
describe('wf_chain: the merged program equals its programs run in sequence', () => {
  const SUBSETS: ProgramName[][] = [
    [...PROGRAM_NAMES],
    ['set_ip_id_zero', 'set_ip_ttl'],
    ['set_tcp_syn_window', 'clear_tcp_syn_ts'],
    ['set_ip_ttl', 'clear_tcp_syn_ts'],
    ['set_ip_id_zero', 'set_tcp_syn_window'],
    ['clear_tcp_syn_ts'],
  ];
  const chains = new Map<string, TestProgram>();
  const chain = (subset: ProgramName[], raw: boolean) => chains.get(`${subset.join(',')}:${raw}`)!;

  beforeAll(async () => {
    for (const [i, subset] of SUBSETS.entries()) {
      for (const raw of [false, true]) {
        const cfg = { ttl: TTL, synWindow: WINDOW, ipv6HopLimit: true, programs: subset };
        chains.set(
          `${subset.join(',')}:${raw}`,
          await TestProgram.load(CHAIN_OBJECT, cfg, raw ? 'raw-ip' : 'ethernet', `chain${i}${raw ? 'raw' : 'eth'}`),
        );
      }
    }
  });
  afterAll(async () => {
    for (const p of chains.values()) await p.unload();
  });

  for (const subset of SUBSETS) {
    it(`${subset.join(' + ')}: every TCP case, IPv6 frame and garbage frame`, async () => {
      const cases = [...tcpCases(), ...ipv6Cases(), ...garbageCases()];
      // Each program in turn over every frame (one bpftool process per program and framing).
      let sequential = cases.map((c) => c.frame);
      for (const n of subset) sequential = (await runEach(cases, sequential, (raw) => get(n, raw))).map((r) => r.out);
      const merged = await runEach(
        cases,
        cases.map((c) => c.frame),
        (raw) => chain(subset, raw),
      );
      for (const [i, c] of cases.entries()) {
        expect(merged[i]!.retval, c.name).toBe(RET_CONTINUE);
        expect(merged[i]!.out.toString('hex'), `${subset.join('+')} / ${c.name}`).toBe(sequential[i]!.toString('hex'));
      }
    });
  }

  it('keeps seen/rewritten per rewrite, like the separate programs', async () => {
    const subset: ProgramName[] = ['set_ip_ttl', 'clear_tcp_syn_ts'];
    const p = await TestProgram.load(CHAIN_OBJECT, { ttl: 63, programs: subset }, 'ethernet', 'chaincnt');
    try {
      await p.run(ether(syn(linuxSynOptions())), 3); // TTL already 63; TS cleared on the first run only
      await p.run(ether(ipv4(tcp({}), { ttl: 9 })), 2); // TTL rewritten on the first run; not a SYN
      await p.run(ether(Buffer.alloc(28), { ethertype: 0x0806 })); // ARP: seen by both
      expect(await p.chainCounters(subset)).toEqual({
        set_ip_ttl: { seen: 6n, rewritten: 1n },
        clear_tcp_syn_ts: { seen: 6n, rewritten: 1n },
      });
    } finally {
      await p.unload();
    }
  });
});

describe('what each program changes (spot checks on decoded fields)', () => {
  it('odd-offset TS: clear_tcp_syn_ts leaves 10 NOPs, same header length, valid checksum', async () => {
    const f = ether(syn(oddTsSynOptions(), { ipOpts: IP_OPTS_RA }), {
      tags: [
        [0x88a8, 1],
        [0x8100, 2],
      ],
    });
    const out = (await get('clear_tcp_syn_ts').run(f)).out;
    const p = findIpv4(out)!;
    expect(p.tcp!.options.some((o) => o[0] === 8)).toBe(false);
    expect(p.tcp!.options.filter((o) => o[0] === 1).length).toBeGreaterThanOrEqual(10);
    expect(p.tcp!.checksumOk).toBe(true);
    expect(out.length).toBe(f.length);
  });

  it('set_ip_ttl / set_ip_id_zero touch fragments, SYN-only programs do not', async () => {
    const frag = ether(
      ipv4(tcp({ flags: TCP_SYN, options: linuxSynOptions() }), { fragOffset: 185, id: 0x77, ttl: 5 }),
    );
    expect(findIpv4((await get('set_ip_ttl').run(frag)).out)!.ttl).toBe(TTL);
    expect(findIpv4((await get('set_ip_id_zero').run(frag)).out)!.id).toBe(0);
    expect((await get('set_tcp_syn_window').run(frag)).out.equals(frag)).toBe(true);
  });

  it('IPv6 hop limit: rewritten when enabled (Ethernet, VLAN, PPPoE, raw), untouched when disabled', async () => {
    const v6 = ipv6(Buffer.alloc(16, 7), { hopLimit: 3 });
    for (const l2 of [{}, { tags: [[0x8100, 5]] as [number, number][] }, { pppoe: 0x0057 }]) {
      const f = ether(v6, { ...l2, ethertype: 0x86dd });
      const out = (await get('set_ip_ttl').run(f)).out;
      const l3 = f.length - v6.length;
      expect(out[l3 + 7]).toBe(TTL);
      expect(out.subarray(0, l3 + 7).equals(f.subarray(0, l3 + 7))).toBe(true);
    }
    // raw: test-run reads bytes 12-13 as the ethertype: source address 2001:db8:86dd::
    // (and wants at least 14 + 40 bytes for an "IPv6" frame)
    const rawV6 = ipv6(Buffer.alloc(16), { hopLimit: 9, src: Buffer.from('20010db886dd00000000000000000001', 'hex') });
    expect((await get('set_ip_ttl', true).run(rawV6)).out[7]).toBe(TTL);

    // Neighbour discovery (255) and MLD (1) keep theirs; the limits next to them are rewritten.
    const limits = [0, 1, 2, 254, 255];
    const framed = limits.map((hopLimit) =>
      ether(ipv6(Buffer.alloc(16, 7), { hopLimit, nextHeader: 58 }), { ethertype: 0x86dd }),
    );
    const ran = await get('set_ip_ttl').runMany(framed);
    expect(ran.map((r) => r.out[14 + 7])).toEqual([0, 1, TTL, TTL, 255]);
    expect(ran.map((r) => r.retval)).toEqual(limits.map(() => RET_CONTINUE));

    const off = await TestProgram.load('set_ip_ttl', { ttl: TTL, ipv6HopLimit: false }, 'ethernet', 'v6off');
    try {
      const f = ether(v6, { ethertype: 0x86dd });
      expect((await off.run(f)).out.equals(f)).toBe(true);
      // IPv4 still rewritten by the same object
      expect(findIpv4((await off.run(ether(syn(linuxSynOptions())))).out)!.ttl).toBe(TTL);
    } finally {
      await off.unload();
    }
  });

  it('default configuration: TTL 64, window 65535', async () => {
    const ttl = await TestProgram.load('set_ip_ttl', {}, 'ethernet', 'dflt');
    const win = await TestProgram.load('set_tcp_syn_window', {}, 'ethernet', 'dflt');
    try {
      const f = ether(syn(linuxSynOptions()));
      expect(findIpv4((await ttl.run(f)).out)!.ttl).toBe(64);
      const w = findIpv4((await win.run(f)).out)!;
      expect(w.tcp!.window).toBe(65535);
      expect(w.tcp!.checksumOk).toBe(true);
    } finally {
      await ttl.unload();
      await win.unload();
    }
  });

  it('counters: seen counts every packet, rewritten only changed ones', async () => {
    const p = await TestProgram.load('set_ip_ttl', { ttl: 63 }, 'ethernet', 'cnt');
    try {
      const at63 = ether(syn(linuxSynOptions())); // builder default TTL is 63: nothing to do
      const at9 = ether(ipv4(tcp({}), { ttl: 9 }));
      const arp = ether(Buffer.alloc(28), { ethertype: 0x0806 });
      await p.run(at63, 5);
      for (let i = 0; i < 3; i++) await p.run(at9);
      await p.run(arp, 2);
      // repeat N runs the program N times on the SAME skb: the first run rewrites, the
      // other three see TTL 63 already (this is also why benchmarks report both paths).
      await p.run(at9, 4);
      const c = await p.counters();
      expect(c).toEqual({ seen: 14n, rewritten: 4n });
    } finally {
      await p.unload();
    }
  });

  it('all four chained in sequence give one valid frame (order-independent rewrites)', async () => {
    const f0 = ether(syn(oddTsSynOptions(), { ipOpts: IP_OPTS_RA }), { tags: [[0x8100, 7]], pppoe: 0x0021 });
    let a = f0;
    for (const n of PROGRAM_NAMES) a = (await get(n).run(a)).out;
    let b = f0;
    for (const n of [...PROGRAM_NAMES].reverse()) b = (await get(n).run(b)).out;
    expect(a.equals(b)).toBe(true);
    const p = findIpv4(a)!;
    expect([p.id, p.ttl, p.tcp!.window, p.headerChecksumOk, p.tcp!.checksumOk]).toEqual([0, TTL, WINDOW, true, true]);
    expect(p.tcp!.options.some((o) => o[0] === 8)).toBe(false);
  });
});

describe('objects', () => {
  it('bpfel and bpfeb objects exist for every program with the right byte order and patchable .rodata', () => {
    for (const name of [...PROGRAM_NAMES, CHAIN_OBJECT] as ObjectName[]) {
      for (const endian of ['bpfel', 'bpfeb'] as const) {
        const buf = readFileSync(bpfObjectFor(endian, name));
        expect(readElf(buf).littleEndian, `${endian}/${name}`).toBe(endian === 'bpfel');
        const o = configuredObject(endian, name, { ...DEFAULT_REWRITE, ttl: 128, synWindow: 1234 }, 'raw-ip');
        expect(readRodata(o.bytes, 'wf_cfg_l2')).toBe(1);
        if (name === 'set_ip_ttl') expect(readRodata(o.bytes, 'wf_cfg_ttl')).toBe(128);
        if (name === 'set_tcp_syn_window') expect(readRodata(o.bytes, 'wf_cfg_syn_window')).toBe(1234);
        if (name === CHAIN_OBJECT) {
          expect([
            readRodata(o.bytes, 'wf_cfg_ttl'),
            readRodata(o.bytes, 'wf_cfg_syn_window'),
            readRodata(o.bytes, 'wf_cfg_chain'),
          ]).toEqual([128, 1234, 0b1111]);
        }
      }
    }
  });
});

void ip4;
