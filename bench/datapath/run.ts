/**
 * Datapath benchmark, one command: `npm run bench:datapath` (root, after `npm run bpf:build`). Reads
 * the WF_BENCH_* settings, runs the parts (test runs, throughput, windows of one flow, run time in the
 * datapath) and prints their tables; the method is in docs/BENCHMARKS.md#datapath-method.
 */
import { execFileSync } from 'node:child_process';
import { withForwarding } from './forwarding.js';
import type { Candidate } from './programs-under-test.js';
import { datapathReport } from './report.js';
import { runTimeBench, timedModes } from './run-time.js';
import { testRunBench } from './test-run.js';
import { iperfRuns, windowModes, windowsBench } from './throughput.js';

const rounds = Number(process.env.WF_BENCH_ROUNDS ?? 5);
const settings = {
  repeat: Number(process.env.WF_BENCH_REPEAT ?? 2_000_000),
  rounds,
  // the test-run part is cheap per round: more rounds than the iperf3 runs
  testRunRounds: Number(process.env.WF_BENCH_PROGRUN_ROUNDS ?? Math.max(rounds, 50)),
  seconds: Number(process.env.WF_BENCH_SECONDS ?? 3),
  // the last CPU: iperf3 client and server (and thus all softirq work of the path) share it
  pinCpu: Number(process.env.WF_BENCH_CPU ?? Number(execFileSync('nproc').toString().trim()) - 1),
  // the alternating-windows measurement (see windowsBench)
  windowRounds: Number(process.env.WF_BENCH_WINDOW_ROUNDS ?? 60),
  windowMs: Number(process.env.WF_BENCH_WINDOW_MS ?? 400),
  // the modes the windows compare with "none": '|'-separated prefixes of their names (default: all).
  // Fewer modes, more rounds in the same time: WF_BENCH_WINDOW_MODES='eBPF, merged' tightens the chain's CI.
  windowModes: process.env.WF_BENCH_WINDOW_MODES?.split('|'),
  // time after a mode is switched on before its window opens
  windowSettleMs: Number(process.env.WF_BENCH_WINDOW_SETTLE_MS ?? 100),
  // the run-time accounting (see runTimeBench): rounds (0 skips it) and window
  runTimeRounds: Number(process.env.WF_BENCH_RUNTIME_ROUNDS ?? 20),
  runTimeMs: Number(process.env.WF_BENCH_RUNTIME_MS ?? 1000),
  // Candidate builds measured next to the current one in the test runs, the windows and the run
  // time, e.g. a changed wf_chain: 'label=path/to/object.o|...', each object one TC program
  candidates: (process.env.WF_BENCH_CANDIDATES?.split('|') ?? []).map((c): Candidate => {
    const [label, path] = c.split('=');
    if (!label || !path) throw new Error(`WF_BENCH_CANDIDATES: "${c}" is not label=object.o`);
    return { name: `candidate ${label}`, path };
  }),
  // the reference implementation's four programs in one object (see TestRunOptions)
  referenceObject: process.env.WF_BENCH_REFERENCE_OBJ,
};
// WF_BENCH_PARTS=progrun (or throughput): run one half only
const parts = new Set((process.env.WF_BENCH_PARTS ?? 'progrun,throughput').split(','));

const startedAt = Date.now();
const testRun = parts.has('progrun') ? await testRunBench(settings) : undefined;
const throughput = parts.has('throughput')
  ? await withForwarding(settings.candidates, async (forwarding) => {
      const runs = await iperfRuns(forwarding, settings);
      const windowed = windowModes(forwarding, settings.windowModes);
      const windows = settings.windowRounds > 0 ? await windowsBench(forwarding.topo, windowed, settings) : undefined;
      const timed = timedModes(windowed, forwarding.emptyProgram);
      const runTime = settings.runTimeRounds > 0 ? await runTimeBench(forwarding.topo, timed, settings) : undefined;
      return { runs, windows, runTime };
    })
  : undefined;
console.log(datapathReport(settings, testRun, throughput, startedAt));
