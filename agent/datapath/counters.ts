import type { RouterHost } from '../host/host.js';

/**
 * Per-program counters (see bpf/include/wf_common.h, struct wf_counters): a PERCPU_ARRAY
 * with one slot, pinned by the loader at <program dir>/maps/wf_stats. User space reads it
 * with `bpftool -j map dump pinned PATH` and sums the per-CPU values.
 */
export interface ProgramCounters {
  seen: bigint;
  rewritten: bigint;
}

interface DumpEntry {
  key?: unknown;
  values?: { cpu: number; value: string[] }[];
  formatted?: { values?: { cpu: number; value: { seen: number | string; rewritten: number | string } }[] };
}

/** Sums a `bpftool -j map dump` of wf_stats. Uses BTF-formatted values when present, raw bytes otherwise. */
export function parseCountersDump(json: string, littleEndian = true): ProgramCounters {
  const entries = JSON.parse(json) as DumpEntry[];
  const total: ProgramCounters = { seen: 0n, rewritten: 0n };
  for (const e of entries) {
    if (e.formatted?.values) {
      for (const v of e.formatted.values) {
        total.seen += BigInt(v.value.seen);
        total.rewritten += BigInt(v.value.rewritten);
      }
      continue;
    }
    for (const v of e.values ?? []) {
      const bytes = Buffer.from(v.value.map((h) => Number.parseInt(h, 16)));
      if (bytes.length < 16) throw new Error('wf_stats value shorter than 16 bytes');
      total.seen += littleEndian ? bytes.readBigUInt64LE(0) : bytes.readBigUInt64BE(0);
      total.rewritten += littleEndian ? bytes.readBigUInt64LE(8) : bytes.readBigUInt64BE(8);
    }
  }
  return total;
}

export async function readCounters(host: RouterHost, mapPin: string, littleEndian = true): Promise<ProgramCounters> {
  const r = await host.run(['bpftool', '-j', 'map', 'dump', 'pinned', mapPin]);
  if (r.code !== 0) throw new Error(`bpftool map dump ${mapPin}: ${r.stderr.trim() || r.stdout.trim()}`);
  return parseCountersDump(r.stdout, littleEndian);
}
