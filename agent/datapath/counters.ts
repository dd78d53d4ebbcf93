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

interface DumpEntry<Formatted> {
  key?: unknown;
  values?: { cpu: number; value: string[] }[];
  formatted?: { values?: { cpu: number; value: Formatted }[] };
}

/** A native-order u64 at `at` of a per-CPU value's raw bytes. */
function u64At(raw: Buffer, at: number, littleEndian: boolean): bigint {
  if (raw.length < at + 8) throw new Error(`counters value shorter than ${at + 8} bytes`);
  return littleEndian ? raw.readBigUInt64LE(at) : raw.readBigUInt64BE(at);
}

const rawBytes = (hex: string[]) => Buffer.from(hex.map((h) => Number.parseInt(h, 16)));

/** Sums a `bpftool -j map dump` of wf_stats. Uses BTF-formatted values when present, raw bytes otherwise. */
export function parseCountersDump(json: string, littleEndian = true): ProgramCounters {
  const total: ProgramCounters = { seen: 0n, rewritten: 0n };
  for (const e of JSON.parse(json) as DumpEntry<FormattedCounters>[]) {
    if (e.formatted?.values) {
      for (const v of e.formatted.values) {
        total.seen += BigInt(v.value.seen);
        total.rewritten += BigInt(v.value.rewritten);
      }
      continue;
    }
    for (const v of e.values ?? []) {
      const raw = rawBytes(v.value);
      total.seen += u64At(raw, 0, littleEndian);
      total.rewritten += u64At(raw, 8, littleEndian);
    }
  }
  return total;
}

/** struct wf_chain_counters (bpf/wf_chain.bpf.c) as bpftool formats it with BTF. */
type FormattedChainCounters = { seen: number | string; rewritten: (number | string)[] };

/**
 * Sums a dump of wf_chain_stats (bpf/wf_chain.bpf.c): the packets the chain ran on (`seen`,
 * the same for every rewrite in it) and one `rewritten` per rewrite, slot i = PROGRAM_NAMES[i].
 * Only the selected rewrites are returned.
 */
export function parseChainCountersDump(json: string, programs: readonly ProgramName[], littleEndian = true): Partial<Record<ProgramName, ProgramCounters>> {
  let seen = 0n;
  const rewritten = PROGRAM_NAMES.map(() => 0n);
  for (const e of JSON.parse(json) as DumpEntry<FormattedChainCounters>[]) {
    if (e.formatted?.values) {
      for (const v of e.formatted.values) {
        if (v.value.rewritten?.length !== PROGRAM_NAMES.length) throw new Error(`wf_chain_stats: expected ${PROGRAM_NAMES.length} rewritten counters`);
        seen += BigInt(v.value.seen);
        v.value.rewritten.forEach((n, slot) => (rewritten[slot]! += BigInt(n)));
      }
      continue;
    }
    for (const v of e.values ?? []) {
      const raw = rawBytes(v.value);
      seen += u64At(raw, 0, littleEndian);
      PROGRAM_NAMES.forEach((_, slot) => (rewritten[slot]! += u64At(raw, 8 + 8 * slot, littleEndian)));
    }
  }
  return Object.fromEntries(programs.map((p) => [p, { seen, rewritten: rewritten[PROGRAM_NAMES.indexOf(p)]! }]));
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
