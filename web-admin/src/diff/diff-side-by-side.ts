/**
 * A line diff as side-by-side rows (a profile's revisions): unchanged lines face each other,
 * and a run of removed lines followed by added ones is paired into "changed" rows, so a
 * replaced line faces its replacement.
 */
import type { DiffRow } from './json-line-diff.js';

export interface DiffSide {
  /** 1-based line number in its text. */
  number: number;
  text: string;
}

export type SideBySideRow =
  | { kind: 'same'; left: DiffSide; right: DiffSide }
  | { kind: 'changed'; left: DiffSide; right: DiffSide }
  | { kind: 'removed'; left: DiffSide; right: null }
  | { kind: 'added'; left: null; right: DiffSide };

export function sideBySide(rows: readonly DiffRow[]): SideBySideRow[] {
  const out: SideBySideRow[] = [];
  let k = 0;
  while (k < rows.length) {
    const row = rows[k]!;
    if (row.kind === 'same') {
      out.push({
        kind: 'same',
        left: { number: row.beforeLine!, text: row.text },
        right: { number: row.afterLine!, text: row.text },
      });
      k += 1;
      continue;
    }
    const removed: DiffSide[] = [];
    const added: DiffSide[] = [];
    for (; k < rows.length && rows[k]!.kind !== 'same'; k++) {
      const r = rows[k]!;
      if (r.kind === 'remove') removed.push({ number: r.beforeLine!, text: r.text });
      else added.push({ number: r.afterLine!, text: r.text });
    }
    for (let p = 0; p < Math.max(removed.length, added.length); p++) {
      const left = removed[p];
      const right = added[p];
      if (left && right) out.push({ kind: 'changed', left, right });
      else if (left) out.push({ kind: 'removed', left, right: null });
      else out.push({ kind: 'added', left: null, right: right! });
    }
  }
  return out;
}
