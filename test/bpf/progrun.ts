/**
 * BPF_PROG_TEST_RUN through bpftool: loads one configured program object, pins it under a
 * test-owned bpffs directory and runs frames through it.
 *
 * Test-run quirk: for SCHED_CLS programs the kernel always treats data_in as an Ethernet
 * frame (skb->protocol = eth_type_trans(data)). Raw-IP (PPP) programs read skb->protocol,
 * so raw IPv4 test packets use a source address whose first two bytes are 0x0800 (8.0.x.x):
 * bytes 12-13 of an IPv4 header are the start of the source address.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { LocalHost } from '../../core/host/local-host.js';
import { readChainCounters, readCounters, type ProgramCounters } from '../../agent/datapath/counters.js';
import { configuredObject, type L2Mode, type ObjectName } from '../../agent/datapath/programs.js';
import { DEFAULT_REWRITE, type ProgramName, type RewriteConfig } from '../../core/programs.js';

const exec = promisify(execFile);
export const TEST_PIN_ROOT = '/sys/fs/bpf/wrtfleet-test';

/**
 * Compiles a little-endian BPF object that is not one of the product's (the bench's empty
 * program and rewrite harness, the tests' probes) with the flags bpf/build.sh uses, so a
 * measured floor or a probe comes from the same compiler settings as the programs.
 */
export function compileBpfObject(src: string, out: string): string {
  // asm/types.h lives in the multiarch include directory on Debian (as in bpf/build.sh)
  const multiarch = execFileSync('gcc', ['-dumpmachine']).toString().trim();
  execFileSync('clang', [
    '-O2',
    '-g',
    '-mcpu=v2',
    '-Wall',
    '-Werror',
    '-target',
    'bpfel',
    `-I/usr/include/${multiarch}`,
    '-c',
    src,
    '-o',
    out,
  ]);
  return out;
}

/** -1 as bpftool prints a u32 retval: TCX_NEXT / TC_ACT_UNSPEC. */
export const RET_CONTINUE = 0xffffffff;

export async function ensureBpffs(): Promise<void> {
  const mounts = readFileSync('/proc/mounts', 'utf8');
  if (!/ \/sys\/fs\/bpf bpf /.test(mounts)) await exec('mount', ['-t', 'bpf', 'bpf', '/sys/fs/bpf']);
}

export interface RunResult {
  retval: number;
  out: Buffer;
  durationNs: number;
}

export class TestProgram {
  private constructor(
    readonly name: ObjectName,
    readonly dir: string,
    private readonly work: string,
  ) {}

  static async load(
    name: ObjectName,
    cfg: Partial<RewriteConfig> = {},
    l2: L2Mode = 'ethernet',
    tag = 'p',
  ): Promise<TestProgram> {
    await ensureBpffs();
    const work = mkdtempSync(join(tmpdir(), 'wf-progrun-'));
    const obj = configuredObject('bpfel', name, { ...DEFAULT_REWRITE, ...cfg }, l2);
    const objPath = join(work, `${name}.o`);
    writeFileSync(objPath, obj.bytes);
    const dir = `${TEST_PIN_ROOT}/${process.pid}-${tag}-${name}-${obj.fingerprint}`;
    rmSync(dir, { recursive: true, force: true });
    await exec('mkdir', ['-p', dir]);
    try {
      await exec('bpftool', ['prog', 'load', objPath, `${dir}/prog`, 'type', 'classifier', 'pinmaps', `${dir}/maps`]);
    } catch (e) {
      const err = e as { stderr?: string };
      throw new Error(`bpftool prog load ${name}: ${(err.stderr ?? String(e)).split('\n').slice(-15).join('\n')}`, {
        cause: e,
      });
    }
    return new TestProgram(name, dir, work);
  }

  async run(frame: Buffer, repeat = 1): Promise<RunResult> {
    const inPath = join(this.work, 'in.bin');
    const outPath = join(this.work, 'out.bin');
    writeFileSync(inPath, frame);
    rmSync(outPath, { force: true });
    const { stdout } = await exec('bpftool', [
      '-j',
      'prog',
      'run',
      'pinned',
      `${this.dir}/prog`,
      'data_in',
      inPath,
      'data_out',
      outPath,
      'data_size_out',
      String(frame.length + 64),
      'repeat',
      String(repeat),
    ]);
    const j = JSON.parse(stdout) as { retval: number; duration: number };
    return { retval: j.retval, out: readFileSync(outPath), durationNs: j.duration };
  }

  /** Runs each frame once, all in one bpftool process (`batch`): a process per frame costs ~10 ms. */
  async runMany(frames: readonly Buffer[]): Promise<RunResult[]> {
    if (frames.length === 0) return [];
    const outPath = (i: number) => join(this.work, `out-${i}.bin`);
    const commands = frames.map((frame, i) => {
      const inPath = join(this.work, `in-${i}.bin`);
      writeFileSync(inPath, frame);
      rmSync(outPath(i), { force: true });
      const size = String(frame.length + 64);
      return `prog run pinned ${this.dir}/prog data_in ${inPath} data_out ${outPath(i)} data_size_out ${size} repeat 1`;
    });
    const batchPath = join(this.work, 'batch.txt');
    writeFileSync(batchPath, `${commands.join('\n')}\n`);
    const { stdout } = await exec('bpftool', ['-j', 'batch', 'file', batchPath], { maxBuffer: 16 << 20 });
    const results = JSON.parse(stdout) as { output: { retval: number; duration: number } }[];
    if (results.length !== frames.length) {
      throw new Error(`bpftool batch answered ${results.length} of ${frames.length} runs`);
    }
    return results.map(({ output }, i) => ({
      retval: output.retval,
      out: readFileSync(outPath(i)),
      durationNs: output.duration,
    }));
  }

  counters(): Promise<ProgramCounters> {
    return readCounters(new LocalHost(), `${this.dir}/maps/wf_stats`);
  }

  /** wf_chain's per-rewrite counters. */
  chainCounters(programs: readonly ProgramName[]) {
    return readChainCounters(new LocalHost(), `${this.dir}/maps/wf_chain_stats`, programs);
  }

  async unload(): Promise<void> {
    rmSync(this.dir, { recursive: true, force: true });
    rmSync(this.work, { recursive: true, force: true });
  }
}
