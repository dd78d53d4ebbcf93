/**
 * The time window a series request asks for: from, to and step as the API takes them,
 * checked and turned into epoch-aligned buckets of minute or hour points. Minute points
 * exist for the minute retention only, so older ranges and steps of whole hours read hour
 * points. Every refusal names the query field it is about.
 */
import { HOUR_MS } from './series-layout.js';

export interface WindowQuery {
  from?: string;
  to?: string;
  /** Seconds per point. */
  step?: number;
}

export interface SeriesWindow {
  /** Start of the first bucket (a multiple of the step since the epoch). */
  fromMs: number;
  toMs: number;
  stepMs: number;
  resolution: 'minute' | 'hour';
}

export class WindowError extends Error {
  constructor(
    readonly field: 'from' | 'to' | 'step',
    message: string,
  ) {
    super(message);
  }
}

/** Points in one response at most: a chart a few thousand pixels wide, and a bounded query. */
export const MAX_POINTS = 1440;
/** Without a step, the finest one that gives at most this many points. */
const DEFAULT_POINTS = 360;
const DEFAULT_RANGE_MS = HOUR_MS;
const LATEST_AHEAD_MS = 24 * HOUR_MS;
const STEPS_S = [60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400];

export interface Retention {
  minuteRetentionMs: number;
  hourRetentionMs: number;
}

const buckets = (fromMs: number, toMs: number, stepMs: number) =>
  Math.ceil((toMs - Math.floor(fromMs / stepMs) * stepMs) / stepMs);

export function resolveWindow(query: WindowQuery, now: number, retention: Retention): SeriesWindow {
  const toMs = query.to !== undefined ? Date.parse(query.to) : now;
  const fromMs = query.from !== undefined ? Date.parse(query.from) : toMs - DEFAULT_RANGE_MS;
  // Minute numbers are int4 columns, and no history is older than 1970 or newer than now.
  if (toMs > now + LATEST_AHEAD_MS) throw new WindowError('to', 'to may be at most a day from now');
  if (fromMs < 0) throw new WindowError('from', 'from must be 1970-01-01 or later');
  if (!(fromMs < toMs)) throw new WindowError('from', 'from must be before to');
  const maxRangeMs = Math.max(retention.hourRetentionMs, 24 * HOUR_MS);
  if (toMs - fromMs > maxRangeMs)
    throw new WindowError(
      'from',
      `from..to may span at most ${Math.round(maxRangeMs / HOUR_MS)} hours (the hour points' retention)`,
    );
  // Minute points are gone for anything that starts before the minute retention.
  const hoursOnly = fromMs < now - retention.minuteRetentionMs;
  let stepS = query.step;
  if (stepS !== undefined) {
    if (stepS % 60 !== 0) throw new WindowError('step', 'step must be a whole number of minutes (a multiple of 60)');
    if (hoursOnly && stepS % 3600 !== 0)
      throw new WindowError(
        'step',
        `this range starts more than ${Math.round(retention.minuteRetentionMs / HOUR_MS)} hours ago, where only hour points are kept: step must be a multiple of 3600`,
      );
  } else {
    const fits = STEPS_S.filter((s) => !hoursOnly || s % 3600 === 0);
    stepS = fits.find((s) => buckets(fromMs, toMs, s * 1000) <= DEFAULT_POINTS) ?? fits[fits.length - 1]!;
  }
  const stepMs = stepS * 1000;
  const points = buckets(fromMs, toMs, stepMs);
  if (points > MAX_POINTS) {
    const unitS = hoursOnly ? 3600 : 60;
    let least = Math.ceil((toMs - fromMs) / MAX_POINTS / 1000 / unitS) * unitS;
    while (buckets(fromMs, toMs, least * 1000) > MAX_POINTS) least += unitS;
    throw new WindowError(
      'step',
      `from..to in steps of ${stepS} s is ${points} points, and a response has at most ${MAX_POINTS}: use a step of at least ${least} s`,
    );
  }
  const resolution = hoursOnly || stepS % 3600 === 0 ? 'hour' : 'minute';
  return { fromMs: Math.floor(fromMs / stepMs) * stepMs, toMs, stepMs, resolution };
}
