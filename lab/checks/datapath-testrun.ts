/**
 * The x86 program tests' frame catalogue (lab/wire/frame-cases.ts) through BPF_PROG_TEST_RUN
 * inside a guest kernel, compared byte for byte with the same catalogue run on this host: the
 * bpfeb build on big-endian MIPS and the bpfel build on mipsel must rewrite exactly what the
 * x86 kernel's run of bpfel does, under the MIPS JIT and under the interpreter.
 *
 * Works over any RouterHost: frames, objects and the bpftool batch travel as one tar file,
 * the outputs come back as another (one command each way, not one per frame).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalHost } from '../../core/host/local-host.js';
import { runChecked, type RouterHost } from '../../core/host/router-host.js';
import { PROGRAM_NAMES, type BpfEndian, type RewriteConfig } from '../../core/programs.js';
import { CHAIN_OBJECT, configuredObject, type L2Mode, type ObjectName } from '../../agent/datapath/programs.js';
import type { LabArch } from '../image-cache.js';
import type { LabCheck } from './lab-check.js';
import { garbageCases, ipv6Cases, tcpCases, TTL, WINDOW, type Case } from '../wire/frame-cases.js';

/** The configuration test/bpf/programs.test.ts loads every program with. */
export const CATALOGUE_REWRITE: RewriteConfig = {
  programs: [...PROGRAM_NAMES],
  ttl: TTL,
  synWindow: WINDOW,
  ipv6HopLimit: true,
};
/** The four programs and the merged chain (all four), as the loader can attach them. */
export const CATALOGUE_OBJECTS: ObjectName[] = [...PROGRAM_NAMES, CHAIN_OBJECT];

export function catalogue(): Case[] {
  return [...tcpCases(), ...ipv6Cases(), ...garbageCases()];
}

/** One case's run: retval as bpftool prints it and the frame that came out. */
export interface CaseRun {
  retval: number;
  out: Buffer;
}

export interface CatalogueRun {
  /** "object/l2/caseIndex" -> run. */
  runs: Map<string, CaseRun>;
  /** Whether each loaded object ("object/l2") was JIT-compiled. */
  jited: Record<string, boolean>;
  seconds: number;
}

/** Where a host keeps the test run's files and pins; both removed afterwards. */
export interface TestRunPlace {
  work: string;
  pins: string;
}

const l2Of = (raw: boolean): L2Mode => (raw ? 'raw-ip' : 'ethernet');

/** A directory of files as a tar archive (this machine's tar: the lab runs on Linux). */
function tarOf(files: Record<string, Buffer | string>): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'wf-testrun-'));
  try {
    for (const [name, data] of Object.entries(files)) writeFileSync(join(dir, name), data);
    return execFileSync('tar', ['-cf', '-', '-C', dir, '.'], { maxBuffer: 256 << 20 });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function untar(archive: Buffer): Map<string, Buffer> {
  const dir = mkdtempSync(join(tmpdir(), 'wf-testrun-'));
  try {
    execFileSync('tar', ['-xf', '-', '-C', dir], { input: archive });
    return new Map(readdirSync(dir).map((n) => [n, readFileSync(join(dir, n))]));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Sends `files` to `place.work` on the host in one transfer (busybox tar unpacks it). */
async function ship(host: RouterHost, place: TestRunPlace, files: Record<string, Buffer | string>): Promise<void> {
  await runChecked(host, ['rm', '-rf', place.work, place.pins]);
  await runChecked(host, ['mkdir', '-p', place.work, place.pins]);
  await host.writeFile(`${place.work}/in.tar`, tarOf(files), 0o600);
  await runChecked(host, ['tar', '-xf', `${place.work}/in.tar`, '-C', place.work]);
}

async function cleanUp(host: RouterHost, place: TestRunPlace): Promise<void> {
  await host.run(['rm', '-rf', place.work, place.pins]);
}

/** Loads object files already shipped as <key>.o and reports whether each was JIT-compiled. */
async function loadAll(host: RouterHost, place: TestRunPlace, keys: string[]): Promise<Record<string, boolean>> {
  const jited: Record<string, boolean> = {};
  for (const key of keys) {
    const pin = `${place.pins}/${key.replace('/', '-')}`;
    await runChecked(
      host,
      ['bpftool', 'prog', 'load', `${place.work}/${key.replace('/', '-')}.o`, pin, 'type', 'classifier'],
      {
        timeoutMs: 300_000,
      },
    );
    const show = JSON.parse(await runChecked(host, ['bpftool', '-j', 'prog', 'show', 'pinned', pin])) as {
      bytes_jited?: number;
    };
    jited[key] = (show.bytes_jited ?? 0) > 0;
  }
  return jited;
}

/** Runs a bpftool batch file shipped to the host; its JSON answers in order. */
async function runBatch(host: RouterHost, batchPath: string, expect: number) {
  const stdout = await runChecked(host, ['bpftool', '-j', 'batch', 'file', batchPath], { timeoutMs: 600_000 });
  const rows = JSON.parse(stdout) as { output: { retval: number; duration: number } }[];
  if (rows.length !== expect) throw new Error(`bpftool batch answered ${rows.length} of ${expect} runs`);
  return rows.map((r) => r.output);
}

/**
 * Runs every case of the catalogue once through every object (the raw-IP cases through the
 * raw-IP builds), `endian` being the host kernel's byte order.
 */
export async function runCatalogue(host: RouterHost, endian: BpfEndian, place: TestRunPlace): Promise<CatalogueRun> {
  const started = Date.now();
  const cases = catalogue();
  const files: Record<string, Buffer | string> = {};
  const keys: string[] = [];
  for (const object of CATALOGUE_OBJECTS) {
    for (const raw of [false, true]) {
      const key = `${object}/${l2Of(raw)}`;
      keys.push(key);
      files[`${key.replace('/', '-')}.o`] = configuredObject(endian, object, CATALOGUE_REWRITE, l2Of(raw)).bytes;
    }
  }
  cases.forEach((c, i) => (files[`in-${i}.bin`] = c.frame));
  const lines: string[] = [];
  const order: string[] = [];
  for (const key of keys) {
    const raw = key.endsWith('/raw-ip');
    cases.forEach((c, i) => {
      if (!!c.raw !== raw) return;
      const id = `${key}/${i}`;
      order.push(id);
      const pin = `${place.pins}/${key.replace('/', '-')}`;
      const out = `${place.work}/out/${key.replace('/', '-')}-${i}.bin`;
      lines.push(
        `prog run pinned ${pin} data_in ${place.work}/in-${i}.bin data_out ${out} data_size_out ${c.frame.length + 64} repeat 1`,
      );
    });
  }
  files['batch.txt'] = `${lines.join('\n')}\n`;
  try {
    await ship(host, place, files);
    await runChecked(host, ['mkdir', '-p', `${place.work}/out`]);
    const jited = await loadAll(host, place, keys);
    const answers = await runBatch(host, `${place.work}/batch.txt`, lines.length);
    await runChecked(host, ['tar', '-cf', `${place.work}/out.tar`, '-C', `${place.work}/out`, '.']);
    const archive = await host.readBinary(`${place.work}/out.tar`);
    if (!archive) throw new Error(`${host.description}: cannot read back ${place.work}/out.tar`);
    const outs = untar(archive);
    const runs = new Map<string, CaseRun>();
    order.forEach((id, n) => {
      const [object, l2, i] = id.split('/');
      const out = outs.get(`${object}-${l2}-${i}.bin`);
      if (!out) throw new Error(`${host.description}: no output for ${id}`);
      runs.set(id, { retval: answers[n]!.retval, out });
    });
    return { runs, jited, seconds: (Date.now() - started) / 1000 };
  } finally {
    await cleanUp(host, place);
  }
}

/** Where two runs of the catalogue disagree (retval or bytes), named by object and case. */
export function compareRuns(reference: CatalogueRun, other: CatalogueRun): { compared: number; differences: string[] } {
  const cases = catalogue();
  const differences: string[] = [];
  let compared = 0;
  for (const [id, ref] of reference.runs) {
    const o = other.runs.get(id);
    const [object, l2, i] = id.split('/');
    const label = `${object} (${l2}) / ${cases[Number(i)]!.name}`;
    compared++;
    if (!o) differences.push(`${label}: missing`);
    else if (o.retval !== ref.retval) differences.push(`${label}: retval ${o.retval} != ${ref.retval}`);
    else if (!o.out.equals(ref.out))
      differences.push(`${label}: output differs (${o.out.toString('hex')} != ${ref.out.toString('hex')})`);
  }
  if (other.runs.size !== reference.runs.size)
    differences.push(`run counts differ: ${other.runs.size} != ${reference.runs.size}`);
  return { compared, differences };
}

/** Sets net.core.bpf_jit_enable and returns the value it had. */
export async function setJit(host: RouterHost, value: 0 | 1): Promise<string> {
  const before = (await runChecked(host, ['cat', '/proc/sys/net/core/bpf_jit_enable'])).trim();
  await runChecked(host, ['sh', '-c', `echo ${value} > /proc/sys/net/core/bpf_jit_enable`]);
  const now = (await runChecked(host, ['cat', '/proc/sys/net/core/bpf_jit_enable'])).trim();
  if (now !== String(value)) throw new Error(`${host.description}: bpf_jit_enable stayed ${now} (wanted ${value})`);
  return before;
}

/** A fresh local place for the host's own runs (its bpffs at /sys/fs/bpf). */
export function localPlace(tag: string): TestRunPlace {
  const work = mkdtempSync(join(tmpdir(), `wf-testrun-${tag}-`));
  mkdirSync(work, { recursive: true });
  return { work, pins: `/sys/fs/bpf/wrtfleet-lab-${tag}-${process.pid}` };
}

/** The guest's side of a test-run comparison: where its files and pins go. */
const GUEST_PLACE: TestRunPlace = { work: '/tmp/wrtfleet-testrun', pins: '/sys/fs/bpf/wrtfleet-testrun' };

let hostReference: Promise<CatalogueRun> | undefined;
/** This host's run of the catalogue (bpfel, x86 JIT), once per process. */
export function hostCatalogue(): Promise<CatalogueRun> {
  return (hostReference ??= runCatalogue(new LocalHost(), 'bpfel', localPlace('ref')));
}

export interface TestRunCheckOptions {
  jit: (0 | 1)[];
}

/**
 * The catalogue inside the guest under each JIT setting, byte-identical to this host's run.
 * What each program costs per run is bench/lab/program-cost.ts's measurement, not a check's.
 */
export async function runTestRunCheck(
  guest: { arch: LabArch; host: RouterHost },
  opts: TestRunCheckOptions = { jit: [1, 0] },
) {
  const endian: BpfEndian = guest.arch === 'mips' ? 'bpfeb' : 'bpfel';
  const failures: string[] = [];
  const numbers: Record<string, number> = {};
  const report: Record<string, unknown> = {};
  const t0 = Date.now();
  const reference = await hostCatalogue();
  numbers['host.cases'] = reference.runs.size;
  const before = await setJit(guest.host, 1).catch((e: Error) => {
    failures.push(`bpf_jit_enable: ${e.message}`);
    return null;
  });
  try {
    for (const jit of opts.jit) {
      try {
        await setJit(guest.host, jit);
      } catch (e) {
        failures.push((e as Error).message);
        continue;
      }
      const run = await runCatalogue(guest.host, endian, GUEST_PLACE);
      const cmp = compareRuns(reference, run);
      numbers[`jit${jit}.compared`] = cmp.compared;
      numbers[`jit${jit}.differences`] = cmp.differences.length;
      numbers[`jit${jit}.catalogueSeconds`] = run.seconds;
      report[`jit${jit}.differences`] = cmp.differences.slice(0, 20);
      if (cmp.differences.length)
        failures.push(
          `jit ${jit}: ${cmp.differences.length} of ${cmp.compared} runs differ from x86: ${cmp.differences[0]}`,
        );
      const wrongJit = Object.entries(run.jited).filter(([, j]) => j !== (jit === 1));
      if (wrongJit.length) failures.push(`jit ${jit}: jited ${JSON.stringify(Object.fromEntries(wrongJit))}`);
    }
  } finally {
    if (before !== null) await guest.host.run(['sh', '-c', `echo ${before} > /proc/sys/net/core/bpf_jit_enable`]);
  }
  numbers['total.seconds'] = (Date.now() - t0) / 1000;
  return {
    name: 'datapath-testrun',
    ok: failures.length === 0,
    detail:
      failures.length === 0
        ? `${guest.arch}: ${reference.runs.size} test runs per JIT setting byte-identical to x86`
        : `${guest.arch}: ${failures.join(' | ')}`,
    numbers,
    failures,
    report,
  };
}

/** For the registry (lab/checks/index.ts). */
export const datapathTestRunCheck: LabCheck = {
  name: 'datapath-testrun',
  arches: ['mipsel', 'mips'],
  run: (g) => runTestRunCheck({ arch: g.arch, host: g.host }),
};
