import { describe, expect, it } from 'vitest';
import { sortRows } from '../../../web-admin/src/components/table-sort.js';

interface Row {
  name: string;
  seen: number | null;
}

const rows: Row[] = [
  { name: 'router-10', seen: 3 },
  { name: 'router-9', seen: null },
  { name: 'Router-2', seen: 3 },
  { name: 'router-1', seen: 7 },
];
const names = (sorted: readonly Row[]) => sorted.map((r) => r.name);

describe("DataTable's browser-side sort", () => {
  it('orders text as a reader does: numbers by value, case aside', () => {
    expect(names(sortRows(rows, { column: 'name', descending: false }, (r) => r.name))).toEqual([
      'router-1',
      'Router-2',
      'router-9',
      'router-10',
    ]);
    expect(names(sortRows(rows, { column: 'name', descending: true }, (r) => r.name))).toEqual([
      'router-10',
      'router-9',
      'Router-2',
      'router-1',
    ]);
  });

  it('orders numbers by size, keeps ties in their order, and puts an absent value last both ways', () => {
    expect(names(sortRows(rows, { column: 'seen', descending: false }, (r) => r.seen))).toEqual([
      'router-10',
      'Router-2',
      'router-1',
      'router-9',
    ]);
    expect(names(sortRows(rows, { column: 'seen', descending: true }, (r) => r.seen))).toEqual([
      'router-1',
      'router-10',
      'Router-2',
      'router-9',
    ]);
  });

  it('leaves the rows as they are for a column without a value, and never changes its input', () => {
    const before = [...rows];
    expect(sortRows(rows, { column: 'actions', descending: false }, undefined)).toBe(rows);
    sortRows(rows, { column: 'name', descending: true }, (r) => r.name);
    expect(rows).toEqual(before);
  });
});
