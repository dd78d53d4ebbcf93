import { Prisma } from '../../prisma/generated/client/client.js';

/**
 * `ids` as rows of one text column, sent as a single JSON parameter:
 * `WHERE id IN ${idRows(ids)}`, or `FROM ${idRows(ids)} AS c(id)`. Prisma.join would bind
 * each id as its own parameter, and PostgreSQL allows at most 65,535 of them. A `text[]`
 * parameter cost 14.7 ms of controller CPU to claim 2,500 routers, against 11.2 ms with one
 * JSON parameter (docs/BENCHMARKS.md, "a rollout batch in SQL").
 */
export function idRows(ids: readonly string[]): Prisma.Sql {
  return Prisma.sql`(SELECT jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb))`;
}
