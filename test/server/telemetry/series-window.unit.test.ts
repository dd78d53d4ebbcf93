import { describe, expect, it } from 'vitest';
import { resolveWindow, WindowError } from '../../../server/telemetry/series-window.js';

const NOW = Date.parse('2026-06-01T12:34:56Z');
const H = 3_600_000;
const RETENTION = { minuteRetentionMs: 24 * H, hourRetentionMs: 30 * 24 * H };
const iso = (ms: number) => new Date(ms).toISOString();
const at = (q: Parameters<typeof resolveWindow>[0]) => resolveWindow(q, NOW, RETENTION);

function refusal(q: Parameters<typeof resolveWindow>[0]): WindowError {
  try {
    at(q);
  } catch (err) {
    if (err instanceof WindowError) return err;
    throw err;
  }
  throw new Error(`accepted ${JSON.stringify(q)}`);
}

describe('the window of a series request', () => {
  it('defaults: the last hour in minute points', () => {
    expect(at({})).toEqual({
      fromMs: Math.floor((NOW - H) / 60_000) * 60_000,
      toMs: NOW,
      stepMs: 60_000,
      resolution: 'minute',
    });
  });

  it('a day without a step: the finest step with at most 360 points; buckets start at multiples of the step', () => {
    const w = at({ from: iso(NOW - 24 * H), to: iso(NOW) });
    expect(w.stepMs).toBe(300_000);
    expect(w.resolution).toBe('minute');
    expect(w.fromMs % w.stepMs).toBe(0);
  });

  it('steps of whole hours, and anything older than the minute retention, read hour points', () => {
    expect(at({ from: iso(NOW - 6 * H), step: 3600 }).resolution).toBe('hour');
    const old = at({ from: iso(NOW - 7 * 24 * H) });
    expect(old.resolution).toBe('hour');
    expect(old.stepMs % H).toBe(0);
  });

  it('refusals name their field', () => {
    expect(refusal({ from: iso(NOW), to: iso(NOW - 1) }).field).toBe('from');
    expect(refusal({ from: iso(NOW - 40 * 24 * H) }).field).toBe('from');
    expect(refusal({ step: 90 }).field).toBe('step');
    expect(refusal({ from: '1969-12-31T23:00:00Z', to: '1970-01-01T00:30:00Z' }).field).toBe('from');
    expect(refusal({ to: '9999-12-31T00:00:00Z' }).field).toBe('to');
    expect(refusal({ from: iso(NOW - 3 * 24 * H), step: 600 }).field).toBe('step');
    const tooMany = refusal({ from: iso(NOW - 24 * H), step: 60 });
    expect(tooMany.field).toBe('step');
    expect(tooMany.message).toMatch(/at most 1440: use a step of at least 120 s/);
  });
});
