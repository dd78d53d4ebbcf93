import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import type { RouterHost } from '../../core/host/router-host.js';
import { patchRodata } from './elf.js';
import { PROGRAM_NAMES, type BpfEndian, type ProgramName, type RewriteConfig } from '../../core/programs.js';

/**
 * The merged program (bpf/wf_chain.bpf.c): the selected rewrites in one attachment, one
 * dispatch and one parse per packet. Each rewrite is the same code its own program runs.
 */
export const CHAIN_OBJECT = 'wf_chain';
/** A BPF object the loader can attach: one rewrite, or the merged chain. */
export type ObjectName = ProgramName | typeof CHAIN_OBJECT;

/** wf_cfg_chain of wf_chain.bpf.c: bit i selects PROGRAM_NAMES[i] (the WF_CHAIN_* slots). */
export function chainMask(programs: readonly ProgramName[]): number {
  return programs.reduce((mask, p) => mask | (1 << PROGRAM_NAMES.indexOf(p)), 0);
}

/** The rewrites a wf_cfg_chain value selects, in PROGRAM_NAMES order. */
export function programsOfMask(mask: number): ProgramName[] {
  return PROGRAM_NAMES.filter((_, i) => mask & (1 << i));
}

/** Link-level framing of an interface, as the programs' wf_cfg_l2 global encodes it. */
export type L2Mode = 'ethernet' | 'raw-ip';
const L2_MODE_VALUE: Record<L2Mode, number> = { ethernet: 0, 'raw-ip': 1 };

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const BPF_BUILD_DIR = join(REPO_ROOT, 'bpf', 'build');
/** wf-tcx built for this machine by bpf/build.sh (a router needs one built for its CPU). */
export const LOCAL_TCX_HELPER = join(BPF_BUILD_DIR, 'wf-tcx');

/** The router CPUs bpf/build.sh cross-builds wf-tcx for, as bpf/build/<dir>/wf-tcx (static). */
export type TcxHelperCpu = 'mipsel' | 'mips' | 'aarch64';

/** Whether a binary built for this machine runs on a router whose CPU is `arch`. */
export function runsOnThisCpu(arch: string | null | undefined): boolean {
  const mine: Record<string, string[]> = { x64: ['x86_64', 'amd64'], arm64: ['aarch64', 'arm64'] };
  return !!arch && (mine[process.arch] ?? []).some((a) => arch === a || arch.startsWith(`${a}_`));
}

/**
 * The wf-tcx binary for a router, read from this machine's build (bpf/build, or the bundle's
 * copy of it): the host build where the router has this machine's CPU, else the static
 * cross build for its CPU (stored gzipped in the bundle). Null when there is none.
 */
export function tcxHelperBinaryFor(
  arch: string | null | undefined,
  endian: string | null | undefined,
  buildDir = BPF_BUILD_DIR,
): Buffer | null {
  if (runsOnThisCpu(arch) && existsSync(join(buildDir, 'wf-tcx'))) return readFileSync(join(buildDir, 'wf-tcx'));
  const cpu = tcxHelperCpuFor(arch, endian);
  if (!cpu) return null;
  if (existsSync(join(buildDir, cpu, 'wf-tcx'))) return readFileSync(join(buildDir, cpu, 'wf-tcx'));
  if (existsSync(join(buildDir, cpu, 'wf-tcx.gz'))) return gunzipSync(readFileSync(join(buildDir, cpu, 'wf-tcx.gz')));
  return null;
}

/**
 * Which cross-built wf-tcx runs on a router, from its facts: `arch` is OpenWrt's package arch
 * (mipsel_24kc, mips_24kc, aarch64_cortex-a53) or, on images without one, `uname -m`, which
 * says "mips" for both byte orders, hence the endianness. Null: none of ours (x86_64 uses
 * the build host's own helper; 64-bit MIPS, 32-bit ARM and unknowns have none yet).
 */
export function tcxHelperCpuFor(
  arch: string | null | undefined,
  endian: string | null | undefined,
): TcxHelperCpu | null {
  if (!arch) return null;
  if (/^(aarch64|arm64)(_|$)/.test(arch)) return 'aarch64';
  if (/^mipsel(_|$)/.test(arch)) return 'mipsel';
  if (/^mips(_|$)/.test(arch)) return endian === 'little' ? 'mipsel' : endian === 'big' ? 'mips' : null;
  return null;
}

/** Path of the compiled object of `program` for the given byte order (built by `npm run bpf:build`). */
export function bpfObjectFor(endian: BpfEndian, program: ObjectName): string {
  return join(BPF_BUILD_DIR, endian, `${program}.o`);
}

/**
 * Byte order of the router's CPU, read from the ELF header of its /bin/sh (busybox on
 * OpenWrt): EI_DATA is 1 for little-, 2 for big-endian. Works over any RouterHost.
 */
export async function detectEndian(host: RouterHost): Promise<BpfEndian> {
  const head = await host.readBinary('/bin/sh');
  if (!head || head.length < 6 || head.readUInt32BE(0) !== 0x7f454c46)
    throw new Error(`${host.description}: cannot read the ELF header of /bin/sh`);
  if (head[5] === 1) return 'bpfel';
  if (head[5] === 2) return 'bpfeb';
  throw new Error(`${host.description}: unknown EI_DATA ${head[5]}`);
}

/** The .rodata values an object gets for `cfg` on an interface with framing `l2`. */
export function rodataFor(object: ObjectName, cfg: RewriteConfig, l2: L2Mode): Record<string, number> {
  const values: Record<string, number> = { wf_cfg_l2: L2_MODE_VALUE[l2] };
  const has = (p: ProgramName) => object === p || (object === CHAIN_OBJECT && cfg.programs.includes(p));
  if (has('set_ip_ttl')) {
    values.wf_cfg_ttl = cfg.ttl;
    values.wf_cfg_ipv6_hop_limit = cfg.ipv6HopLimit ? 1 : 0;
  }
  if (has('set_tcp_syn_window')) values.wf_cfg_syn_window = cfg.synWindow;
  if (object === CHAIN_OBJECT) values.wf_cfg_chain = chainMask(cfg.programs);
  return values;
}

export interface ConfiguredObject {
  object: ObjectName;
  bytes: Buffer;
  /** First 12 hex digits of sha256(bytes): names pins and uploads, detects config changes. */
  fingerprint: string;
}

export function configuredObject(
  endian: BpfEndian,
  object: ObjectName,
  cfg: RewriteConfig,
  l2: L2Mode,
): ConfiguredObject {
  const bytes = patchRodata(readFileSync(bpfObjectFor(endian, object)), rodataFor(object, cfg, l2));
  return { object, bytes, fingerprint: createHash('sha256').update(bytes).digest('hex').slice(0, 12) };
}
