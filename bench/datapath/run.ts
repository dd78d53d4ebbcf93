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
 *    The same programs again on the rewrite path, where every run rewrites (what a router
 *    does to most forwarded packets: forwarding decrements the TTL, senders number their
 *    IDs): rewrite-harness.bpf.c restores the frame's header and tail-calls the program;
 *    the floor is the harness tail-calling the empty program.
 * 2. iperf3 throughput over veth with GSO/TSO off on the router's wan0, two traffic kinds:
 *    - forwarded: client namespace -> router -> peer, the client sending MTU-sized frames
 *      (GSO/TSO off on cl0), so every packet crosses the router's TC egress on its own: this
 *      is a router's real work and the case where per-packet program cost shows;
 *    - router-originated: router namespace -> peer. Note that the router's own TCP still
 *      builds ~64 KB GSO super-packets that cross TC once and are segmented in software
 *      after it (Linux TCP always uses GSO; `ethtool gso off` only moves the split).
 *    Apples to apples (see docs/BENCHMARKS.md "Datapath"):
 *    - `clear_tcp_syn_ts` makes every connection run without TCP timestamps (the peer never
 *      sees TS in the SYN, so neither side uses them). That changes TCP itself (receive
 *      window autotuning, spurious-retransmit undo), whatever removes the option (eBPF, nft,
 *      or the sender's own sysctl). So each kind also runs "none, sender without TCP
 *      timestamps" (net.ipv4.tcp_timestamps=0 at the sender, no rewrite): the baseline with
 *      the same TCP on the wire as the chain produces. The programs' cost is chain vs that.
 *    - iperf3 client and server are pinned to one CPU (-A). Unpinned, the sending socket
 *      transmits from process context on one CPU and from ACK-driven softirq on another;
 *      veth queues each packet on the transmitting CPU's backlog, so the receiver sees
 *      reordering, the sender makes spurious fast retransmits (the receiver drops them as
 *      TCP_OLD_SEQUENCE) and throughput swings by +-30 % between identical runs.
 *    - modes alternate within each round, in a new order every round; every ratio is taken
 *      against "none" of the same round (other load on the machine drifts between rounds), and
 *      the median and the geometric mean with its 95 % CI are reported.
 * 3. One forwarded flow with the modes switched under it (windowsBench): the throughput
 *    figure on a noisy machine. Next to the product's modes, an empty program attached by
 *    TCX: the control that pays the dispatch and nothing else; it, candidates and wf_chain as
 *    the loader configures it are loaded once and switched by one attach/detach each, so
 *    windows of those modes alone can be short and many (the flow's throughput moves between
 *    levels that last seconds; quick alternation keeps a round within one level).
 * 4. The programs' run time in the datapath (runTimeBench): the kernel's own per-program
 *    accounting on the same one flow, ns per forwarded packet and its share of the CPU's time.
 * WF_BENCH_CANDIDATES adds other builds (e.g. a changed wf_chain) to parts 1, 3 and 4, so a
 * change is measured against the current build in the same run.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CHAIN_OBJECT, BPF_BUILD_DIR, LOCAL_TCX_HELPER, configuredObject } from '../../agent/datapath/programs.js';
import { PROGRAM_NAMES, type RewriteConfig } from '../../core/programs.js';
import type { ProgramLayout } from '../../agent/datapath/attach-interface.js';
import { applyEbpf, detachEbpf, type DatapathEvidence } from '../../agent/datapath/loader.js';
import { applyNft, removeNft } from '../../agent/datapath/nft.js';
import { ether, ipv4, linuxSynOptions, opt, tcp, TCP_ACK } from '../../test/bpf/frames.js';
import { compileBpfObject, ensureBpffs, TestProgram, TEST_PIN_ROOT } from '../../test/bpf/progrun.js';
import { ADDR, Topology } from '../../test/datapath/topology.js';
import type { NetnsHost } from '../../agent/datapath/netns-host.js';
import { runChecked } from '../../core/host/router-host.js';

const REPEAT = Number(process.env.WF_BENCH_REPEAT ?? 2_000_000);
const ROUNDS = Number(process.env.WF_BENCH_ROUNDS ?? 5);
// The test-run part is cheap per round, and its differences are under 1 ns on a VM whose
// rounds spread over several ns: many short rounds pin a paired mean down better than a few
// long ones (the noise comes in bursts longer than one run).
const PROGRUN_ROUNDS = Number(process.env.WF_BENCH_PROGRUN_ROUNDS ?? Math.max(ROUNDS, 50));
// WF_BENCH_PARTS=progrun (or throughput): run one half only
const PARTS = new Set((process.env.WF_BENCH_PARTS ?? 'progrun,throughput').split(','));
const SECONDS = Number(process.env.WF_BENCH_SECONDS ?? 3);
// the alternating-windows measurement (see windowsBench)
const WINDOW_ROUNDS = Number(process.env.WF_BENCH_WINDOW_ROUNDS ?? 60);
const WINDOW_MS = Number(process.env.WF_BENCH_WINDOW_MS ?? 400);
// the modes the windows compare with "none": '|'-separated prefixes of their names (default: all).
// Fewer modes, more rounds in the same time: WF_BENCH_WINDOW_MODES='eBPF, merged' tightens the chain's CI.
const WINDOW_MODES = process.env.WF_BENCH_WINDOW_MODES?.split('|');
// time after a mode is switched on before its window opens
const WINDOW_SETTLE_MS = Number(process.env.WF_BENCH_WINDOW_SETTLE_MS ?? 100);
// the run-time accounting (see runTimeBench): rounds (0 skips it) and window
const RUNTIME_ROUNDS = Number(process.env.WF_BENCH_RUNTIME_ROUNDS ?? 20);
const RUNTIME_MS = Number(process.env.WF_BENCH_RUNTIME_MS ?? 1000);
// Candidate builds measured next to the modes in the windows and the run time, e.g. a changed
// wf_chain against the current one: 'label=path/to/object.o|...', each object one TC program,
// attached as compiled (see tcxObject)
const CANDIDATES = (process.env.WF_BENCH_CANDIDATES?.split('|') ?? []).map((c) => {
  const [label, path] = c.split('=');
  if (!label || !path) throw new Error(`WF_BENCH_CANDIDATES: "${c}" is not label=object.o`);
  return { name: `candidate ${label}`, path };
});
const REWRITE: RewriteConfig = { programs: [...PROGRAM_NAMES], ttl: 64, synWindow: 65535, ipv6HopLimit: false };

/** A copy of xs in random order (Fisher-Yates). */
function shuffled<T>(xs: T[]): T[] {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const mean = (xs: number[]) => xs.reduce((a, x) => a + x, 0) / xs.length;
/** Mean of paired differences a[i] - b[i] (same round) with its 95 % confidence half-width. */
function pairedDifference(a: number[], b: number[]): { mean: number; ci95: number } {
  const d = a.map((x, i) => x - b[i]!);
  const m = mean(d);
  const sd = Math.sqrt(d.reduce((acc, x) => acc + (x - m) ** 2, 0) / Math.max(1, d.length - 1));
  return { mean: m, ci95: (1.96 * sd) / Math.sqrt(d.length) };
}

const frames = {
  // TTL 63, ID 0x4d2, window 64240, TS present: every program has work on the first run
  syn: ether(ipv4(tcp({ options: linuxSynOptions() }), { df: true, id: 0x4d2 })),
  data1500: ether(
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

/** Bytes the rewrite-path harness restores before each run: L2 + IPv4 + TCP headers of the frame. */
const HARNESS_RESTORE_BYTES = { syn: frames.syn.length, data: 14 + 20 + 32 };
/** rewrite-harness.bpf.c's WF_HARNESS_MAX_BYTES: the size of its template's byte array. */
const HARNESS_MAX_BYTES = 128;
/** rewrite-harness.bpf.c's verdict when it could not reach the program under test. */
const HARNESS_TAIL_CALL_FAILED = 99;

/** The empty program (the harness floor, and the windows' control), built once per run with the bench's flags. */
let emptyObject: string | undefined;
const buildEmptyObject = () =>
  (emptyObject ??= compileBpfObject('bench/datapath/empty.bpf.c', join(BPF_BUILD_DIR, 'bench-empty.o')));

interface RunRows {
  name: string;
  syn: number; // best of the rounds
  data: number;
  synMean: number;
  dataMean: number;
  runs: { syn: number[]; data: number[] };
}

function summarise(name: string, runs: { syn: number[]; data: number[] }): RunRows {
  return {
    name,
    syn: Math.min(...runs.syn),
    data: Math.min(...runs.data),
    synMean: mean(runs.syn),
    dataMean: mean(runs.data),
    runs,
  };
}

async function progRunBench() {
  await ensureBpffs();
  mkdirSync(TEST_PIN_ROOT, { recursive: true });
  const pins = `${TEST_PIN_ROOT}/bench-${process.pid}`;
  rmSync(pins, { recursive: true, force: true });
  mkdirSync(pins, { recursive: true });
  const work = join(BPF_BUILD_DIR, 'bench-frames');
  mkdirSync(work, { recursive: true });
  const bpftool = (args: string[]) => execFileSync('bpftool', args).toString();
  // the empty program and the harness, built by the bench so they come from the same compiler and flags
  const emptyPin = `${pins}/empty`;
  bpftool(['prog', 'load', buildEmptyObject(), emptyPin, 'type', 'classifier']);
  const harnessPin = `${pins}/harness`;
  const harnessObj = compileBpfObject(
    'bench/datapath/rewrite-harness.bpf.c',
    join(BPF_BUILD_DIR, 'bench-rewrite-harness.o'),
  );
  bpftool(['prog', 'load', harnessObj, harnessPin, 'type', 'classifier', 'pinmaps', `${pins}/harness_maps`]);

  const run = (pin: string, f: Buffer, repeat: number, withOut = false) => {
    const inPath = join(work, 'in.bin');
    const outPath = join(work, 'out.bin');
    writeFileSync(inPath, f);
    const out = withOut ? ['data_out', outPath, 'data_size_out', String(f.length + 64)] : [];
    const j = JSON.parse(
      bpftool(['-j', 'prog', 'run', 'pinned', pin, 'data_in', inPath, ...out, 'repeat', String(repeat)]),
    ) as { duration: number; retval: number };
    return { durationNs: j.duration, retval: j.retval, out: withOut ? readFileSync(outPath) : undefined };
  };
  const bytesArg = (b: Buffer) => [...b].map(String);
  const setTemplate = (f: Buffer, len: number) => {
    const value = Buffer.alloc(4 + HARNESS_MAX_BYTES); // struct wf_harness_template: u32 len, then the bytes
    value.writeUInt32LE(len, 0);
    f.copy(value, 4, 0, len);
    bpftool([
      'map',
      'update',
      'pinned',
      `${pins}/harness_maps/wf_harness_template`,
      'key',
      '0',
      '0',
      '0',
      '0',
      'value',
      ...bytesArg(value),
    ]);
  };
  /** One run of "restore the header, then tail-call pin". */
  const runRewritePath = (pin: string, f: Buffer, len: number, repeat: number, withOut = false) => {
    setTemplate(f, len);
    bpftool([
      'map',
      'update',
      'pinned',
      `${pins}/harness_maps/wf_harness_next`,
      'key',
      '0',
      '0',
      '0',
      '0',
      'value',
      'pinned',
      pin,
    ]);
    const r = run(harnessPin, f, repeat, withOut);
    if (r.retval === HARNESS_TAIL_CALL_FAILED) throw new Error(`rewrite harness: the tail call to ${pin} failed`);
    return r;
  };

  // WF_BENCH_REFERENCE_OBJ: a BPF object holding the reference implementation's four programs
  // under the same names (built by you from its source; not part of this repository), measured
  // in the same rounds so "no program slower than the reference" is a same-run comparison.
  const referenceObj = process.env.WF_BENCH_REFERENCE_OBJ;
  if (referenceObj) bpftool(['prog', 'loadall', referenceObj, `${pins}/reference`, 'type', 'classifier']);
  const candidatePins = CANDIDATES.map((c, i) => {
    bpftool(['prog', 'load', c.path, `${pins}/candidate-${i}`, 'type', 'classifier']);
    return { name: c.name, pin: `${pins}/candidate-${i}` };
  });

  // Every program is loaded first and the rounds interleave them, so load that drifts during
  // the run (a 2-vCPU machine shared with other work) lands on all rows alike. Reported: the
  // best of the rounds and the mean; the kernel reports whole ns per run, so differences
  // under 1 ns show only in the mean (noise dithers the rounding) and in the paired
  // comparison with the reference (same round, see the report).
  const loaded = [
    ...PROGRAM_NAMES.map((name) => ({
      name: name as string,
      load: () => TestProgram.load(name, REWRITE, 'ethernet', 'bench'),
    })),
    {
      name: `${CHAIN_OBJECT} (all four merged, as the loader attaches them)`,
      load: () => TestProgram.load(CHAIN_OBJECT, REWRITE, 'ethernet', 'bench'),
    },
  ];
  const ours = await Promise.all(loaded.map(async (l) => ({ name: l.name, prog: await l.load() })));
  type Prog = { name: string; pin: string };
  const programs: Prog[] = [
    { name: 'empty program (harness floor)', pin: emptyPin },
    ...ours.map((p) => ({ name: p.name, pin: `${p.prog.dir}/prog` })),
    ...(referenceObj
      ? PROGRAM_NAMES.map((name) => ({ name: `reference ${name}`, pin: `${pins}/reference/${name}` }))
      : []),
    ...candidatePins,
  ];
  const steady = programs.map(() => ({ syn: [] as number[], data: [] as number[] }));
  const rewriting = programs.map(() => ({ syn: [] as number[], data: [] as number[] }));
  try {
    // The rewrite path must really rewrite: on the SYN every program (ours and the reference's)
    // has work, so its output must differ from the frame the harness restored.
    for (const p of programs.slice(1)) {
      const { out } = runRewritePath(p.pin, frames.syn, HARNESS_RESTORE_BYTES.syn, 1, true);
      if (!out || out.equals(frames.syn)) throw new Error(`rewrite harness: ${p.name} left the SYN unchanged`);
    }
    // One kind of measurement at a time, all programs back to back in a new order every round:
    // the runs a paired difference compares are then a fraction of a second apart, and no
    // program always runs just after the same neighbour.
    const kinds = [
      (p: Prog, i: number) => steady[i]!.syn.push(run(p.pin, frames.syn, REPEAT).durationNs),
      (p: Prog, i: number) => steady[i]!.data.push(run(p.pin, frames.data1500, REPEAT).durationNs),
      (p: Prog, i: number) =>
        rewriting[i]!.syn.push(runRewritePath(p.pin, frames.syn, HARNESS_RESTORE_BYTES.syn, REPEAT).durationNs),
      (p: Prog, i: number) =>
        rewriting[i]!.data.push(runRewritePath(p.pin, frames.data1500, HARNESS_RESTORE_BYTES.data, REPEAT).durationNs),
    ];
    for (let round = 0; round < PROGRUN_ROUNDS; round++) {
      for (const measure of shuffled(kinds)) {
        for (const i of shuffled(programs.map((_, i) => i))) measure(programs[i]!, i);
      }
    }
  } finally {
    for (const p of ours) await p.prog.unload();
    rmSync(pins, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
  }
  const rows = programs.map((p, i) => summarise(p.name, steady[i]!));
  const rewriteRows = programs.map((p, i) => summarise(p.name, rewriting[i]!));
  const floor = rows[0]!;
  const progs = rows.slice(1, 1 + PROGRAM_NAMES.length);
  const chain = {
    syn: progs.reduce((a, r) => a + r.syn, 0),
    data: progs.reduce((a, r) => a + r.data, 0),
  };
  return { rows, floor, chain, rewriteRows };
}

interface IperfResult {
  gbps: number;
  retransmits: number;
  cpuSecPerGB: number;
}

// the last CPU: iperf3 client and server (and thus all softirq work of the path) share it
const PIN_CPU = Number(process.env.WF_BENCH_CPU ?? Number(execFileSync('nproc').toString().trim()) - 1);

async function iperf(from: NetnsHost): Promise<IperfResult> {
  const r = await from.run(
    ['iperf3', '-c', ADDR.peer, '-p', '5201', '-t', String(SECONDS), '-A', `${PIN_CPU},${PIN_CPU}`, '-J'],
    { timeoutMs: (SECONDS + 20) * 1000 },
  );
  if (r.code !== 0) throw new Error(`iperf3: ${r.stdout.slice(-400)} ${r.stderr}`);
  const j = JSON.parse(r.stdout) as {
    end: {
      sum_sent: { bits_per_second: number; bytes: number; seconds: number; retransmits: number };
      cpu_utilization_percent: { host_total: number; remote_total: number };
    };
  };
  const s = j.end.sum_sent;
  const c = j.end.cpu_utilization_percent;
  // client + server CPU (both in this machine; softirq work runs in their context on the pinned CPU)
  return {
    gbps: s.bits_per_second / 1e9,
    retransmits: s.retransmits,
    cpuSecPerGB: (((c.host_total + c.remote_total) / 100) * s.seconds) / (s.bytes / 1e9),
  };
}

async function sh(argv: string[]) {
  execFileSync(argv[0]!, argv.slice(1));
}

const EMPTY_PROGRAM_MODE = 'empty program (TCX dispatch alone, control)';
/** The loader's wf_chain object, loaded once and switched by attach/detach alone (see tcxObject). */
const PRELOADED_CHAIN_MODE = 'eBPF, wf_chain as the loader configures it, pre-loaded (TCX)';

interface Mode {
  on: () => Promise<unknown>;
  off: () => Promise<unknown>;
  /** The BPF programs this mode runs per packet (while on), for the run-time accounting. */
  progIds?: () => Promise<number[]>;
}

interface RatioCi {
  mean: number;
  lo: number;
  hi: number;
}

/** Geometric mean of paired ratios a[i] / b[i], with a 95 % CI (normal, on the logs). */
function ratioCi(a: number[], b: number[]): RatioCi {
  const { mean: m, ci95 } = pairedDifference(a.map(Math.log), b.map(Math.log));
  return { mean: Math.exp(m), lo: Math.exp(m - ci95), hi: Math.exp(m + ci95) };
}

interface ModeSummary {
  gbps: number;
  best: number;
  ratio: number; // median over rounds of gbps / gbps(none, same round)
  ratioCi: RatioCi; // geometric mean of the same ratios, with its 95 % CI
  ratioTsOff?: number; // same against "none, sender without TCP timestamps"
  ratioTsOffCi?: RatioCi;
  cpuSecPerGB: number;
  cpuRatio: number;
  retransmits: number;
  runs: string[];
}

/**
 * Bytes received so far on `dev`, read from /proc/PID/net/dev of a process in the device's
 * namespace: a file read of microseconds, where spawning `ip -s link` would add milliseconds
 * of jitter to every window's edges.
 */
function rxBytes(pid: number, dev: string): number {
  const line = readFileSync(`/proc/${pid}/net/dev`, 'utf8')
    .split('\n')
    .find((l) => l.trim().startsWith(`${dev}:`));
  if (!line) throw new Error(`no ${dev} in /proc/${pid}/net/dev`);
  return Number(line.split(':')[1]!.trim().split(/\s+/)[0]);
}

interface WindowSummary {
  gbps: number; // median over windows
  ratio: number; // median over rounds of gbps / gbps(none, same round)
  ratioCi: RatioCi;
}

/**
 * Runs `measure` once per mode per round (shuffled), each mode switched on under one forwarded
 * iperf3 flow (client -> router -> peer) that lasts the whole measurement.
 */
async function underOneFlow(
  topo: Topology,
  modes: Record<string, Mode>,
  rounds: number,
  measure: (name: string, mode: Mode, flowAlive: () => void) => Promise<void>,
) {
  const client = spawn(
    'nsenter',
    [
      `--net=/run/netns/${topo.ns.client}`,
      'iperf3',
      '-c',
      ADDR.peer,
      '-p',
      '5201',
      '-t',
      '86400',
      '-A',
      `${PIN_CPU},${PIN_CPU}`,
    ],
    { stdio: 'ignore' },
  );
  const flowAlive = () => {
    if (client.exitCode !== null) throw new Error(`one flow: the iperf3 client stopped (exit ${client.exitCode})`);
  };
  try {
    await sleep(2000); // past slow start
    for (let round = 0; round < rounds; round++) {
      for (const name of shuffled(Object.keys(modes))) {
        const m = modes[name]!;
        await m.on();
        try {
          await sleep(WINDOW_SETTLE_MS);
          await measure(name, m, flowAlive);
        } finally {
          await m.off();
        }
      }
    }
  } finally {
    client.kill();
  }
}

/**
 * One TCP flow forwarded client -> router -> peer for the whole measurement, and the modes
 * switched under it: each round gives every mode (shuffled) one window of WINDOW_MS, after
 * WINDOW_SETTLE_MS, and counts the bytes the peer received in it. Separate iperf3 runs of a
 * few seconds differ by +-30 % on this shared VM (slow start, and the host's load coming and
 * going), which hides a cost of a few per cent; windows a fraction of a second apart in one
 * flow share both. The flow's TCP was negotiated before any mode ran, so every mode sees the
 * same TCP (timestamps on): the ratio is the programs' per-packet cost alone. And the client
 * numbers its IDs and the router decrements the TTL, so the programs rewrite every packet.
 */
async function windowsBench(topo: Topology, modes: Record<string, Mode>): Promise<Record<string, WindowSummary>> {
  // any process in the peer's namespace will do: the iperf3 server is one
  const peerPid = Number(execFileSync('ip', ['netns', 'pids', topo.ns.peer]).toString().trim().split('\n')[0]);
  if (!peerPid) throw new Error(`windows: no process in ${topo.ns.peer}`);
  const rates: Record<string, number[]> = Object.fromEntries(Object.keys(modes).map((m) => [m, []]));
  await underOneFlow(topo, modes, WINDOW_ROUNDS, async (name, _mode, flowAlive) => {
    const [b0, t0] = [rxBytes(peerPid, 'up0'), process.hrtime.bigint()];
    await sleep(WINDOW_MS);
    const [b1, t1] = [rxBytes(peerPid, 'up0'), process.hrtime.bigint()];
    flowAlive();
    rates[name]!.push(((b1 - b0) * 8) / Number(t1 - t0)); // bits per ns = Gbit/s
  });
  const base = rates.none!;
  return Object.fromEntries(
    Object.entries(rates).map(([name, v]) => [
      name,
      { gbps: median(v), ratio: median(v.map((x, i) => x / base[i]!)), ratioCi: ratioCi(v, base) },
    ]),
  );
}

interface RunTimeSummary {
  nsPerPacket: number; // median over rounds: the mode's programs' run time per forwarded packet
  packetsPerSecond: number; // median over rounds
  cpuShare: number; // median over rounds of nsPerPacket / (1 s / packets per second)
  programs: number; // programs the mode runs per packet: each pays the accounting's clock reads
}

/** Sum of run_time_ns and the largest run_cnt over `ids` (every program of a mode sees every packet). */
function runStats(ids: number[]): { ns: number; runs: number } {
  let ns = 0;
  let runs = 0;
  for (const id of ids) {
    const j = JSON.parse(execFileSync('bpftool', ['-j', 'prog', 'show', 'id', String(id)]).toString()) as {
      run_time_ns?: number;
      run_cnt?: number;
    };
    if (j.run_cnt === undefined)
      throw new Error(`run time: prog ${id} reports no run_cnt (kernel.bpf_stats_enabled off?)`);
    ns += j.run_time_ns ?? 0;
    runs = Math.max(runs, j.run_cnt);
  }
  return { ns, runs };
}

/**
 * What the programs cost per packet in the datapath itself: the kernel's own accounting
 * (kernel.bpf_stats_enabled: run_time_ns and run_cnt per program, the time around each
 * bpf_prog_run), over RUNTIME_MS windows of the same one forwarded flow. Every run also pays
 * the accounting's two clock reads, which the empty program's row shows; a mode's own cost is
 * its row minus that one. The share of the CPU is ns per packet against the time the pinned
 * CPU spends per packet in all (1 s / packets per second: client, router and peer share it).
 * Kept apart from the windows: the accounting slows every run a little while it is on.
 */
async function runTimeBench(topo: Topology, modes: Record<string, Mode>): Promise<Record<string, RunTimeSummary>> {
  const sample: Record<string, { nsPerPacket: number; pps: number; programs: number }[]> = Object.fromEntries(
    Object.keys(modes).map((m) => [m, []]),
  );
  const before = execFileSync('sysctl', ['-n', 'kernel.bpf_stats_enabled']).toString().trim();
  execFileSync('sysctl', ['-qw', 'kernel.bpf_stats_enabled=1']);
  try {
    await underOneFlow(topo, modes, RUNTIME_ROUNDS, async (name, mode, flowAlive) => {
      const ids = [...new Set(await mode.progIds!())];
      const [s0, t0] = [runStats(ids), process.hrtime.bigint()];
      await sleep(RUNTIME_MS);
      const [s1, t1] = [runStats(ids), process.hrtime.bigint()];
      flowAlive();
      const packets = s1.runs - s0.runs;
      if (packets <= 0) throw new Error(`run time: ${name} ran on no packet in ${RUNTIME_MS} ms`);
      sample[name]!.push({
        nsPerPacket: (s1.ns - s0.ns) / packets,
        pps: (packets * 1e9) / Number(t1 - t0),
        programs: ids.length,
      });
    });
  } finally {
    execFileSync('sysctl', ['-qw', `kernel.bpf_stats_enabled=${before}`]);
  }
  return Object.fromEntries(
    Object.entries(sample).map(([name, v]) => [
      name,
      {
        nsPerPacket: median(v.map((x) => x.nsPerPacket)),
        packetsPerSecond: median(v.map((x) => x.pps)),
        cpuShare: median(v.map((x) => (x.nsPerPacket * x.pps) / 1e9)),
        programs: Math.max(...v.map((x) => x.programs)),
      },
    ]),
  );
}

async function throughputBench() {
  const topo = new Topology();
  const cleanups: (() => Promise<unknown>)[] = [];
  await topo.create();
  try {
    await topo.addDefaultRoute();
    await topo.startIperfServer();
    await sh(['nsenter', `--net=/run/netns/${topo.ns.router}`, 'ethtool', '-K', 'wan0', 'gso', 'off', 'tso', 'off']);
    // MTU-sized frames from the client, like a LAN NIC without GRO (see the e2e tests)
    await sh(['nsenter', `--net=/run/netns/${topo.ns.client}`, 'ethtool', '-K', 'cl0', 'gso', 'off', 'tso', 'off']);
    const tsOff = (h: NetnsHost): Mode => ({
      on: () => h.run(['sysctl', '-qw', 'net.ipv4.tcp_timestamps=0']),
      off: () => h.run(['sysctl', '-qw', 'net.ipv4.tcp_timestamps=1']),
    });
    const chain = (ipIdGso: 'single-segment' | 'leave', layout: ProgramLayout = 'merged'): Mode => {
      let attached: DatapathEvidence | undefined;
      return {
        on: async () =>
          (attached = await applyEbpf(topo.router, {
            rewrite: REWRITE,
            pinRoot: topo.pinRoot,
            mode: 'tcx',
            ipIdGso,
            layout,
          })),
        off: () => detachEbpf(topo.router, { pinRoot: topo.pinRoot }),
        progIds: async () => attached!.interfaces.flatMap((i) => i.programs.map((p) => p.progId)),
      };
    };
    // An object's one TC program, loaded (verified) once and pinned, then attached by TCX on wan0
    // and detached again by one helper call each: the empty program, candidates (as compiled:
    // their .rodata defaults are the bench's REWRITE for wf_chain), and wf_chain as the loader
    // configures it. Switching such a mode takes milliseconds where the loader's apply takes a
    // few hundred, so the windows can alternate quickly (see windowsBench).
    // Pinned beside the loader's pin root, not in it: the loader's detach removes whatever it
    // finds there, leftovers of a crashed run included.
    const preloadRoot = `${topo.pinRoot}-bench`;
    cleanups.push(() => runChecked(topo.router, [LOCAL_TCX_HELPER, 'rm', preloadRoot]));
    let preloaded = 0;
    const wanIfindex = String(
      (JSON.parse(await runChecked(topo.router, ['ip', '-j', 'link', 'show', 'wan0'])) as { ifindex: number }[])[0]!
        .ifindex,
    );
    const tcxObject = async (obj: string): Promise<Mode> => {
      const dir = `${preloadRoot}/object-${preloaded++}`;
      await runChecked(topo.router, [LOCAL_TCX_HELPER, 'mkdir', dir]);
      await runChecked(topo.router, ['bpftool', 'prog', 'load', obj, `${dir}/prog`, 'type', 'classifier']);
      const id = (
        JSON.parse(await runChecked(topo.router, ['bpftool', '-j', 'prog', 'show', 'pinned', `${dir}/prog`])) as {
          id: number;
        }
      ).id;
      return {
        on: async () =>
          void (await runChecked(topo.router, [LOCAL_TCX_HELPER, 'attach', wanIfindex, `${dir}/prog`, `${dir}/link`])),
        off: async () => void (await runChecked(topo.router, [LOCAL_TCX_HELPER, 'detach', `${dir}/link`])),
        progIds: async () => [id],
      };
    };
    // The control for the chain's windows and run time: an empty program, which pays the
    // dispatch (and the egress hook TCX switches on) and nothing else.
    const emptyProgram = await tcxObject(buildEmptyObject());
    const candidates: Record<string, Mode> = {};
    for (const c of CANDIDATES) candidates[c.name] = await tcxObject(c.path);
    const loaderChainFile = join(topo.work, 'wf_chain.configured.o');
    writeFileSync(loaderChainFile, configuredObject('bpfel', CHAIN_OBJECT, REWRITE, 'ethernet').bytes);
    const preloadedChain = await tcxObject(loaderChainFile);
    const nft = (ipIdGso: 'single-segment' | 'leave'): Mode => ({
      on: () => applyNft(topo.router, { rewrite: REWRITE, ipIdGso }),
      off: () => removeNft(topo.router),
    });
    const none: Mode = { on: async () => undefined, off: async () => undefined };
    const kinds: { kind: string; from: NetnsHost; modes: Record<string, Mode> }[] = [
      {
        kind: 'forwarded client -> router -> peer',
        from: topo.client,
        // the loader's default (gso_max_segs 1 on wan0): forwarded MTU-sized frames cross TC one
        // by one, so every packet on the wire has ID 0 and the setting costs them nothing
        modes: {
          none,
          'none, sender without TCP timestamps': tsOff(topo.client),
          'eBPF, merged wf_chain (TCX, default)': chain('single-segment'),
          'eBPF, four separate programs (TCX)': chain('single-segment', 'separate'),
          'nftables fallback (default)': nft('single-segment'),
          [PRELOADED_CHAIN_MODE]: preloadedChain,
        },
      },
      {
        kind: 'router-originated router -> peer',
        from: topo.router,
        modes: {
          none,
          'none, sender without TCP timestamps': tsOff(topo.router),
          // 'leave': the programs without the cost of giving up GSO for the router's own TCP
          'eBPF, merged wf_chain (TCX), ipIdGso leave': chain('leave'),
          'eBPF, four separate programs (TCX), ipIdGso leave': chain('leave', 'separate'),
          'nftables fallback, ipIdGso leave': nft('leave'),
          'eBPF, merged wf_chain (TCX, default: gso_max_segs 1)': chain('single-segment'),
        },
      },
    ];
    const out: { kind: string; rows: Record<string, ModeSummary> }[] = [];
    for (const k of kinds) {
      const res: Record<string, IperfResult[]> = Object.fromEntries(Object.keys(k.modes).map((m) => [m, []]));
      await iperf(k.from); // warm-up
      for (let round = 0; round < ROUNDS; round++) {
        // a new order every round: drift within a round must not always favour the same mode
        for (const name of shuffled(Object.keys(k.modes))) {
          const m = k.modes[name]!;
          await m.on();
          try {
            res[name]!.push(await iperf(k.from));
          } finally {
            await m.off();
          }
        }
      }
      const base = res.none!;
      const baseTs = res['none, sender without TCP timestamps']!;
      const rows: Record<string, ModeSummary> = {};
      for (const [name, v] of Object.entries(res)) {
        const paired = (b: IperfResult[], f: (x: IperfResult) => number) => median(v.map((x, i) => f(x) / f(b[i]!)));
        rows[name] = {
          gbps: median(v.map((x) => x.gbps)),
          best: Math.max(...v.map((x) => x.gbps)),
          ratio: paired(base, (x) => x.gbps),
          ratioCi: ratioCi(
            v.map((x) => x.gbps),
            base.map((x) => x.gbps),
          ),
          ...(name.startsWith('none')
            ? {}
            : {
                ratioTsOff: paired(baseTs, (x) => x.gbps),
                ratioTsOffCi: ratioCi(
                  v.map((x) => x.gbps),
                  baseTs.map((x) => x.gbps),
                ),
              }),
          cpuSecPerGB: median(v.map((x) => x.cpuSecPerGB)),
          cpuRatio: paired(base, (x) => x.cpuSecPerGB),
          retransmits: median(v.map((x) => x.retransmits)),
          runs: v.map((x) => x.gbps.toFixed(2)),
        };
      }
      out.push({ kind: k.kind, rows });
    }
    // the same forwarded modes, as windows in one flow (the TS-off baseline does not apply:
    // the flow's TCP is fixed before any mode runs)
    const forwarded = kinds[0]!.modes;
    const windowModes = Object.fromEntries(
      Object.entries({ ...forwarded, [EMPTY_PROGRAM_MODE]: emptyProgram }).filter(
        ([name]) =>
          name === 'none' ||
          (!name.startsWith('none, sender') && (WINDOW_MODES?.some((p) => name.startsWith(p)) ?? true)),
      ),
    );
    Object.assign(windowModes, candidates);
    const windows = WINDOW_ROUNDS > 0 ? await windowsBench(topo, windowModes) : undefined;
    // the same modes' programs, timed by the kernel (the empty program always: it is the accounting's floor)
    const timedModes = Object.fromEntries(
      Object.entries({ ...windowModes, [EMPTY_PROGRAM_MODE]: emptyProgram }).filter(([, m]) => m.progIds),
    );
    const runTime = RUNTIME_ROUNDS > 0 ? await runTimeBench(topo, timedModes) : undefined;
    return { runs: out, windows, runTime };
  } finally {
    for (const cleanup of cleanups) await cleanup();
    await topo.destroy();
  }
}

const pct = (ratio: number) => `${ratio >= 1 ? '+' : ''}${((ratio - 1) * 100).toFixed(1)} %`;
const pctCi = (c: RatioCi | undefined) => (c === undefined ? '' : `${pct(c.mean)} [${pct(c.lo)}, ${pct(c.hi)}]`);

const t0 = Date.now();
const pr = PARTS.has('progrun') ? await progRunBench() : undefined;
const tp = PARTS.has('throughput') ? await throughputBench() : undefined;
const kernel = execFileSync('uname', ['-r']).toString().trim();
const cpu = execFileSync('sh', ['-c', "grep -m1 'model name' /proc/cpuinfo | cut -d: -f2"]).toString().trim();

const lines: string[] = [];
/** Paired differences (same round) of named rows: [label, minuend, subtrahend] per line. */
function pairedTable(
  title: string,
  rows: { name: string; runs: { syn: number[]; data: number[] } }[],
  pairs: [string, string, string][],
) {
  const pm = (d: { mean: number; ci95: number }) =>
    `${d.mean >= 0 ? '+' : ''}${d.mean.toFixed(2)} ± ${d.ci95.toFixed(2)}`;
  const row = (name: string) => rows.find((r) => r.name === name)!;
  lines.push(`| ${title} | first SYN | data segment |`);
  lines.push('|---|---|---|');
  for (const [label, a, b] of pairs) {
    lines.push(
      `| ${label} | ${pm(pairedDifference(row(a).runs.syn, row(b).runs.syn))} | ${pm(pairedDifference(row(a).runs.data, row(b).runs.data))} |`,
    );
  }
}
const OURS_VS_REFERENCE = PROGRAM_NAMES.map((name): [string, string, string] => [name, name, `reference ${name}`]);
lines.push(
  `Run: ${new Date().toISOString()}, kernel ${kernel}, ${cpu}, ${execFileSync('nproc').toString().trim()} CPUs, repeat ${REPEAT}, ${PROGRUN_ROUNDS} test-run rounds, ${ROUNDS} rounds x ${SECONDS} s iperf3`,
);
lines.push('');
if (pr) {
  const f1 = (x: number) => x.toFixed(1);
  lines.push(
    '| program | first SYN with options (ns, best) | 1500-byte data segment (ns, best) | SYN minus floor | data minus floor | SYN mean | data mean |',
  );
  lines.push('|---|---|---|---|---|---|---|');
  for (const r of pr.rows)
    lines.push(
      `| ${r.name} | ${r.syn} | ${r.data} | ${r.syn - pr.floor.syn} | ${r.data - pr.floor.data} | ${f1(r.synMean)} | ${f1(r.dataMean)} |`,
    );
  lines.push(
    `| four separate programs (sum of their runs) | ${pr.chain.syn} | ${pr.chain.data} | ${pr.chain.syn - 4 * pr.floor.syn} | ${pr.chain.data - 4 * pr.floor.data} | | |`,
  );
  const reference = pr.rows.filter((r) => r.name.startsWith('reference '));
  if (reference.length === 4) {
    const [syn, data] = [reference.reduce((a, r) => a + r.syn, 0), reference.reduce((a, r) => a + r.data, 0)];
    lines.push(
      `| reference, four separate programs (sum of their runs) | ${syn} | ${data} | ${syn - 4 * pr.floor.syn} | ${data - 4 * pr.floor.data} | | |`,
    );
    lines.push('');
    pairedTable('ours minus reference, same round (mean ± 95 % CI, ns)', pr.rows, OURS_VS_REFERENCE);
  }
  lines.push('');
  const rf = pr.rewriteRows[0]!;
  lines.push(
    '| rewrite path: every run rewrites (harness restores the header, then tail-calls the program) | first SYN (ns, best) | data segment (ns, best) | SYN minus floor | data minus floor | SYN mean minus floor mean | data mean minus floor mean |',
  );
  lines.push('|---|---|---|---|---|---|---|');
  for (const r of pr.rewriteRows) {
    const name = r === rf ? 'restore + empty program (floor)' : r.name;
    lines.push(
      `| ${name} | ${r.syn} | ${r.data} | ${r.syn - rf.syn} | ${r.data - rf.data} | ${f1(r.synMean - rf.synMean)} | ${f1(r.dataMean - rf.dataMean)} |`,
    );
  }
  if (reference.length === 4) {
    lines.push('');
    pairedTable(
      'rewrite path, ours minus reference, same round (mean ± 95 % CI, ns)',
      pr.rewriteRows,
      OURS_VS_REFERENCE,
    );
  }
  if (CANDIDATES.length) {
    const chainRow = pr.rows.find((r) => r.name.startsWith(`${CHAIN_OBJECT} `))!.name;
    const vsChain = CANDIDATES.map((c): [string, string, string] => [c.name, c.name, chainRow]);
    lines.push('');
    pairedTable(`candidates minus ${CHAIN_OBJECT}, same round (mean ± 95 % CI, ns)`, pr.rows, vsChain);
    lines.push('');
    pairedTable(
      `rewrite path, candidates minus ${CHAIN_OBJECT}, same round (mean ± 95 % CI, ns)`,
      pr.rewriteRows,
      vsChain,
    );
  }
  lines.push('');
}
for (const k of tp?.runs ?? []) {
  lines.push(
    `| iperf3 ${k.kind}, veth, GSO/TSO off, pinned to CPU ${PIN_CPU} | Gbit/s (median) | best | vs none (median) | vs none (geometric mean [95 % CI]) | vs none without TS (median) | vs none without TS (geometric mean [95 % CI]) | CPU s per GB | vs none | retransmits (median) | runs (Gbit/s) |`,
  );
  lines.push('|---|---|---|---|---|---|---|---|---|---|---|');
  for (const [name, v] of Object.entries(k.rows)) {
    const tsOff = v.ratioTsOff === undefined ? '' : pct(v.ratioTsOff);
    lines.push(
      `| ${name} | ${v.gbps.toFixed(2)} | ${v.best.toFixed(2)} | ${pct(v.ratio)} | ${name === 'none' ? '' : pctCi(v.ratioCi)} | ${tsOff} | ${pctCi(v.ratioTsOffCi)} | ${v.cpuSecPerGB.toFixed(3)} | ${pct(v.cpuRatio)} | ${v.retransmits} | ${v.runs.join(', ')} |`,
    );
  }
  lines.push('');
}
if (tp?.windows) {
  lines.push(
    `| one forwarded flow, modes switched under it: ${WINDOW_ROUNDS} rounds of ${WINDOW_MS} ms windows, pinned to CPU ${PIN_CPU} | Gbit/s (median) | vs none (median) | vs none (geometric mean [95 % CI]) |`,
  );
  lines.push('|---|---|---|---|');
  for (const [name, v] of Object.entries(tp.windows)) {
    lines.push(`| ${name} | ${v.gbps.toFixed(2)} | ${pct(v.ratio)} | ${name === 'none' ? '' : pctCi(v.ratioCi)} |`);
  }
  lines.push('');
}
if (tp?.runTime) {
  const floor = tp.runTime[EMPTY_PROGRAM_MODE]!;
  lines.push(
    `| run time in the datapath, same one flow (kernel.bpf_stats_enabled, ${RUNTIME_ROUNDS} rounds of ${RUNTIME_MS} ms; medians) | programs per packet | ns per packet | own: minus the empty program's per program | packets per second | share of the CPU's time per packet | own share |`,
  );
  lines.push('|---|---|---|---|---|---|---|');
  for (const [name, v] of Object.entries(tp.runTime)) {
    // every program run pays the accounting's clock reads, which the empty program's row is
    const ownNs = v.nsPerPacket - v.programs * floor.nsPerPacket;
    const own =
      name === EMPTY_PROGRAM_MODE
        ? ['', '']
        : [ownNs.toFixed(1), `${((ownNs * v.packetsPerSecond) / 1e7).toFixed(2)} %`];
    lines.push(
      `| ${name} | ${v.programs} | ${v.nsPerPacket.toFixed(1)} | ${own[0]} | ${Math.round(v.packetsPerSecond)} | ${(v.cpuShare * 100).toFixed(2)} % | ${own[1]} |`,
    );
  }
  lines.push('');
}
lines.push(`(bench took ${((Date.now() - t0) / 1000).toFixed(0)} s)`);
console.log(lines.join('\n'));
