import type { Endian } from './types.js';

/**
 * CPU architecture and byte order. Byte order decides which BPF object the router gets
 * (bpfeb for ath79's big-endian MIPS, bpfel for ramips, aarch64 and x86), so it is derived
 * from evidence in this order:
 *  1. the OpenWrt package arch (OPENWRT_ARCH / DISTRIB_ARCH): mips_* big, mipsel_* little;
 *  2. the ELF header of a binary on the router (/bin/busybox): EI_DATA says it outright;
 *  3. `uname -m`, except that MIPS kernels print "mips" for both byte orders;
 *  4. the SoC platform (ath79 is big-endian, ramips little-endian), as a last resort.
 */

const PACKAGE_ARCH_ENDIAN: { pattern: RegExp; endian: Endian }[] = [
  { pattern: /^mips64el[_-]/, endian: 'little' },
  { pattern: /^mips64[_-]/, endian: 'big' },
  { pattern: /^mipsel[_-]/, endian: 'little' },
  { pattern: /^mips[_-]/, endian: 'big' },
  { pattern: /^(armeb|aarch64_be)/, endian: 'big' },
  { pattern: /^powerpc64le/, endian: 'little' },
  { pattern: /^(powerpc|ppc)/, endian: 'big' },
  { pattern: /^(aarch64|arm|x86_64|i386|i486|i586|i686|riscv64|loongarch64|arc)([_-]|$)/, endian: 'little' },
];

export function endianFromPackageArch(arch: string): Endian | null {
  return PACKAGE_ARCH_ENDIAN.find(({ pattern }) => pattern.test(arch))?.endian ?? null;
}

/** `uname -m` values that settle byte order; "mips"/"mips64" do not. */
export function endianFromMachine(machine: string): Endian | null {
  if (/^(x86_64|amd64|i[3-6]86|aarch64|arm64|armv\d+l|riscv64|loongarch64|ppc64le)$/.test(machine)) return 'little';
  if (/^(aarch64_be|armv\d+b|armeb|ppc|ppc64|s390x|mips64el?)$/.test(machine)) {
    return machine.startsWith('mips') ? null : 'big';
  }
  return null;
}

/** Byte order of each SoC platform (fixed by the silicon and OpenWrt's target config). */
const FAMILY_ENDIAN: Record<string, Endian> = {
  ath79: 'big',
  lantiq: 'big',
  ramips: 'little',
  mediatek: 'little',
  filogic: 'little',
  ipq40xx: 'little',
  ipq806x: 'little',
  qualcommax: 'little',
  airoha: 'little',
  bcm27xx: 'little',
  x86: 'little',
  realtek: 'big',
};

export function endianFromFamily(family: string): Endian | null {
  return FAMILY_ENDIAN[family] ?? null;
}

export interface ElfIdentity {
  endian: Endian;
  bits: 32 | 64;
  /** Linux `uname -m` style name for the ELF machine, with MIPS byte order folded in. */
  arch: string | null;
}

const ELF_MACHINES: Record<number, (bits: 32 | 64, endian: Endian) => string> = {
  3: () => 'i386',
  8: (bits, endian) => `mips${bits === 64 ? '64' : ''}${endian === 'little' ? 'el' : ''}`,
  20: () => 'ppc',
  21: () => 'ppc64',
  40: () => 'arm',
  62: () => 'x86_64',
  183: () => 'aarch64',
  243: () => 'riscv64',
  258: () => 'loongarch64',
};

/** Reads e_ident and e_machine of an ELF file; null when the bytes are not an ELF header. */
export function parseElfHeader(data: Buffer): ElfIdentity | null {
  if (data.length < 20 || data.readUInt32BE(0) !== 0x7f454c46) return null;
  const bits = data[4] === 1 ? 32 : data[4] === 2 ? 64 : null;
  const endian: Endian | null = data[5] === 1 ? 'little' : data[5] === 2 ? 'big' : null;
  if (bits === null || endian === null) return null;
  const machine = endian === 'little' ? data.readUInt16LE(18) : data.readUInt16BE(18);
  return { endian, bits, arch: ELF_MACHINES[machine]?.(bits, endian) ?? null };
}

/** Folds byte order into a bare `uname -m` "mips" so the arch names the ABI. */
export function archFromMachine(machine: string, endian: Endian | null): string {
  if ((machine === 'mips' || machine === 'mips64') && endian === 'little') return `${machine}el`;
  return machine;
}
