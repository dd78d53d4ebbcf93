/**
 * An ApplyResult as the agent keeps it in its outbox (agent/apply/outbox.ts): JSON only, since
 * it is saved in the state file before it is sent, with its times as ISO strings.
 */
import { randomUUID } from 'node:crypto';
import type { ApplyResult_Status } from '../../proto/gen/wrtfleet/agent/v1/agent.js';
import { isoTime } from '../iso-time.js';
import type { RestoreReport } from './transaction.js';

type Json = Record<string, unknown>;

export interface ApplyResultFields {
  profile: string;
  revision: number;
  planHash?: string;
  error?: string;
  evidence?: unknown;
  startedAt: number;
}

/** Struct-safe copy: no undefined, no bigint, no class instances. */
function jsonSafe(value: unknown): Json {
  return JSON.parse(
    JSON.stringify(value ?? {}, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)),
  ) as Json;
}

/** A new ApplyResult (its own result_id) that finished at `finishedAt` (epoch ms). */
export function applyResultValue(status: ApplyResult_Status, fields: ApplyResultFields, finishedAt: number) {
  return {
    resultId: randomUUID(),
    profile: fields.profile,
    revision: fields.revision,
    status,
    error: fields.error ?? '',
    evidence: jsonSafe(fields.evidence),
    planHash: fields.planHash ?? '',
    startedAt: isoTime(new Date(fields.startedAt)),
    finishedAt: isoTime(new Date(finishedAt)),
  };
}

export type ApplyResultValue = ReturnType<typeof applyResultValue>;

/**
 * What a restore that did not bring the router back to its snapshot left undone ('' when it
 * did). Shouted in an ApplyResult's error, where an operator must not miss that the router
 * now runs neither the old state nor the new one.
 */
export function restoreIncomplete(restore: RestoreReport, { shout = false }: { shout?: boolean } = {}): string {
  if (restore.ok) return '';
  return `${shout ? 'RESTORE INCOMPLETE' : 'restore incomplete'}: ${restore.error ?? restore.problems.join('; ')}`;
}
