/**
 * Per-program cost on the guest's own MIPS kernel: BPF_PROG_TEST_RUN (`bpftool prog run ... repeat
 * N`) for each of our four programs and the merged wf_chain, under the MIPS32 JIT and under the
 * interpreter, beside a reference object's programs of the same names and an empty program (the
 * harness floor). The x86 bench (bench/datapath/test-run.ts) measures the same on the build host;
 * here the numbers are those of the CPU the programs ship for (emulated: TCG, so ratios, not ns,
 * carry over to a real 24Kc).
 *
 * Whether a program is JIT-compiled is fixed when it is loaded, so each object is loaded twice in
 * one boot: once with net.core.bpf_jit_enable=0 and once with 1; `bpftool prog show` confirms which
 * one got native code. A round is one `bpftool batch` on the guest (a bpftool process costs about a
 * second of emulated start-up): every measurement of the round, in a new order each round.
 *
 * Two paths, as on x86: "steady" repeats one packet, so only the first run rewrites; the "rewrite
 * path" runs rewrite-harness.bpf.c first, which restores the headers and tail-calls the program,
 * so every run rewrites (what most forwarded packets need: the router decrements the TTL).
 */
import { runChecked, type RouterHost } from '../../core/host/router-host.js';
import { CHAIN_OBJECT, configuredObject, BPF_BUILD_DIR, type ObjectName } from '../../agent/datapath/programs.js';
import { PROGRAM_NAMES } from '../../core/programs.js';
import { TIMED_FRAMES } from '../../lab/wire/frame-cases.js';
import { compileBpfObject } from '../../test/bpf/progrun.js';
import { median, shuffled } from '../statistics.js';
import { buildEmptyObject, REWRITE } from '../datapath/programs-under-test.js';
import { readFileSync } from 'node:fs';
import { singleProgramObject } from './reference-object.js';
import { join } from 'node:path';

export type JitMode = 'jit' | 'interpreter';
export const JIT_MODES: JitMode[] = ['jit', 'interpreter'];
export type FrameKind = 'syn' | 'data';
export type PathKind = 'steady' | 'rewrite';

export interface ProgramCostOptions {
  rounds: number;
  /** Target time of one measurement on the guest, from which each repeat count is calibrated. */
  targetMs: number;
  /** UA3F's shipped tc_bpfel.o (or any object with programs of our four names). */
  referenceObject?: string;
}

export interface ProgramCostRow {
  name: string;
  /** ns per run, median of the rounds, per mode, frame and path. */
  ns: Record<JitMode, Record<`${PathKind}-${FrameKind}`, number>>;
  /** Native code size (0: not JIT-compiled) and translated size, per mode. */
  bytes: Record<JitMode, { jited: number; xlated: number }>;
}

export interface ProgramCostResult {
  rows: ProgramCostRow[];
  /** Programs the guest's verifier would not load, with its reason. */
  refused: Record<string, string>;
  repeats: Record<JitMode, number>;
  seconds: number;
}

/** Bytes the harness restores before each run: the SYN whole, the data frame's L2 + IPv4 + TCP headers. */
const RESTORE_BYTES: Record<FrameKind, number> = { syn: TIMED_FRAMES.syn.length, data: 14 + 20 + 32 };
const HARNESS_MAX_BYTES = 128; // rewrite-harness.bpf.c's WF_HARNESS_MAX_BYTES
const HARNESS_TAIL_CALL_FAILED = 99;

const WORK = '/tmp/wf-progcost';
const PINS = '/sys/fs/bpf/wf-progcost';
export const EMPTY_ROW = 'empty program (harness floor)';

interface Loaded {
  name: string;
  pin: Record<JitMode, string>;
}

interface BatchAnswer {
  command: string[];
  output: { duration?: number; retval?: number; error?: string } | null;
}

export async function programCostBench(host: RouterHost, o: ProgramCostOptions): Promise<ProgramCostResult> {
  const started = Date.now();
  const objects = localObjects(o.referenceObject);
  await runChecked(host, ['sh', '-c', `rm -rf ${WORK} ${PINS}; mkdir -p ${WORK} ${PINS}`]);
  for (const [file, bytes] of Object.entries(objects)) await host.writeFile(`${WORK}/${file}`, bytes);
  for (const kind of ['syn', 'data'] as const) await host.writeFile(`${WORK}/${kind}.bin`, TIMED_FRAMES[kind]);
  const jitBefore = (await runChecked(host, ['cat', '/proc/sys/net/core/bpf_jit_enable'])).trim();
  const programs: Loaded[] = [];
  const refused: Record<string, string> = {};
  try {
    for (const mode of JIT_MODES) await loadAll(host, mode, o.referenceObject !== undefined, programs, refused);
    // A program loaded in one mode only is compared in neither.
    for (const p of programs.filter((x) => JIT_MODES.some((m) => !x.pin[m]))) {
      refused[p.name] ??= `loaded under ${JIT_MODES.filter((m) => p.pin[m]).join(', ')} only`;
      programs.splice(programs.indexOf(p), 1);
    }
  } finally {
    await host.run(['sysctl', '-qw', `net.core.bpf_jit_enable=${jitBefore}`]);
  }
  try {
    await checkRewritePath(host, programs);
    const repeats = await calibrate(host, programs, o.targetMs);
    const samples = new Map<string, number[]>();
    for (let round = 0; round < o.rounds; round++) {
      const plan = shuffled(measurements(programs, repeats));
      const answers = await batch(
        host,
        plan.flatMap((m) => m.commands),
      );
      let at = 0;
      for (const m of plan) {
        const a = answers[at + m.commands.length - 1]!;
        at += m.commands.length;
        if (a.output?.retval === HARNESS_TAIL_CALL_FAILED) throw new Error(`${m.key}: the harness's tail call failed`);
        const list = samples.get(m.key) ?? [];
        list.push(a.output!.duration!);
        samples.set(m.key, list);
      }
    }
    const rows: ProgramCostRow[] = [];
    for (const p of programs) {
      const ns = {} as ProgramCostRow['ns'];
      const bytes = {} as ProgramCostRow['bytes'];
      for (const mode of JIT_MODES) {
        ns[mode] = {} as ProgramCostRow['ns'][JitMode];
        for (const path of ['steady', 'rewrite'] as const)
          for (const kind of ['syn', 'data'] as const)
            ns[mode][`${path}-${kind}`] = median(samples.get(key(p.name, mode, path, kind)) ?? [NaN]);
        bytes[mode] = await programSize(host, p.pin[mode]);
      }
      rows.push({ name: p.name, ns, bytes });
    }
    return { rows, refused, repeats, seconds: (Date.now() - started) / 1000 };
  } finally {
    await host.run(['rm', '-rf', PINS, WORK]);
  }
}

/** The objects the guest loads, by file name: ours configured as the loader would, the floor, the harness. */
function localObjects(referenceObject: string | undefined): Record<string, Buffer> {
  const out: Record<string, Buffer> = {};
  for (const name of [...PROGRAM_NAMES, CHAIN_OBJECT] as ObjectName[])
    out[`${name}.o`] = configuredObject('bpfel', name, REWRITE, 'ethernet').bytes;
  out['empty.o'] = readFileSync(buildEmptyObject());
  out['harness.o'] = readFileSync(
    compileBpfObject('bench/datapath/rewrite-harness.bpf.c', join(BPF_BUILD_DIR, 'bench-rewrite-harness.o')),
  );
  if (referenceObject) {
    const whole = readFileSync(referenceObject);
    for (const name of PROGRAM_NAMES) out[`reference-${name}.o`] = singleProgramObject(whole, name);
  }
  return out;
}

/** Loads every object with the JIT on or off; the harness of each mode owns that mode's prog array. */
async function loadAll(
  host: RouterHost,
  mode: JitMode,
  reference: boolean,
  programs: Loaded[],
  refused: Record<string, string>,
): Promise<void> {
  await runChecked(host, ['sysctl', '-qw', `net.core.bpf_jit_enable=${mode === 'jit' ? 1 : 0}`]);
  const dir = `${PINS}/${mode}`;
  await runChecked(host, ['mkdir', '-p', dir]);
  const load = async (name: string, file: string) => {
    await runChecked(host, ['bpftool', 'prog', 'load', `${WORK}/${file}`, `${dir}/${name}`, 'type', 'classifier'], {
      timeoutMs: 120_000,
    });
    return `${dir}/${name}`;
  };
  const add = (name: string, pin: string) => {
    const existing = programs.find((p) => p.name === name);
    if (existing) existing.pin[mode] = pin;
    else programs.push({ name, pin: { [mode]: pin } as Loaded['pin'] });
  };
  add(EMPTY_ROW, await load('empty', 'empty.o'));
  for (const name of PROGRAM_NAMES) add(name, await load(name, `${name}.o`));
  add(CHAIN_OBJECT, await load(CHAIN_OBJECT, `${CHAIN_OBJECT}.o`));
  await runChecked(
    host,
    [
      'bpftool',
      'prog',
      'load',
      `${WORK}/harness.o`,
      `${dir}/harness`,
      'type',
      'classifier',
      'pinmaps',
      `${dir}/harness_maps`,
    ],
    { timeoutMs: 120_000 },
  );
  // One program at a time (reference-object.ts): one the verifier refuses must not hide the others.
  if (reference)
    for (const name of PROGRAM_NAMES) {
      const pins = `${dir}/reference-${name}`;
      const r = await host.run(
        ['bpftool', 'prog', 'loadall', `${WORK}/reference-${name}.o`, pins, 'type', 'classifier'],
        { timeoutMs: 120_000 },
      );
      if (r.code === 0) add(`reference ${name}`, `${pins}/${name}`);
      else refused[`reference ${name}`] ??= verifierVerdict(`${r.stdout}\n${r.stderr}`);
    }
}

/** The verifier's reason, the last log line before its statistics ("misaligned packet access ..."). */
function verifierVerdict(log: string): string {
  const lines = log.split('\n').map((l) => l.trim());
  const end = lines.findIndex((l) => l.startsWith('processed ') && l.includes('insns'));
  return (end > 0 ? lines[end - 1] : lines.filter(Boolean).pop()) ?? 'refused';
}

const key = (name: string, mode: JitMode, path: PathKind, kind: FrameKind) => `${name}|${mode}|${path}|${kind}`;

/** `map update` arguments: a u32 key 0 and the value bytes, as bpftool takes them. */
const ZERO_KEY = 'key 0 0 0 0';
function templateValue(kind: FrameKind): string {
  const value = Buffer.alloc(4 + HARNESS_MAX_BYTES); // struct wf_harness_template: u32 len, then the bytes
  value.writeUInt32LE(RESTORE_BYTES[kind], 0);
  TIMED_FRAMES[kind].copy(value, 4, 0, RESTORE_BYTES[kind]);
  return [...value].join(' ');
}

function runCommand(pin: string, kind: FrameKind, repeat: number, out = false): string {
  const outArgs = out ? ` data_out ${WORK}/out.bin data_size_out ${TIMED_FRAMES[kind].length + 64}` : '';
  return `prog run pinned ${pin} data_in ${WORK}/${kind}.bin${outArgs} repeat ${repeat}`;
}

/** Batch lines that make the mode's harness restore `kind` and tail-call `pin`, then run it. */
function rewriteCommands(pin: string, mode: JitMode, kind: FrameKind, repeat: number, out = false): string[] {
  const maps = `${PINS}/${mode}/harness_maps`;
  return [
    `map update pinned ${maps}/wf_harness_template ${ZERO_KEY} value ${templateValue(kind)}`,
    `map update pinned ${maps}/wf_harness_next ${ZERO_KEY} value pinned ${pin}`,
    runCommand(`${PINS}/${mode}/harness`, kind, repeat, out),
  ];
}

interface Measurement {
  key: string;
  commands: string[];
}

function measurements(programs: Loaded[], repeats: Record<JitMode, number>): Measurement[] {
  const out: Measurement[] = [];
  for (const p of programs)
    for (const mode of JIT_MODES)
      for (const kind of ['syn', 'data'] as const) {
        out.push({ key: key(p.name, mode, 'steady', kind), commands: [runCommand(p.pin[mode], kind, repeats[mode])] });
        out.push({
          key: key(p.name, mode, 'rewrite', kind),
          commands: rewriteCommands(p.pin[mode], mode, kind, repeats[mode]),
        });
      }
  return out;
}

async function batch(host: RouterHost, commands: string[]): Promise<BatchAnswer[]> {
  await host.writeFile(`${WORK}/batch.txt`, `${commands.join('\n')}\n`);
  const r = await host.run(['bpftool', '-j', 'batch', 'file', `${WORK}/batch.txt`], { timeoutMs: 600_000 });
  const answers = JSON.parse(r.stdout || '[]') as BatchAnswer[];
  const failed = answers.find((a) => a.output && 'error' in a.output);
  if (r.code !== 0 || failed || answers.length !== commands.length)
    throw new Error(
      `bpftool batch on the guest (exit ${r.code}): ${failed ? `${failed.command.join(' ')}: ${failed.output?.error}` : r.stderr.trim().slice(-400)}`,
    );
  return answers;
}

/** Every program must really rewrite on the rewrite path: its SYN output differs from the restored frame. */
async function checkRewritePath(host: RouterHost, programs: Loaded[]): Promise<void> {
  for (const p of programs.filter((x) => x.name !== EMPTY_ROW))
    for (const mode of JIT_MODES) {
      await batch(host, rewriteCommands(p.pin[mode], mode, 'syn', 1, true));
      const out = await host.readBinary(`${WORK}/out.bin`);
      if (!out || out.equals(TIMED_FRAMES.syn))
        throw new Error(`rewrite harness: ${p.name} (${mode}) left the SYN unchanged`);
    }
}

/**
 * One repeat count per mode, so the slowest program's measurement takes about targetMs. The probe
 * runs each program a few hundred times, twice, and keeps the lower time: one short probe is
 * easily stretched by the host preempting the emulator.
 */
async function calibrate(host: RouterHost, programs: Loaded[], targetMs: number): Promise<Record<JitMode, number>> {
  const probe = 200;
  const out = {} as Record<JitMode, number>;
  for (const mode of JIT_MODES) {
    const commands = programs.flatMap((p) => rewriteCommands(p.pin[mode], mode, 'syn', probe));
    const [first, second] = [await batch(host, commands), await batch(host, commands)];
    const runs = (answers: BatchAnswer[]) => answers.filter((_, i) => i % 3 === 2).map((a) => a.output!.duration!);
    const a = runs(first);
    const b = runs(second);
    const slowest = Math.max(...a.map((x, i) => Math.min(x, b[i]!)));
    out[mode] = Math.max(probe, Math.round((targetMs * 1e6) / Math.max(1, slowest)));
  }
  return out;
}

async function programSize(host: RouterHost, pin: string): Promise<{ jited: number; xlated: number }> {
  const j = JSON.parse(await runChecked(host, ['bpftool', '-j', 'prog', 'show', 'pinned', pin])) as {
    bytes_jited?: number;
    bytes_xlated?: number;
  };
  return { jited: j.bytes_jited ?? 0, xlated: j.bytes_xlated ?? 0 };
}
