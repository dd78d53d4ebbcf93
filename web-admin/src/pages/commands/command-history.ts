/**
 * The command history pages' pure parts: a job's outcomes in words, the page size a link may
 * ask for, the filters of the list. Unit-tested in test/web-admin/logic/command-history.unit.test.ts.
 */

import { API_ENUMS, type ApiEnum } from '../../api/api-enums.generated.js';
import { everyValueOf } from '../../../../core/enum-values.js';

/** The states of a command's routers, in the order an operator reads them (every API value, checked). */
export const TARGET_STATES = everyValueOf<ApiEnum<'CommandTargetState'>>()([
  'succeeded',
  'failed',
  'timed_out',
  'refused',
  'cancelled',
  'offline',
  'sent',
  'queued',
]);
export type TargetState = (typeof TARGET_STATES)[number];

export const KINDS = API_ENUMS.CommandKind;
export const JOB_STATES = API_ENUMS.CommandState;

/** A kind or a state as the API spells it, with spaces for reading ("timed_out" → "timed out"). */
export const spoken = (word: string) => word.replace(/_/g, ' ');

/** The non-zero counts, in reading order: [["succeeded", 11], ["failed", 1]]. */
export function outcomeCounts(counts: Record<string, number>): [TargetState, number][] {
  return TARGET_STATES.filter((s) => (counts[s] ?? 0) > 0).map((s) => [s, counts[s]!]);
}

/** "11 succeeded · 1 failed", or "no router" for a job without targets. */
export function outcomeText(counts: Record<string, number>): string {
  const parts = outcomeCounts(counts).map(([s, n]) => `${n} ${spoken(s)}`);
  return parts.join(' · ') || 'no router';
}

/** A page size from a link (`?limit=`), within what the API takes, else the default. */
export function pageSizeOf(param: string | null, fallback: number, max: number): number {
  if (!param || !/^\d{1,4}$/.test(param)) return fallback;
  const n = Number(param);
  return n >= 1 && n <= max ? n : fallback;
}

/** A filter value from a link, kept only when it is one of the allowed values. */
export function oneOf<T extends string>(allowed: readonly T[], value: string | null): T | undefined {
  return value !== null && (allowed as readonly string[]).includes(value) ? (value as T) : undefined;
}

/** What a selector matched, in words: "1 router" (by id), "all routers", or its fields. */
export function describeTargets(selector: unknown, total: number): string {
  const routers = `${total} router${total === 1 ? '' : 's'}`;
  if (!selector || typeof selector !== 'object') return routers;
  const s = selector as Record<string, unknown>;
  if (s.all === true) return `all routers (${total})`;
  const parts = Object.entries(s)
    .filter(([k, v]) => k !== 'ids' && Array.isArray(v) && v.length > 0)
    .map(([k, v]) => `${k}: ${(v as unknown[]).join(', ')}`);
  return parts.length ? `${routers} (${parts.join('; ')})` : routers;
}
