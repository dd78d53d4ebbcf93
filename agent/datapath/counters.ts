import { runChecked, type RouterHost } from '../../core/host/router-host.js';
import { PROGRAM_NAMES, type ProgramName } from '../../core/programs.js';

/**
 * Per-program counters (see bpf/include/wf_counters.h, struct wf_counters): a PERCPU_ARRAY
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

const rawBytes = (hex: string[]) => Buffer.from(hex.map((h) => Number.parseInt(h, 16)));

/**
 * Sums a one-slot PERCPU_ARRAY dump over CPUs, as `words` u64 counters in the value's order:
 * from BTF-formatted values (`fromFormatted` lists a value's counters) when bpftool has them,
 * from raw bytes in the router's byte order otherwise.
 */
function sumDump<Formatted>(
  json: string,
  words: number,
  fromFormatted: (v: Formatted) => (number | string)[],
  littleEndian: boolean,
): bigint[] {
  const total: bigint[] = Array.from({ length: words }, () => 0n);
  for (const e of JSON.parse(json) as DumpEntry<Formatted>[]) {
    if (e.formatted?.values) {
      for (const v of e.formatted.values) fromFormatted(v.value).forEach((n, i) => (total[i]! += BigInt(n)));
      continue;
    }
    for (const v of e.values ?? []) {
      const raw = rawBytes(v.value);
      if (raw.length < words * 8) throw new Error(`counters value shorter than ${words * 8} bytes`);
      for (let i = 0; i < words; i++)
        total[i]! += littleEndian ? raw.readBigUInt64LE(i * 8) : raw.readBigUInt64BE(i * 8);
    }
  }
  return total;
}

/** Sums a `bpftool -j map dump` of wf_stats. Uses BTF-formatted values when present, raw bytes otherwise. */
export function parseCountersDump(json: string, littleEndian = true): ProgramCounters {
  const [seen, rewritten] = sumDump<FormattedCounters>(json, 2, (v) => [v.seen, v.rewritten], littleEndian);
  return { seen: seen!, rewritten: rewritten! };
}

/** struct wf_chain_counters (bpf/wf_chain.bpf.c) as bpftool formats it with BTF. */
type FormattedChainCounters = { seen: number | string; rewritten: (number | string)[] };

/**
 * Sums a dump of wf_chain_stats (bpf/wf_chain.bpf.c): the packets the chain ran on (`seen`,
 * the same for every rewrite in it) and one `rewritten` per rewrite, slot i = PROGRAM_NAMES[i].
 * Only the selected rewrites are returned.
 */
export function parseChainCountersDump(
  json: string,
  programs: readonly ProgramName[],
  littleEndian = true,
): Partial<Record<ProgramName, ProgramCounters>> {
  const [seen, ...rewritten] = sumDump<FormattedChainCounters>(
    json,
    1 + PROGRAM_NAMES.length,
    (v) => {
      if (v.rewritten?.length !== PROGRAM_NAMES.length)
        throw new Error(`wf_chain_stats: expected ${PROGRAM_NAMES.length} rewritten counters`);
      return [v.seen, ...v.rewritten];
    },
    littleEndian,
  );
  return Object.fromEntries(programs.map((p) => [p, { seen: seen!, rewritten: rewritten[PROGRAM_NAMES.indexOf(p)]! }]));
}

function dumpMap(host: RouterHost, mapPin: string): Promise<string> {
  return runChecked(host, ['bpftool', '-j', 'map', 'dump', 'pinned', mapPin]);
}

export async function readChainCounters(
  host: RouterHost,
  mapPin: string,
  programs: readonly ProgramName[],
  littleEndian = true,
) {
  return parseChainCountersDump(await dumpMap(host, mapPin), programs, littleEndian);
}

export async function readCounters(host: RouterHost, mapPin: string, littleEndian = true): Promise<ProgramCounters> {
  return parseCountersDump(await dumpMap(host, mapPin), littleEndian);
}
