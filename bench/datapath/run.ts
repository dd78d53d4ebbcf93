/**
 * Datapath benchmark, one command: `npm run bench:datapath` (root, after `npm run bpf:build`).
 *
 * 1. ns/packet per program and for the chain with BPF_PROG_TEST_RUN (`bpftool prog run
 *    ... repeat N`) on a first SYN with Linux's options and on a 1500-byte data segment,
 *    next to an empty program (the harness floor). Note: repeat re-runs the program on the
 *    same skb, so only the first iteration rewrites; the number is the steady-state cost of
 *    a packet that already carries the target values (the reference harness measures the
 *    same way). The chain row is the sum of the four programs' runs: each TCX/cls_bpf
 *    program in a chain is a separate bpf_prog_run, like a separate test run.
 * 2. iperf3 throughput and sender CPU, router namespace -> peer namespace over veth with
 *    GSO/TSO off on the router side, for: no rewrite, the eBPF chain (TCX), the nftables
 *    fallback. Modes alternate over several rounds; medians are reported with ratios.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROGRAM_NAMES, BPF_BUILD_DIR, type RewriteConfig } from '../../agent/datapath/programs.js';
import { applyEbpf, detachEbpf } from '../../agent/datapath/loader.js';
import { applyNft, removeNft } from '../../agent/datapath/nft.js';
import { ether, ipv4, linuxSynOptions, opt, tcp, TCP_ACK } from '../../test/bpf/frames.js';
import { ensureBpffs, TestProgram, TEST_PIN_ROOT } from '../../test/bpf/progrun.js';
import { ADDR, Topology } from '../../test/datapath/topology.js';

const REPEAT = Number(process.env.WF_BENCH_REPEAT ?? 5_000_000);
const ROUNDS = Number(process.env.WF_BENCH_ROUNDS ?? 3);
const SECONDS = Number(process.env.WF_BENCH_SECONDS ?? 4);
const REWRITE: RewriteConfig = { programs: [...PROGRAM_NAMES], ttl: 64, synWindow: 65535, ipv6HopLimit: false };

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const frames = {
  // TTL 63, ID 0x4d2, window 64240, TS present: every program has work on the first run
  syn: ether(ipv4(tcp({ options: linuxSynOptions() }), { df: true, id: 0x4d2 })),
  data1500: ether(ipv4(tcp({ flags: TCP_ACK, options: Buffer.concat([opt.nop(), opt.nop(), opt.ts()]), payload: Buffer.alloc(1448, 0x5a) }), { df: true, id: 0x4d2 })),
};

async function progRunBench() {
  await ensureBpffs();
  // the empty program, built here so the floor comes from the same compiler and flags
  const emptyObj = join(BPF_BUILD_DIR, 'bench-empty.o');
  execFileSync('clang', ['-O2', '-g', '-mcpu=v2', '-target', 'bpfel', '-I/usr/include/x86_64-linux-gnu', '-c', join('bench/datapath/empty.bpf.c'), '-o', emptyObj]);
  const emptyPin = `${TEST_PIN_ROOT}/bench-empty-${process.pid}`;
  mkdirSync(TEST_PIN_ROOT, { recursive: true });
  rmSync(emptyPin, { force: true });
  execFileSync('bpftool', ['prog', 'load', emptyObj, emptyPin, 'type', 'classifier']);
  const work = join(BPF_BUILD_DIR, 'bench-frames');
  mkdirSync(work, { recursive: true });
  const runEmpty = (f: Buffer) => {
    writeFileSync(join(work, 'in.bin'), f);
    const out = execFileSync('bpftool', ['-j', 'prog', 'run', 'pinned', emptyPin, 'data_in', join(work, 'in.bin'), 'repeat', String(REPEAT)]);
    return (JSON.parse(String(out)) as { duration: number }).duration;
  };

  const rows: { name: string; syn: number; data: number }[] = [];
  const best = async (fn: () => Promise<number> | number) => {
    const xs: number[] = [];
    for (let i = 0; i < 5; i++) xs.push(await fn());
    return Math.min(...xs);
  };
  rows.push({ name: 'empty program (harness floor)', syn: await best(() => runEmpty(frames.syn)), data: await best(() => runEmpty(frames.data1500)) });
  for (const name of PROGRAM_NAMES) {
    const p = await TestProgram.load(name, REWRITE, 'ethernet', 'bench');
    try {
      rows.push({ name, syn: await best(async () => (await p.run(frames.syn, REPEAT)).durationNs), data: await best(async () => (await p.run(frames.data1500, REPEAT)).durationNs) });
    } finally {
      await p.unload();
    }
  }
  rmSync(emptyPin, { force: true });
  rmSync(work, { recursive: true, force: true });
  const floor = rows[0]!;
  const progs = rows.slice(1);
  const chain = {
    syn: progs.reduce((a, r) => a + r.syn, 0),
    data: progs.reduce((a, r) => a + r.data, 0),
  };
  return { rows, floor, chain };
}

interface IperfResult {
  gbps: number;
  cpuHost: number;
  cpuSecPerGB: number;
}

async function iperf(topo: Topology): Promise<IperfResult> {
  const r = await topo.router.run(['iperf3', '-c', ADDR.peer, '-p', '5201', '-t', String(SECONDS), '-J'], { timeoutMs: (SECONDS + 20) * 1000 });
  if (r.code !== 0) throw new Error(`iperf3: ${r.stdout.slice(-400)} ${r.stderr}`);
  const j = JSON.parse(r.stdout) as { end: { sum_sent: { bits_per_second: number; bytes: number; seconds: number }; cpu_utilization_percent: { host_total: number } } };
  const s = j.end.sum_sent;
  const cpu = j.end.cpu_utilization_percent.host_total;
  return { gbps: s.bits_per_second / 1e9, cpuHost: cpu, cpuSecPerGB: ((cpu / 100) * s.seconds) / (s.bytes / 1e9) };
}

async function throughputBench() {
  const topo = new Topology();
  await topo.create();
  try {
    await topo.addDefaultRoute();
    await topo.startIperfServer();
    const dev = ['nsenter', `--net=/run/netns/${topo.ns.router}`, 'ethtool', '-K', 'wan0', 'gso', 'off', 'tso', 'off'];
    execFileSync(dev[0]!, dev.slice(1));
    // ipIdGso 'leave': measure the programs, not the cost of giving up segmentation offload
    // (reported separately as "eBPF chain + gso_max_segs 1").
    const modes: Record<string, { on: () => Promise<unknown>; off: () => Promise<unknown> }> = {
      none: { on: async () => undefined, off: async () => undefined },
      'eBPF chain (TCX)': { on: () => applyEbpf(topo.router, { rewrite: REWRITE, pinRoot: topo.pinRoot, mode: 'tcx', ipIdGso: 'leave' }), off: () => detachEbpf(topo.router, { pinRoot: topo.pinRoot }) },
      'nftables fallback': { on: () => applyNft(topo.router, { rewrite: REWRITE, ipIdGso: 'leave' }), off: () => removeNft(topo.router) },
      'eBPF chain + gso_max_segs 1': { on: () => applyEbpf(topo.router, { rewrite: REWRITE, pinRoot: topo.pinRoot, mode: 'tcx' }), off: () => detachEbpf(topo.router, { pinRoot: topo.pinRoot }) },
    };
    const res: Record<string, IperfResult[]> = Object.fromEntries(Object.keys(modes).map((k) => [k, []]));
    await iperf(topo); // warm-up
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, m] of Object.entries(modes)) {
        await m.on();
        try {
          res[name]!.push(await iperf(topo));
        } finally {
          await m.off();
        }
      }
    }
    return Object.fromEntries(
      Object.entries(res).map(([k, v]) => [k, { gbps: median(v.map((x) => x.gbps)), cpuHost: median(v.map((x) => x.cpuHost)), cpuSecPerGB: median(v.map((x) => x.cpuSecPerGB)), runs: v.map((x) => x.gbps.toFixed(2)) }]),
    );
  } finally {
    await topo.destroy();
  }
}

const pct = (x: number, base: number) => `${x >= base ? '+' : ''}${(((x - base) / base) * 100).toFixed(1)} %`;

const t0 = Date.now();
const pr = await progRunBench();
const tp = await throughputBench();
const kernel = execFileSync('uname', ['-r']).toString().trim();
const cpu = execFileSync('sh', ['-c', "grep -m1 'model name' /proc/cpuinfo | cut -d: -f2"]).toString().trim();

const lines: string[] = [];
lines.push(`Run: ${new Date().toISOString()}, kernel ${kernel}, ${cpu}, ${execFileSync('nproc').toString().trim()} CPUs, repeat ${REPEAT}, ${ROUNDS} rounds x ${SECONDS} s iperf3`);
lines.push('');
lines.push('| program | first SYN with options (ns) | 1500-byte data segment (ns) | SYN minus floor | data minus floor |');
lines.push('|---|---|---|---|---|');
for (const r of pr.rows) lines.push(`| ${r.name} | ${r.syn} | ${r.data} | ${r.syn - pr.floor.syn} | ${r.data - pr.floor.data} |`);
lines.push(`| chain of four, sum of the four runs | ${pr.chain.syn} | ${pr.chain.data} | ${pr.chain.syn - 4 * pr.floor.syn} | ${pr.chain.data - 4 * pr.floor.data} |`);
lines.push('');
lines.push('| iperf3 router -> peer, veth, GSO/TSO off | Gbit/s (median) | vs none | sender CPU % | CPU s per GB | vs none | runs (Gbit/s) |');
lines.push('|---|---|---|---|---|---|---|');
const base = tp.none!;
for (const [k, v] of Object.entries(tp)) lines.push(`| ${k} | ${v.gbps.toFixed(2)} | ${pct(v.gbps, base.gbps)} | ${v.cpuHost.toFixed(1)} | ${v.cpuSecPerGB.toFixed(3)} | ${pct(v.cpuSecPerGB, base.cpuSecPerGB)} | ${v.runs.join(', ')} |`);
lines.push('');
lines.push(`(bench took ${((Date.now() - t0) / 1000).toFixed(0)} s)`);
console.log(lines.join('\n'));
