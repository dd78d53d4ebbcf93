/**
 * The lab bench's tables: forwarding per mode (median, spread, paired ratios to "nothing") and
 * per-program test-run cost under the MIPS JIT and the interpreter, ours against the reference.
 */
import { median, ratioCi } from '../statistics.js';
import type { ForwardingResult } from './forwarding-modes.js';
import { BASELINE_MODE } from './forwarding-modes.js';
import { EMPTY_ROW, JIT_MODES, type ProgramCostResult, type ProgramCostRow } from './program-cost.js';

const f1 = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : '-');
const f2 = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : '-');
const spread = (xs: number[]) => `${f1(Math.min(...xs))}-${f1(Math.max(...xs))}`;

export function forwardingTable(r: ForwardingResult): string {
  const base = r.modes.find((m) => m.name === BASELINE_MODE);
  const lines = [
    `Forwarding through the guest (iperf3 LAN client -> WAN peer; ${r.modes[0]?.runs.length ?? 0} rounds, modes shuffled per round; eBPF attached as ${r.attach || '-'}; ${f1(r.seconds)} s)`,
    '',
    '| mode | Mbit/s median | min-max | x nothing (geo. mean, 95 % CI) | guest CPU µs/packet median | min-max | x nothing (geo. mean, 95 % CI) | busy share |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const m of r.modes) {
    const mbps = m.runs.map((x) => x.mbps);
    const cpu = m.runs.map((x) => x.cpuUsPerPacket);
    const ratio = (a: number[], b: number[] | undefined) => {
      if (!b || m.name === BASELINE_MODE) return '1';
      const c = ratioCi(a, b);
      return `${f2(c.mean)} [${f2(c.lo)}, ${f2(c.hi)}]`;
    };
    lines.push(
      `| ${m.name} | ${f1(median(mbps))} | ${spread(mbps)} | ${ratio(
        mbps,
        base?.runs.map((x) => x.mbps),
      )} | ${f1(median(cpu))} | ${spread(cpu)} | ${ratio(
        cpu,
        base?.runs.map((x) => x.cpuUsPerPacket),
      )} | ${f2(median(m.runs.map((x) => x.busyShare)))} |`,
    );
  }
  return lines.join('\n');
}

/** The rows of ours with the reference's row of the same program name, if measured. */
function referenceOf(rows: ProgramCostRow[], name: string): ProgramCostRow | undefined {
  return rows.find((r) => r.name === `reference ${name}`);
}

export function programCostTable(r: ProgramCostResult): string {
  const floor = r.rows.find((x) => x.name === EMPTY_ROW);
  const cols = ['steady-syn', 'steady-data', 'rewrite-syn', 'rewrite-data'] as const;
  const lines = [
    `Per-program cost in the guest kernel (BPF_PROG_TEST_RUN, ns per run, median of rounds; repeat ${r.repeats.jit} JIT, ${r.repeats.interpreter} interpreter; ${f1(r.seconds)} s).`,
    'steady: the same packet repeated (only the first run rewrites); rewrite: the harness restores the headers before each run, so every run rewrites (the harness with the empty program is the floor).',
    '',
    `| program | ${JIT_MODES.flatMap((m) => cols.map((c) => `${m} ${c}`)).join(' | ')} | JIT bytes | xlated bytes | interpreter / JIT (rewrite-data, net of floor) |`,
    `| --- | ${JIT_MODES.flatMap(() => cols.map(() => '---')).join(' | ')} | --- | --- | --- |`,
  ];
  for (const row of r.rows) {
    const net = (mode: (typeof JIT_MODES)[number]) =>
      row.ns[mode]['rewrite-data'] - (floor && row !== floor ? floor.ns[mode]['rewrite-data'] : 0);
    lines.push(
      `| ${row.name} | ${JIT_MODES.flatMap((m) => cols.map((c) => f1(row.ns[m][c]))).join(' | ')} | ${row.bytes.jit.jited} | ${row.bytes.jit.xlated} | ${row === floor ? '-' : f2(net('interpreter') / net('jit'))} |`,
    );
  }
  for (const [name, why] of Object.entries(r.refused))
    lines.push(`| ${name} | refused by the guest's verifier: ${why} |`);
  const ours = r.rows.filter((x) => !x.name.startsWith('reference ') && x.name !== EMPTY_ROW);
  const compared = ours.filter((x) => referenceOf(r.rows, x.name));
  if (compared.length > 0 && floor) {
    lines.push(
      '',
      'Ours / reference, net of the floor (below 1: ours is cheaper):',
      '',
      `| program | ${JIT_MODES.flatMap((m) => cols.map((c) => `${m} ${c}`)).join(' | ')} |`,
      `| --- | ${JIT_MODES.flatMap(() => cols.map(() => '---')).join(' | ')} |`,
    );
    for (const row of compared) {
      const ref = referenceOf(r.rows, row.name)!;
      const cells = JIT_MODES.flatMap((m) =>
        cols.map((c) => f2((row.ns[m][c] - floor.ns[m][c]) / (ref.ns[m][c] - floor.ns[m][c]))),
      );
      lines.push(`| ${row.name} | ${cells.join(' | ')} |`);
    }
  }
  return lines.join('\n');
}
