import type { DiffRow } from '../../diff/json-line-diff.js';

/**
 * A drift report's differences as diff rows: per path, what the plan expects (removed side)
 * and what the router has (added side), so it reads like any other diff in the console.
 */
export function driftRows(differences: readonly { path: string; expected: string; actual: string }[]): DiffRow[] {
  const rows: DiffRow[] = [];
  differences.forEach((d, i) => {
    rows.push({ kind: 'remove', text: `${d.path}: ${d.expected}`, beforeLine: i + 1 });
    rows.push({ kind: 'add', text: `${d.path}: ${d.actual}`, afterLine: i + 1 });
  });
  return rows;
}
