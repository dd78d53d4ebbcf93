/**
 * wf-tcx for routers' CPUs: bpf/build.sh cross-builds it, static, for mipsel (ramips/MT7621),
 * mips (ath79/QCA9558, big-endian) and aarch64. No such CPU exists here, so the binaries are
 * checked by their ELF headers and run under qemu-user (simulated CPU, this machine's kernel;
 * qemu-user does not translate bpf(2), so a BPF command reaches the syscall and gets ENOSYS).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BPF_BUILD_DIR, tcxHelperCpuFor, type TcxHelperCpu } from '../../agent/datapath/programs.js';

const EM_MIPS = 8;
const EM_AARCH64 = 183;
const PT_INTERP = 3;

/** What an ELF header says about the machine it is for, read without the tools that built it. */
function elfOf(file: string) {
  const b = readFileSync(file);
  expect(b.subarray(0, 4).toString('latin1')).toBe('\x7fELF');
  const is64 = b[4] === 2;
  const little = b[5] === 1;
  const u16 = (o: number) => (little ? b.readUInt16LE(o) : b.readUInt16BE(o));
  const u32 = (o: number) => (little ? b.readUInt32LE(o) : b.readUInt32BE(o));
  const phoff = is64 ? Number(little ? b.readBigUInt64LE(0x20) : b.readBigUInt64BE(0x20)) : u32(0x1c);
  const phentsize = u16(is64 ? 0x36 : 0x2a);
  const phnum = u16(is64 ? 0x38 : 0x2c);
  const segmentTypes = Array.from({ length: phnum }, (_, i) => u32(phoff + i * phentsize));
  return {
    bits: is64 ? 64 : 32,
    endian: little ? 'little' : 'big',
    machine: u16(0x12),
    dynamic: segmentTypes.includes(PT_INTERP),
  };
}

const CPUS: { cpu: TcxHelperCpu; qemu: string; bits: number; endian: string; machine: number }[] = [
  { cpu: 'mipsel', qemu: 'qemu-mipsel-static', bits: 32, endian: 'little', machine: EM_MIPS },
  { cpu: 'mips', qemu: 'qemu-mips-static', bits: 32, endian: 'big', machine: EM_MIPS },
  { cpu: 'aarch64', qemu: 'qemu-aarch64-static', bits: 64, endian: 'little', machine: EM_AARCH64 },
];

describe.each(CPUS)('wf-tcx cross-built for $cpu routers', ({ cpu, qemu, bits, endian, machine }) => {
  const helper = join(BPF_BUILD_DIR, cpu, 'wf-tcx');

  it('is a static executable for that CPU and byte order (routers run musl, not glibc)', () => {
    expect(elfOf(helper)).toEqual({ bits, endian, machine, dynamic: false });
  });

  it(`runs under ${qemu} (simulated CPU): usage without arguments, and a probe reaches bpf(2)`, () => {
    const usage = spawnSync(qemu, [helper], { encoding: 'utf8' });
    expect(usage.error).toBeUndefined();
    expect(usage.status).toBe(2);
    expect(usage.stderr).toMatch(/^usage: wf-tcx probe\|attach/);
    const probe = spawnSync(qemu, [helper, 'probe'], { encoding: 'utf8' });
    expect(probe.status).toBe(1);
    expect(JSON.parse(probe.stdout.trim())).toMatchObject({
      error: expect.stringMatching(/^BPF_PROG_QUERY\(BPF_TCX_EGRESS\): /),
    });
  });
});

describe('which wf-tcx a router gets (facts.arch is OpenWrt arch, or uname -m on images without one)', () => {
  it.each([
    ['mipsel_24kc', 'little', 'mipsel'],
    ['mips_24kc', 'big', 'mips'],
    ['mips', 'little', 'mipsel'],
    ['mips', 'big', 'mips'],
    ['mips', null, null],
    ['aarch64_cortex-a53', 'little', 'aarch64'],
    ['aarch64', 'little', 'aarch64'],
    ['mips64_octeonplus', 'big', null],
    ['arm_cortex-a7_neon-vfpv4', 'little', null],
    ['x86_64', 'little', null],
    [null, 'little', null],
  ] as const)('%s (%s endian) -> %s', (arch, endianness, expected) => {
    expect(tcxHelperCpuFor(arch, endianness)).toBe(expected);
  });

  it("the build host's own wf-tcx stays built for the build host", () => {
    const EM_X86_64 = 62;
    expect(elfOf(join(BPF_BUILD_DIR, 'wf-tcx')).machine).toBe(process.arch === 'arm64' ? EM_AARCH64 : EM_X86_64);
  });
});
