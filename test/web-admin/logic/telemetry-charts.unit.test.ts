import { describe, expect, it } from 'vitest';
import {
  flowColumns,
  memoryColumns,
  packetColumns,
  rangeOf,
  rangeQuery,
  RANGES,
  valuesIn,
  type SeriesPoint,
} from '../../../web-admin/src/pages/router/telemetry-charts.js';

const point = (at: string, covered: number, extra: Partial<SeriesPoint> = {}): SeriesPoint => ({
  at,
  coveredSeconds: covered,
  programs: [],
  offloadedFlows: null,
  agentRssBytes: null,
  ...extra,
});

describe("the router page's telemetry charts", () => {
  it('offer 1 h, 24 h, 7 d and 30 d, read from the query string', () => {
    expect(RANGES.map((r) => r.label)).toEqual(['1 h', '24 h', '7 d', '30 d']);
    expect(rangeOf('7d').seconds).toBe(7 * 86_400);
    expect(rangeOf('bogus').id).toBe('1h');
    expect(rangeOf(null).id).toBe('1h');
  });

  it('ask for the range ending now, on whole seconds; a day two minutes short, to stay on minute points', () => {
    const now = Date.parse('2026-03-01T10:00:00.750Z');
    expect(rangeQuery(rangeOf('7d'), now)).toEqual({
      from: '2026-02-22T10:00:00.000Z',
      to: '2026-03-01T10:00:00.000Z',
    });
    expect(rangeQuery(rangeOf('24h'), now)).toEqual({
      from: '2026-02-28T10:02:00.000Z',
      to: '2026-03-01T10:00:00.000Z',
    });
  });

  it('draw seen and rewritten per program, with a gap where a step has no data', () => {
    const points = [
      point('2026-03-01T10:00:00.000Z', 60, {
        programs: [
          { program: 'set_ip_ttl', seenPerSecond: 100, rewrittenPerSecond: 90 },
          { program: 'set_ip_id_zero', seenPerSecond: 100, rewrittenPerSecond: 100 },
        ],
      }),
      point('2026-03-01T10:01:00.000Z', 0),
      point('2026-03-01T10:02:00.000Z', 30, {
        programs: [{ program: 'set_ip_ttl', seenPerSecond: 50, rewrittenPerSecond: 40 }],
      }),
    ];
    const chart = packetColumns(points);
    expect(chart.labels).toEqual([
      'set_ip_ttl seen',
      'set_ip_ttl rewritten',
      'set_ip_id_zero seen',
      'set_ip_id_zero rewritten',
    ]);
    expect(chart.data[0]).toEqual([1772359200, 1772359260, 1772359320]);
    expect(chart.data[1]).toEqual([100, null, 50]);
    expect(chart.data[2]).toEqual([90, null, 40]);
    expect(chart.data[3]).toEqual([100, null, null]);
    expect(valuesIn(chart)).toBe(6);
  });

  it('draw offloaded flows and agent memory, and count an empty series as no data', () => {
    const points = [
      point('2026-03-01T10:00:00.000Z', 60, {
        offloadedFlows: { software: 12, hardware: 3 },
        agentRssBytes: 31 * 1_048_576 + 524_288,
      }),
      point('2026-03-01T10:01:00.000Z', 0, { offloadedFlows: { software: 99, hardware: 99 }, agentRssBytes: 1 }),
    ];
    expect(flowColumns(points).data.slice(1)).toEqual([
      [12, null],
      [3, null],
    ]);
    expect(memoryColumns(points).data[1]).toEqual([31.5, null]);
    expect(valuesIn(packetColumns(points))).toBe(0);
    expect(valuesIn(packetColumns([]))).toBe(0);
  });
});
