/**
 * ns per packet of each program, of wf_chain and of candidates with BPF_PROG_TEST_RUN, next to an
 * empty program (the harness floor): as the test run repeats one packet (only the first run
 * rewrites), and on the rewrite path, where rewrite-harness.bpf.c restores the header before every
 * run so that every run rewrites, as on most forwarded packets.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CHAIN_OBJECT, BPF_BUILD_DIR } from '../../agent/datapath/programs.js';
import { PROGRAM_NAMES } from '../../core/programs.js';
import { TIMED_FRAMES } from '../../lab/wire/frame-cases.js';
import { compileBpfObject, ensureBpffs, TestProgram, TEST_PIN_ROOT } from '../../test/bpf/progrun.js';
import { mean, shuffled } from '../statistics.js';
import { buildEmptyObject, REWRITE, type Candidate } from './programs-under-test.js';

export interface TestRunOptions {
  /** The test run's repeat count per measurement. */
  repeat: number;
  /** Many short rounds pin a paired mean down better than a few long ones (docs/BENCHMARKS.md#datapath-method). */
  testRunRounds: number;
  candidates: Candidate[];
  /**
   * A BPF object holding the reference implementation's four programs under the same names (built
   * from its source; not part of this repository), measured in the same rounds so "no program
   * slower than the reference" is a same-run comparison.
   */
  referenceObject?: string;
}

const frames = { syn: TIMED_FRAMES.syn, data1500: TIMED_FRAMES.data };

/** Bytes the rewrite-path harness restores before each run: L2 + IPv4 + TCP headers of the frame. */
const HARNESS_RESTORE_BYTES = { syn: frames.syn.length, data: 14 + 20 + 32 };
/** rewrite-harness.bpf.c's WF_HARNESS_MAX_BYTES: the size of its template's byte array. */
const HARNESS_MAX_BYTES = 128;
/** rewrite-harness.bpf.c's verdict when it could not reach the program under test. */
const HARNESS_TAIL_CALL_FAILED = 99;

export interface RunRows {
  name: string;
  syn: number; // best of the rounds
  data: number;
  synMean: number;
  dataMean: number;
  runs: { syn: number[]; data: number[] };
}

export interface TestRunResult {
  /** One per program: the empty program (the floor) first. */
  rows: RunRows[];
  floor: RunRows;
  /** The four separate programs' best runs summed: in a TCX or cls_bpf chain each is its own bpf_prog_run. */
  chain: { syn: number; data: number };
  /** The same programs on the rewrite path; the first row is the harness with the empty program. */
  rewriteRows: RunRows[];
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

export async function testRunBench(o: TestRunOptions): Promise<TestRunResult> {
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

  if (o.referenceObject) bpftool(['prog', 'loadall', o.referenceObject, `${pins}/reference`, 'type', 'classifier']);
  const candidatePins = o.candidates.map((c, i) => {
    bpftool(['prog', 'load', c.path, `${pins}/candidate-${i}`, 'type', 'classifier']);
    return { name: c.name, pin: `${pins}/candidate-${i}` };
  });

  // Every program is loaded first and the rounds interleave them, so load that drifts during the
  // run lands on all rows alike. The kernel reports whole ns per run, so differences under 1 ns
  // show only in the mean (noise dithers the rounding) and in the paired differences of the report.
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
    ...(o.referenceObject
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
      (p: Prog, i: number) => steady[i]!.syn.push(run(p.pin, frames.syn, o.repeat).durationNs),
      (p: Prog, i: number) => steady[i]!.data.push(run(p.pin, frames.data1500, o.repeat).durationNs),
      (p: Prog, i: number) =>
        rewriting[i]!.syn.push(runRewritePath(p.pin, frames.syn, HARNESS_RESTORE_BYTES.syn, o.repeat).durationNs),
      (p: Prog, i: number) =>
        rewriting[i]!.data.push(
          runRewritePath(p.pin, frames.data1500, HARNESS_RESTORE_BYTES.data, o.repeat).durationNs,
        ),
    ];
    for (let round = 0; round < o.testRunRounds; round++) {
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
