import { InvalidCursor } from '../storage/keyset-cursor.js';
import { CONNECTION_STATUSES } from './router-filter.js';
import type { SqlParams } from './sql-params.js';

/**
 * The fleet table's sort orders and their keyset cursors. A cursor carries the sort it was
 * made for, the last row's sort value and its id; it arrives from the caller, so it is decoded
 * as untrusted data and checked against the sort it is used with.
 */
export const SORT_KEYS = ['created', 'name', 'status', 'soc', 'model', 'release', 'lastSeen'] as const;
export type SortKey = (typeof SORT_KEYS)[number];
/** `name` ascending, `-name` descending. */
export const SORTS = SORT_KEYS.flatMap((k) => [k, `-${k}`]) as `${'' | '-'}${SortKey}`[];
export type Sort = (typeof SORTS)[number];

interface SortColumn {
  /** The column over `"Router" r`. */
  column: string;
  /** The column's value as text, as the cursor carries it. */
  text: string;
  /** Casts a cursor value back to the column's type. */
  cast: (placeholder: string) => string;
  nullable: boolean;
  /** What a cursor value must look like (beyond being text). */
  valid: (value: string) => boolean;
}

const INSTANT = /^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z$/;
const ID = /^[A-Za-z0-9-]{1,64}$/;
const isInstant = (v: string) => INSTANT.test(v) && !Number.isNaN(Date.parse(v)) && new Date(v).toISOString() === v;
const anyText = (v: string) => v.length <= 512 && !v.includes('\u0000');
const isoText = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

const COLUMNS: Record<SortKey, SortColumn> = {
  created: {
    column: 'r."createdAt"',
    text: isoText('r."createdAt"'),
    cast: (p) => `CAST(${p} AS timestamptz)`,
    nullable: false,
    valid: isInstant,
  },
  // Natural order (r2 before r10), the same on every backend: see the column's migration.
  name: { column: 'r."nameKey"', text: 'r."nameKey"', cast: (p) => p, nullable: false, valid: anyText },
  status: {
    column: 'r.status',
    text: 'r.status::text',
    cast: (p) => `CAST(${p} AS "ConnectionStatus")`,
    nullable: false,
    valid: (v) => (CONNECTION_STATUSES as readonly string[]).includes(v),
  },
  soc: { column: 'r.soc', text: 'r.soc', cast: (p) => p, nullable: true, valid: anyText },
  model: { column: 'r.model', text: 'r.model', cast: (p) => p, nullable: true, valid: anyText },
  release: { column: 'r."openwrtRelease"', text: 'r."openwrtRelease"', cast: (p) => p, nullable: true, valid: anyText },
  lastSeen: {
    column: 'r."lastSeenAt"',
    text: isoText('r."lastSeenAt"'),
    cast: (p) => `CAST(${p} AS timestamptz)`,
    nullable: true,
    valid: isInstant,
  },
};

export interface ParsedSort {
  key: SortKey;
  descending: boolean;
  sort: Sort;
}

/** The order a listing without `sort` has: by name, as a person would list them. */
export const DEFAULT_SORT: Sort = 'name';

export function parseSort(sort: Sort | undefined): ParsedSort {
  const s = sort ?? DEFAULT_SORT;
  const descending = s.startsWith('-');
  return { key: (descending ? s.slice(1) : s) as SortKey, descending, sort: s };
}

export interface SortCursor {
  value: string | null;
  id: string;
}

export function encodeSortCursor(sort: Sort, value: string | null, id: string): string {
  return Buffer.from(JSON.stringify([sort, value, id])).toString('base64url');
}

/** Exactly what encodeSortCursor wrote for this sort, or InvalidCursor. */
export function decodeSortCursor(cursor: string, sort: ParsedSort): SortCursor {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    decoded = undefined;
  }
  if (!Array.isArray(decoded) || decoded.length !== 3) throw new InvalidCursor('is not one this API returned');
  const [madeFor, value, id] = decoded as unknown[];
  if (typeof madeFor !== 'string' || typeof id !== 'string' || !ID.test(id))
    throw new InvalidCursor('is not one this API returned');
  if (madeFor !== sort.sort) throw new InvalidCursor(`was made for sort ${madeFor}, not ${sort.sort}`);
  const column = COLUMNS[sort.key];
  if (value === null ? !column.nullable : typeof value !== 'string' || !column.valid(value))
    throw new InvalidCursor('is not one this API returned');
  return { value: value as string | null, id };
}

/** ORDER BY of the sort: ascending puts NULLs last, descending first (PostgreSQL's defaults). */
export function orderBy(sort: ParsedSort): string {
  const dir = sort.descending ? 'DESC' : 'ASC';
  return `${COLUMNS[sort.key].column} ${dir}, r.id ${dir}`;
}

/** The sort value of a row as text, for the next cursor. */
export function sortValueText(sort: ParsedSort): string {
  return COLUMNS[sort.key].text;
}

/** The rows after the cursor in the sort's order, NULLs placed as orderBy places them. */
export function afterCursor(sort: ParsedSort, cursor: SortCursor, sql: SqlParams): string {
  const { column, cast } = COLUMNS[sort.key];
  const id = sql.param(cursor.id);
  if (cursor.value === null) {
    // NULLs come last ascending (only NULLs follow) and first descending (all non-NULLs follow).
    return sort.descending
      ? `((${column} IS NULL AND r.id < ${id}) OR ${column} IS NOT NULL)`
      : `(${column} IS NULL AND r.id > ${id})`;
  }
  const v = cast(sql.param(cursor.value));
  return sort.descending
    ? `(${column} < ${v} OR (${column} = ${v} AND r.id < ${id}))`
    : `(${column} > ${v} OR (${column} = ${v} AND r.id > ${id})${COLUMNS[sort.key].nullable ? ` OR ${column} IS NULL` : ''})`;
}
