/**
 * Just enough ELF64 to set load-time configuration in a BPF object.
 *
 * The programs keep their configuration in `volatile const` globals (.rodata). libbpf,
 * whether driven by bpftool or by tc, creates the .rodata map from the section bytes in the
 * file and freezes it, and the verifier treats the values as constants. OpenWrt's bpftool
 * and tc cannot set globals from the command line, so the agent writes the values into the
 * object before uploading it: one patched object per (interface, program, config).
 */
export interface ElfSymbol {
  name: string;
  section: string;
  /** Offset of the symbol inside its section. */
  value: number;
  size: number;
}

export interface ElfInfo {
  littleEndian: boolean;
  sections: { name: string; offset: number; size: number; type: number }[];
  symbols: ElfSymbol[];
}

const SHT_SYMTAB = 2;
const ELFCLASS64 = 2;
const ELFDATA2LSB = 1;
const ELFDATA2MSB = 2;

function cstr(buf: Buffer, off: number): string {
  const end = buf.indexOf(0, off);
  return buf.toString('latin1', off, end < 0 ? buf.length : end);
}

export function readElf(buf: Buffer): ElfInfo {
  if (buf.length < 64 || buf.readUInt32BE(0) !== 0x7f454c46) throw new Error('not an ELF file');
  if (buf[4] !== ELFCLASS64) throw new Error('not ELF64 (BPF objects are ELF64)');
  const data = buf[5];
  if (data !== ELFDATA2LSB && data !== ELFDATA2MSB) throw new Error(`bad EI_DATA ${data}`);
  const le = data === ELFDATA2LSB;
  const u16 = (o: number) => (le ? buf.readUInt16LE(o) : buf.readUInt16BE(o));
  const u32 = (o: number) => (le ? buf.readUInt32LE(o) : buf.readUInt32BE(o));
  const u64 = (o: number) => Number(le ? buf.readBigUInt64LE(o) : buf.readBigUInt64BE(o));

  const shoff = u64(0x28);
  const shentsize = u16(0x3a);
  const shnum = u16(0x3c);
  const shstrndx = u16(0x3e);
  const raw = Array.from({ length: shnum }, (_, i) => {
    const o = shoff + i * shentsize;
    return {
      nameOff: u32(o),
      type: u32(o + 4),
      offset: u64(o + 0x18),
      size: u64(o + 0x20),
      link: u32(o + 0x28),
      entsize: u64(o + 0x38),
    };
  });
  const shstr = raw[shstrndx];
  if (!shstr) throw new Error('no section name table');
  const sections = raw.map((s) => ({
    name: cstr(buf, shstr.offset + s.nameOff),
    offset: s.offset,
    size: s.size,
    type: s.type,
  }));

  const symbols: ElfSymbol[] = [];
  raw.forEach((s) => {
    if (s.type !== SHT_SYMTAB) return;
    const strtab = raw[s.link];
    if (!strtab) return;
    const entsize = s.entsize || 24;
    for (let o = s.offset; o + entsize <= s.offset + s.size; o += entsize) {
      const shndx = u16(o + 6);
      const sec = sections[shndx];
      if (!sec) continue;
      symbols.push({
        name: cstr(buf, strtab.offset + u32(o)),
        section: sec.name,
        value: u64(o + 8),
        size: u64(o + 16),
      });
    }
  });
  return { littleEndian: le, sections, symbols };
}

/**
 * Returns a copy of `obj` with the named .rodata globals set. Every name must exist with
 * the size the value is written at (1, 2 or 4 bytes); unknown names are an error, so a
 * renamed C global cannot silently fall back to its default.
 */
export function patchRodata(obj: Buffer, values: Record<string, number>): Buffer {
  const elf = readElf(obj);
  const out = Buffer.from(obj);
  for (const [name, value] of Object.entries(values)) {
    const sym = elf.symbols.find((s) => s.name === name && s.section.startsWith('.rodata'));
    if (!sym) throw new Error(`BPF object has no .rodata global ${name}`);
    const sec = elf.sections.find((s) => s.name === sym.section)!;
    const off = sec.offset + sym.value;
    if (!Number.isInteger(value) || value < 0 || value >= 2 ** (8 * sym.size))
      throw new Error(`${name}=${value} does not fit ${sym.size} bytes`);
    switch (sym.size) {
      case 1:
        out.writeUInt8(value, off);
        break;
      case 2:
        if (elf.littleEndian) out.writeUInt16LE(value, off);
        else out.writeUInt16BE(value, off);
        break;
      case 4:
        if (elf.littleEndian) out.writeUInt32LE(value, off);
        else out.writeUInt32BE(value, off);
        break;
      default:
        throw new Error(`${name}: unsupported size ${sym.size}`);
    }
  }
  return out;
}

/** Reads a .rodata global back (tests and evidence). */
export function readRodata(obj: Buffer, name: string): number {
  const elf = readElf(obj);
  const sym = elf.symbols.find((s) => s.name === name && s.section.startsWith('.rodata'));
  if (!sym) throw new Error(`BPF object has no .rodata global ${name}`);
  const off = elf.sections.find((s) => s.name === sym.section)!.offset + sym.value;
  if (sym.size === 1) return obj.readUInt8(off);
  if (sym.size === 2) return elf.littleEndian ? obj.readUInt16LE(off) : obj.readUInt16BE(off);
  return elf.littleEndian ? obj.readUInt32LE(off) : obj.readUInt32BE(off);
}
