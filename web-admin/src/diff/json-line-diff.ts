/**
 * Before/after of a JSON document as a line diff, the way an operator reads a change: both
 * sides pretty-printed with sorted keys (so key order never shows as a change), then the
 * longest common subsequence of lines kept and the rest marked removed or added. Pure, so it
 * is unit-tested without a browser (test/web-admin/logic/json-line-diff.test.ts).
 */

export type DiffKind = 'same' | 'remove' | 'add';

export interface DiffRow {
  kind: DiffKind;
  text: string;
  /** Line number on the before side (removed or same), 1-based. */
  beforeLine?: number;
  /** Line number on the after side (added or same), 1-based. */
  afterLine?: number;
}

/** Past this many lines on either side the LCS table (n x m) would be large: the sides are shown whole instead. */
const MAX_LINES = 1500;

/** A JSON value with its object keys sorted at every level: one spelling per document. */
export function sortedJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedJson);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) out[key] = sortedJson((value as Record<string, unknown>)[key]);
    return out;
  }
  return value;
}

/** The lines of a JSON value as the diff shows them; absent (undefined or null) is no lines at all. */
export function jsonLines(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  return JSON.stringify(sortedJson(value), null, 2).split('\n');
}

/** The line diff of two texts (as lines): unchanged lines once, removed before added where they differ. */
export function lineDiff(before: readonly string[], after: readonly string[]): DiffRow[] {
  const n = before.length;
  const m = after.length;
  if (n > MAX_LINES || m > MAX_LINES) {
    return [
      ...before.map((text, i) => ({ kind: 'remove' as const, text, beforeLine: i + 1 })),
      ...after.map((text, j) => ({ kind: 'add' as const, text, afterLine: j + 1 })),
    ];
  }
  // lcs[i][j]: length of the longest common subsequence of before[i..] and after[j..].
  const width = m + 1;
  const lcs = new Uint32Array((n + 1) * width);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * width + j] =
        before[i] === after[j]
          ? lcs[(i + 1) * width + j + 1]! + 1
          : Math.max(lcs[(i + 1) * width + j]!, lcs[i * width + j + 1]!);
    }
  }
  const rows: DiffRow[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && before[i] === after[j]) {
      rows.push({ kind: 'same', text: before[i]!, beforeLine: i + 1, afterLine: j + 1 });
      i++;
      j++;
    } else if (j >= m || (i < n && lcs[(i + 1) * width + j]! >= lcs[i * width + j + 1]!)) {
      rows.push({ kind: 'remove', text: before[i]!, beforeLine: i + 1 });
      i++;
    } else {
      rows.push({ kind: 'add', text: after[j]!, afterLine: j + 1 });
      j++;
    }
  }
  return rows;
}

/** The diff of two JSON documents (an audit event's before and after). */
export function jsonDiffRows(before: unknown, after: unknown): DiffRow[] {
  return lineDiff(jsonLines(before), jsonLines(after));
}

/** How many lines a diff adds and removes, for a summary ("+3 −1"). */
export function diffStats(rows: readonly DiffRow[]): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const row of rows) {
    if (row.kind === 'add') added++;
    else if (row.kind === 'remove') removed++;
  }
  return { added, removed };
}

/**
 * Only the changed lines and `context` unchanged lines around each change; the rest folded to
 * one `null` per run (shown as "…"), so a one-line change in a long document stays short.
 */
export function withContext(rows: readonly DiffRow[], context = 3): (DiffRow | null)[] {
  const keep = rows.map(() => false);
  rows.forEach((row, i) => {
    if (row.kind === 'same') return;
    for (let k = Math.max(0, i - context); k <= Math.min(rows.length - 1, i + context); k++) keep[k] = true;
  });
  const out: (DiffRow | null)[] = [];
  rows.forEach((row, i) => {
    if (keep[i]) out.push(row);
    else if (out.at(-1) !== null) out.push(null);
  });
  return out;
}
