import { Prisma } from '../../prisma/generated/client/client.js';

/**
 * `ids` as rows of one text column, sent as a single JSON parameter:
 * `WHERE id IN ${idRows(ids)}`, or `FROM ${idRows(ids)} AS c(id)`. Prisma.join would bind
 * each id as its own parameter, and PostgreSQL allows at most 65,535 of them. Why JSON rather
 * than a `text[]` parameter: it cost the controller less CPU per batch claim; measured in
 * docs/BENCHMARKS.md#rollout-batch.
 */
export function idRows(ids: readonly string[]): Prisma.Sql {
  return Prisma.sql`(SELECT jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb))`;
}
