import type { RouterHost } from '../host/host.js';
import { PROGRAM_NAMES, type ProgramName } from './programs.js';

/**
 * Per-program counters (see bpf/include/wf_common.h, struct wf_counters): a PERCPU_ARRAY
 * with one slot, pinned by the loader at <program dir>/maps/wf_stats. User space reads it
 * with `bpftool -j map dump pinned PATH` and sums the per-CPU values.
 */
export interface ProgramCounters {
  seen: bigint;
  rewritten: bigint;
}

type FormattedCounters = { seen: number | string; rewritten: number | string };

interface DumpEntry {
  key?: unknown;
  values?: { cpu: number; value: string[] }[];
  formatted?: { values?: { cpu: number; value: FormattedCounters & { prog?: FormattedCounters[] } }[] };
}

/** One struct wf_counters (two u64) at `slot` of a per-CPU value, from raw bytes or BTF. */
function addSlot(total: ProgramCounters, raw: Buffer | null, formatted: FormattedCounters | undefined, slot: number, littleEndian: boolean): void {
  if (formatted) {
    total.seen += BigInt(formatted.seen);
    total.rewritten += BigInt(formatted.rewritten);
    return;
  }
  const at = slot * 16;
  if (!raw || raw.length < at + 16) throw new Error(`counters value shorter than ${at + 16} bytes`);
  total.seen += littleEndian ? raw.readBigUInt64LE(at) : raw.readBigUInt64BE(at);
  total.rewritten += littleEndian ? raw.readBigUInt64LE(at + 8) : raw.readBigUInt64BE(at + 8);
}

const rawBytes = (hex: string[]) => Buffer.from(hex.map((h) => Number.parseInt(h, 16)));

/** Sums a `bpftool -j map dump` of wf_stats. Uses BTF-formatted values when present, raw bytes otherwise. */
export function parseCountersDump(json: string, littleEndian = true): ProgramCounters {
  const total: ProgramCounters = { seen: 0n, rewritten: 0n };
  for (const e of JSON.parse(json) as DumpEntry[]) {
    if (e.formatted?.values) for (const v of e.formatted.values) addSlot(total, null, v.value, 0, littleEndian);
    else for (const v of e.values ?? []) addSlot(total, rawBytes(v.value), undefined, 0, littleEndian);
  }
  return total;
}

/**
 * Sums a dump of wf_chain_stats (bpf/wf_chain.bpf.c): one struct wf_counters per rewrite,
 * slot i = PROGRAM_NAMES[i]. Only the selected rewrites are returned.
 */
export function parseChainCountersDump(json: string, programs: readonly ProgramName[], littleEndian = true): Partial<Record<ProgramName, ProgramCounters>> {
  const out: Partial<Record<ProgramName, ProgramCounters>> = {};
  for (const program of programs) {
    const slot = PROGRAM_NAMES.indexOf(program);
    const total: ProgramCounters = { seen: 0n, rewritten: 0n };
    for (const e of JSON.parse(json) as DumpEntry[]) {
      if (e.formatted?.values) for (const v of e.formatted.values) addSlot(total, null, v.value.prog?.[slot], slot, littleEndian);
      else for (const v of e.values ?? []) addSlot(total, rawBytes(v.value), undefined, slot, littleEndian);
    }
    out[program] = total;
  }
  return out;
}

async function dumpMap(host: RouterHost, mapPin: string): Promise<string> {
  const r = await host.run(['bpftool', '-j', 'map', 'dump', 'pinned', mapPin]);
  if (r.code !== 0) throw new Error(`bpftool map dump ${mapPin}: ${r.stderr.trim() || r.stdout.trim()}`);
  return r.stdout;
}

export async function readChainCounters(host: RouterHost, mapPin: string, programs: readonly ProgramName[], littleEndian = true) {
  return parseChainCountersDump(await dumpMap(host, mapPin), programs, littleEndian);
}

export async function readCounters(host: RouterHost, mapPin: string, littleEndian = true): Promise<ProgramCounters> {
  return parseCountersDump(await dumpMap(host, mapPin), littleEndian);
}
