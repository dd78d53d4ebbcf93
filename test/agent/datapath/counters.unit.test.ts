import { describe, expect, it } from 'vitest';
import { parseChainCountersDump, parseCountersDump } from '../../../agent/datapath/counters.js';

/** bpftool's raw form of a per-CPU value: its bytes as "0x.." strings. */
function rawValue(words: bigint[], littleEndian: boolean): string[] {
  const b = Buffer.alloc(words.length * 8);
  words.forEach((w, i) => (littleEndian ? b.writeBigUInt64LE(w, i * 8) : b.writeBigUInt64BE(w, i * 8)));
  return [...b].map((x) => `0x${x.toString(16).padStart(2, '0')}`);
}

/** A one-slot PERCPU_ARRAY dump without BTF (what a router's bpftool prints for an object without it). */
const rawDump = (perCpu: bigint[][], littleEndian: boolean) =>
  JSON.stringify([
    {
      key: ['0x00', '0x00', '0x00', '0x00'],
      values: perCpu.map((w, cpu) => ({ cpu, value: rawValue(w, littleEndian) })),
    },
  ]);

describe('counters dumps (bpftool -j map dump)', () => {
  for (const littleEndian of [true, false]) {
    it(`wf_stats, raw ${littleEndian ? 'little' : 'big'}-endian bytes: sums seen and rewritten over CPUs`, () => {
      const json = rawDump(
        [
          [10n, 3n],
          [2n ** 40n, 1n],
        ],
        littleEndian,
      );
      expect(parseCountersDump(json, littleEndian)).toEqual({ seen: 2n ** 40n + 10n, rewritten: 4n });
    });

    it(`wf_chain_stats, raw ${littleEndian ? 'little' : 'big'}-endian bytes: one seen for every rewrite, rewritten per slot`, () => {
      // struct wf_chain_counters: seen, then rewritten[] in PROGRAM_NAMES order
      const json = rawDump(
        [
          [100n, 1n, 2n, 3n, 4n],
          [50n, 10n, 20n, 30n, 40n],
        ],
        littleEndian,
      );
      expect(parseChainCountersDump(json, ['set_ip_ttl', 'clear_tcp_syn_ts'], littleEndian)).toEqual({
        set_ip_ttl: { seen: 150n, rewritten: 22n },
        clear_tcp_syn_ts: { seen: 150n, rewritten: 44n },
      });
    });
  }

  it('BTF-formatted values are read by field name', () => {
    const one = JSON.stringify([
      {
        formatted: {
          values: [
            { cpu: 0, value: { seen: 7, rewritten: 5 } },
            { cpu: 1, value: { seen: '8', rewritten: 0 } },
          ],
        },
      },
    ]);
    expect(parseCountersDump(one)).toEqual({ seen: 15n, rewritten: 5n });
    const chain = JSON.stringify([
      { formatted: { values: [{ cpu: 0, value: { seen: 9, rewritten: [1, 2, 3, 4] } }] } },
    ]);
    expect(parseChainCountersDump(chain, ['set_ip_id_zero', 'set_tcp_syn_window'])).toEqual({
      set_ip_id_zero: { seen: 9n, rewritten: 1n },
      set_tcp_syn_window: { seen: 9n, rewritten: 3n },
    });
  });

  it('a value of another layout is an error, not a wrong count', () => {
    expect(() => parseChainCountersDump(rawDump([[1n, 2n]], true), ['set_ip_ttl'])).toThrow(/shorter than/);
    const oldLayout = JSON.stringify([
      { formatted: { values: [{ cpu: 0, value: { prog: [{ seen: 1, rewritten: 0 }] } }] } },
    ]);
    expect(() => parseChainCountersDump(oldLayout, ['set_ip_ttl'])).toThrow(/rewritten counters/);
  });
});
