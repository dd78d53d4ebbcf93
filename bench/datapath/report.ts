/**
 * The datapath bench's report: Markdown tables, the form docs/BENCHMARKS.md quotes them in. Paired
 * differences and ratios are taken per round, against the same round's baseline.
 */
import { execFileSync } from 'node:child_process';
import { CHAIN_OBJECT } from '../../agent/datapath/programs.js';
import { PROGRAM_NAMES } from '../../core/programs.js';
import { pairedDifference, type RatioCi } from '../statistics.js';
import { EMPTY_PROGRAM_MODE } from './forwarding.js';
import type { Candidate } from './programs-under-test.js';
import type { RunTimeSummary } from './run-time.js';
import type { TestRunResult } from './test-run.js';
import type { ModeSummary, WindowSummary } from './throughput.js';

/** The settings the report's header and table titles name. */
export interface ReportSettings {
  repeat: number;
  testRunRounds: number;
  rounds: number;
  seconds: number;
  pinCpu: number;
  windowRounds: number;
  windowMs: number;
  runTimeRounds: number;
  runTimeMs: number;
  candidates: Candidate[];
}

export interface ThroughputResult {
  runs: { kind: string; rows: Record<string, ModeSummary> }[];
  windows?: Record<string, WindowSummary>;
  runTime?: Record<string, RunTimeSummary>;
}

const pct = (ratio: number) => `${ratio >= 1 ? '+' : ''}${((ratio - 1) * 100).toFixed(1)} %`;
const pctCi = (c: RatioCi | undefined) => (c === undefined ? '' : `${pct(c.mean)} [${pct(c.lo)}, ${pct(c.hi)}]`);

/** Paired differences (same round) of named rows: [label, minuend, subtrahend] per line. */
function pairedTable(
  lines: string[],
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

function testRunTables(lines: string[], s: ReportSettings, pr: TestRunResult) {
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
    pairedTable(lines, 'ours minus reference, same round (mean ± 95 % CI, ns)', pr.rows, OURS_VS_REFERENCE);
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
      lines,
      'rewrite path, ours minus reference, same round (mean ± 95 % CI, ns)',
      pr.rewriteRows,
      OURS_VS_REFERENCE,
    );
  }
  if (s.candidates.length) {
    const chainRow = pr.rows.find((r) => r.name.startsWith(`${CHAIN_OBJECT} `))!.name;
    const vsChain = s.candidates.map((c): [string, string, string] => [c.name, c.name, chainRow]);
    lines.push('');
    pairedTable(lines, `candidates minus ${CHAIN_OBJECT}, same round (mean ± 95 % CI, ns)`, pr.rows, vsChain);
    lines.push('');
    pairedTable(
      lines,
      `rewrite path, candidates minus ${CHAIN_OBJECT}, same round (mean ± 95 % CI, ns)`,
      pr.rewriteRows,
      vsChain,
    );
  }
  lines.push('');
}

function iperfTables(lines: string[], s: ReportSettings, runs: ThroughputResult['runs']) {
  for (const k of runs) {
    lines.push(
      `| iperf3 ${k.kind}, veth, GSO/TSO off, pinned to CPU ${s.pinCpu} | Gbit/s (median) | best | vs none (median) | vs none (geometric mean [95 % CI]) | vs none without TS (median) | vs none without TS (geometric mean [95 % CI]) | CPU s per GB | vs none | retransmits (median) | runs (Gbit/s) |`,
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
}

function windowsTable(lines: string[], s: ReportSettings, windows: Record<string, WindowSummary>) {
  lines.push(
    `| one forwarded flow, modes switched under it: ${s.windowRounds} rounds of ${s.windowMs} ms windows, pinned to CPU ${s.pinCpu} | Gbit/s (median) | vs none (median) | vs none (geometric mean [95 % CI]) |`,
  );
  lines.push('|---|---|---|---|');
  for (const [name, v] of Object.entries(windows)) {
    lines.push(`| ${name} | ${v.gbps.toFixed(2)} | ${pct(v.ratio)} | ${name === 'none' ? '' : pctCi(v.ratioCi)} |`);
  }
  lines.push('');
}

function runTimeTable(lines: string[], s: ReportSettings, runTime: Record<string, RunTimeSummary>) {
  const floor = runTime[EMPTY_PROGRAM_MODE]!;
  lines.push(
    `| run time in the datapath, same one flow (kernel.bpf_stats_enabled, ${s.runTimeRounds} rounds of ${s.runTimeMs} ms; medians) | programs per packet | ns per packet | own: minus the empty program's per program | packets per second | share of the CPU's time per packet | own share |`,
  );
  lines.push('|---|---|---|---|---|---|---|');
  for (const [name, v] of Object.entries(runTime)) {
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

/** The report of one run that started at `startedAt` (ms since the epoch); parts not run are left out. */
export function datapathReport(
  s: ReportSettings,
  pr: TestRunResult | undefined,
  tp: ThroughputResult | undefined,
  startedAt: number,
): string {
  const kernel = execFileSync('uname', ['-r']).toString().trim();
  const cpu = execFileSync('sh', ['-c', "grep -m1 'model name' /proc/cpuinfo | cut -d: -f2"]).toString().trim();
  const lines: string[] = [];
  lines.push(
    `Run: ${new Date().toISOString()}, kernel ${kernel}, ${cpu}, ${execFileSync('nproc').toString().trim()} CPUs, repeat ${s.repeat}, ${s.testRunRounds} test-run rounds, ${s.rounds} rounds x ${s.seconds} s iperf3`,
  );
  lines.push('');
  if (pr) testRunTables(lines, s, pr);
  if (tp) iperfTables(lines, s, tp.runs);
  if (tp?.windows) windowsTable(lines, s, tp.windows);
  if (tp?.runTime) runTimeTable(lines, s, tp.runTime);
  lines.push(`(bench took ${((Date.now() - startedAt) / 1000).toFixed(0)} s)`);
  return lines.join('\n');
}
