/**
 * One program of a multi-program reference object, loadable on its own. libbpf (bpftool
 * `prog loadall`) loads every program of an object or none, so one program the MIPS verifier
 * refuses (UA3F's tc_bpfel.o: strict alignment, "misaligned packet access") would hide the
 * others. Here every other program's instructions become `r0 = 0` and a final `exit`, keeping
 * the relocated 16-byte loads (their offsets are what libbpf patches) and every offset the BTF
 * line and function info name: the object keeps its layout, and only `keep` does real work.
 */
import { readElf } from '../../agent/datapath/elf.js';

const INSN = 8;
const MOV_R0_0 = Buffer.from([0xb7, 0, 0, 0, 0, 0, 0, 0]);
const EXIT = Buffer.from([0x95, 0, 0, 0, 0, 0, 0, 0]);

/** The object with every program but `keep` stubbed out; the function names stay as they are. */
export function singleProgramObject(object: Buffer, keep: string): Buffer {
  const elf = readElf(object);
  if (!elf.littleEndian) throw new Error('singleProgramObject: little-endian objects only');
  const out = Buffer.from(object);
  const target = elf.symbols.find((s) => s.name === keep && s.size > 0);
  if (!target) throw new Error(`no program ${keep} in the object`);
  // The programs beside it: the sized symbols of its section (a program section holds code only).
  const programs = elf.symbols.filter((s) => s.section === target.section && s.size > 0);
  for (const p of programs) {
    if (p.name === keep) continue;
    const section = elf.sections.find((s) => s.name === p.section)!;
    const rel = elf.sections.find((s) => s.name === `.rel${p.section}`);
    const relocated = new Set<number>();
    for (let o = rel?.offset ?? 0; rel && o < rel.offset + rel.size; o += 16)
      relocated.add(Number(out.readBigUInt64LE(o)));
    const start = section.offset + p.value;
    for (let at = 0; at < p.size; at += INSN) {
      if (relocated.has(p.value + at)) {
        at += INSN; // the second half of the ld_imm64 stays too
        continue;
      }
      (at + INSN >= p.size ? EXIT : MOV_R0_0).copy(out, start + at);
    }
  }
  return out;
}
