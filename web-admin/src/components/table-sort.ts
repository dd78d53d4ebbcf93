/** A table's sort: the column, and whether it runs from the largest value down. */
export interface TableSort {
  column: string;
  descending: boolean;
}

/**
 * Rows in the order of `sort`, by the column's value: numbers by size, text in the reader's
 * collation (so "router-10" follows "router-9"); an absent value sorts last either way.
 */
export function sortRows<Row>(
  rows: readonly Row[],
  sort: TableSort,
  value: ((row: Row) => string | number | null) | undefined,
): readonly Row[] {
  if (!value) return rows;
  const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });
  const direction = sort.descending ? -1 : 1;
  return rows
    .map((row, index) => ({ row, index, key: value(row) }))
    .sort((a, b) => {
      if (a.key === null || b.key === null) return a.key === b.key ? a.index - b.index : a.key === null ? 1 : -1;
      const order =
        typeof a.key === 'number' && typeof b.key === 'number'
          ? a.key - b.key
          : collator.compare(String(a.key), String(b.key));
      return order === 0 ? a.index - b.index : order * direction;
    })
    .map((entry) => entry.row);
}
