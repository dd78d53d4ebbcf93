import { describe, expect, it } from 'vitest';
import {
  intervalDelta,
  MAX_INTERVAL_MS,
  parseBaseline,
  type CounterBaseline,
} from '../../../server/telemetry/counter-deltas.js';
import { COUNTER_COLUMNS, INT4_MAX } from '../../../server/telemetry/series-layout.js';

const T0 = Date.parse('2026-06-01T12:00:00Z');
const reading = (program: string, packetsSeen: number, packetsRewritten: number) => ({
  program,
  packetsSeen,
  packetsRewritten,
});
const ttlSeen = COUNTER_COLUMNS.indexOf('setIpTtlSeen');
const ttlRewritten = COUNTER_COLUMNS.indexOf('setIpTtlRewritten');

function interval(outcome: ReturnType<typeof intervalDelta>) {
  if (outcome.kind !== 'interval') throw new Error(`expected an interval, got ${JSON.stringify(outcome)}`);
  return outcome.delta;
}

describe('per-interval deltas from cumulative counters', () => {
  const base: CounterBaseline = { at: T0, counters: { 'wan/set_ip_ttl': [1_000_000, 900_000] } };

  it('a counter that grew: the difference, with the time it covers', () => {
    const d = interval(
      intervalDelta(base, { at: T0 + 60_000, programs: [reading('wan/set_ip_ttl', 1_060_000, 954_000)] }),
    );
    expect(d.coveredMs).toBe(60_000);
    expect(d.counters[ttlSeen]).toBe(60_000);
    expect(d.counters[ttlRewritten]).toBe(54_000);
    expect(d.programs).toBe(1 << 1);
    expect(d.resets).toEqual([]);
  });

  it('a counter that went down is a reset: counted from zero, never negative', () => {
    const d = interval(intervalDelta(base, { at: T0 + 60_000, programs: [reading('wan/set_ip_ttl', 3_000, 2_700)] }));
    expect(d.counters[ttlSeen]).toBe(3_000);
    expect(d.counters[ttlRewritten]).toBe(2_700);
    expect(d.resets).toEqual(['wan/set_ip_ttl']);
    expect(d.counters.every((c) => c >= 0)).toBe(true);
  });

  it('only one of the pair going down is a reset too', () => {
    const d = interval(intervalDelta(base, { at: T0 + 1_000, programs: [reading('wan/set_ip_ttl', 1_000_100, 10)] }));
    expect(d.counters[ttlSeen]).toBe(1_000_100);
    expect(d.counters[ttlRewritten]).toBe(10);
  });

  it('two WAN interfaces of one program add up; nftables keys count too; unknown programs are left out', () => {
    const start: CounterBaseline = {
      at: T0,
      counters: { 'wan/set_ip_ttl': [10, 10], 'pppoe-wan/set_ip_ttl': [20, 20], 'nftables/unknown': [0, 5] },
    };
    const d = interval(
      intervalDelta(start, {
        at: T0 + 10_000,
        programs: [
          reading('wan/set_ip_ttl', 15, 14),
          reading('pppoe-wan/set_ip_ttl', 27, 26),
          reading('nftables/unknown', 0, 9),
        ],
      }),
    );
    expect(d.counters[ttlSeen]).toBe(12);
    expect(d.counters[ttlRewritten]).toBe(10);
    expect(d.counters.reduce((a, b) => a + b, 0)).toBe(22);
  });

  it('a counter new since the last sample starts its series at the next one (no spike of its whole count)', () => {
    const out = intervalDelta(base, {
      at: T0 + 60_000,
      programs: [reading('wan/set_ip_ttl', 1_000_600, 900_540), reading('wan/set_ip_id_zero', 9_999_999, 9_999_999)],
    });
    const d = interval(out);
    expect(d.counters[COUNTER_COLUMNS.indexOf('setIpIdZeroSeen')]).toBe(0);
    expect(d.programs).toBe(1 << 1);
    if (out.kind !== 'interval') throw new Error('unreachable');
    expect(out.baseline.counters['wan/set_ip_id_zero']).toEqual([9_999_999, 9_999_999]);
  });

  it('a sample without counters (a failed read) keeps the baseline, so the counters that return are not new', () => {
    const empty = intervalDelta(base, { at: T0 + 10_000, programs: [] });
    if (empty.kind !== 'interval') throw new Error('expected an interval');
    expect(empty.baseline).toEqual({ at: T0 + 10_000, counters: base.counters });
    const back = interval(
      intervalDelta(empty.baseline, { at: T0 + 20_000, programs: [reading('wan/set_ip_ttl', 1_000_200, 900_180)] }),
    );
    expect(back.counters[ttlSeen]).toBe(200);
  });

  it('no baseline, a long silence or a delta too large for a minute row: a gap, with the new baseline', () => {
    expect(intervalDelta(null, { at: T0, programs: [reading('wan/set_ip_ttl', 5, 5)] })).toMatchObject({
      kind: 'gap',
      reason: 'no_baseline',
      baseline: { at: T0, counters: { 'wan/set_ip_ttl': [5, 5] } },
    });
    expect(
      intervalDelta(base, {
        at: T0 + MAX_INTERVAL_MS + 1,
        programs: [reading('wan/set_ip_ttl', 2_000_000, 1_000_000)],
      }),
    ).toMatchObject({ kind: 'gap', reason: 'interval_too_long' });
    expect(
      intervalDelta(base, {
        at: T0 + 60_000,
        programs: [reading('wan/set_ip_ttl', 1_000_000 + INT4_MAX + 1, 900_000)],
      }),
    ).toMatchObject({ kind: 'gap', reason: 'delta_too_large' });
  });

  it('a sample not newer than the baseline (another replica stored a later one) is stale', () => {
    expect(intervalDelta(base, { at: T0, programs: [reading('wan/set_ip_ttl', 0, 0)] })).toEqual({ kind: 'stale' });
    expect(intervalDelta(base, { at: T0 - 5, programs: [] })).toEqual({ kind: 'stale' });
  });

  it('a stored baseline is read back defensively', () => {
    expect(parseBaseline(null)).toBeNull();
    expect(parseBaseline({ at: 'yesterday', counters: {} })).toBeNull();
    expect(parseBaseline({ at: T0, counters: { a: [1, 2], b: 'x', c: [-5, Number.NaN] } })).toEqual({
      at: T0,
      counters: { a: [1, 2], c: [0, 0] },
    });
  });
});
