/**
 * Many rows in one INSERT with one parameter: the rows as a JSON array, unpacked by
 * `jsonb_to_recordset`. Why: Prisma's createMany binds every value as its own parameter, and
 * building them was most of a rollout's controller CPU; measured in docs/BENCHMARKS.md#bulk-insert.
 *
 * Rows go in in array order (WITH ORDINALITY), so a serial column (AuditEvent.seq) follows it.
 * Table and column names come from code, never from a request.
 */

/** What runs the statement: a PrismaClient or an interactive transaction's client. */
export interface RawRunner {
  $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): Promise<T>;
}

/**
 * A column's SQL type: `text`, `integer`, `jsonb`, `timestamptz`, `boolean`, or a quoted enum
 * type (`"ApplyStatus"`), which travels as text and is cast.
 */
export type ColumnType = 'text' | 'integer' | 'jsonb' | 'timestamptz' | 'boolean' | `"${string}"`;

export interface InsertOptions<R extends string> {
  /** `ON CONFLICT DO NOTHING`: a row that would break a unique constraint is skipped. */
  skipDuplicates?: boolean;
  /** Columns returned for every row inserted (not for the ones skipped). */
  returning?: readonly R[];
}

const quote = (name: string) => `"${name}"`;

function bulkInsertSql(table: string, columns: Record<string, ColumnType>, options: InsertOptions<string>) {
  const names = Object.keys(columns);
  // An enum travels as text and is cast on the way in.
  const isEnum = (name: string) => columns[name]!.startsWith('"');
  const recordTypes = names.map((n) => `${quote(n)} ${isEnum(n) ? 'text' : columns[n]}`);
  const values = names.map((n) => (isEnum(n) ? `v.${quote(n)}::${columns[n]}` : `v.${quote(n)}`));
  return [
    `INSERT INTO ${quote(table)} (${names.map(quote).join(', ')})`,
    `SELECT ${values.join(', ')}`,
    `FROM ROWS FROM (jsonb_to_recordset($1::jsonb) AS (${recordTypes.join(', ')}))`,
    `  WITH ORDINALITY AS v(${[...names.map(quote), 'ord'].join(', ')})`,
    'ORDER BY v.ord',
    options.skipDuplicates ? 'ON CONFLICT DO NOTHING' : '',
    options.returning?.length ? `RETURNING ${options.returning.map(quote).join(', ')}` : '',
  ]
    .filter(Boolean)
    .join('\n');
}

/**
 * Inserts `rows` (objects keyed by column; an absent or undefined value is NULL). Dates go as
 * ISO text, which PostgreSQL reads back to the millisecond.
 */
export async function bulkInsert<R extends string = never>(
  db: RawRunner,
  table: string,
  columns: Record<string, ColumnType>,
  rows: readonly Record<string, unknown>[],
  options: InsertOptions<R> = {},
): Promise<Record<R, unknown>[]> {
  if (rows.length === 0) return [];
  const inserted = await db.$queryRawUnsafe<Record<R, unknown>[]>(
    bulkInsertSql(table, columns, options),
    JSON.stringify(rows),
  );
  return options.returning?.length ? inserted : [];
}
