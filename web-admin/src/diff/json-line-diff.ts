/**
 * The console's line diffs, all from jsdiff (`diff`): before/after of a JSON document, the way
 * an operator reads a change (both sides pretty-printed with sorted keys, so key order never
 * shows as a change), and two texts such as a profile's revisions, shown one above the other
 * (DiffView) or side by side (diff-side-by-side.ts). The longest common subsequence of lines is
 * kept and the rest marked removed or added. Pure, so it is unit-tested without a browser
 * (test/web-admin/logic/json-line-diff.unit.test.ts).
 */
import { diffArrays } from 'diff';

export type DiffKind = 'same' | 'remove' | 'add';

export interface DiffRow {
  kind: DiffKind;
  text: string;
  /** Line number on the before side (removed or same), 1-based. */
  beforeLine?: number;
  /** Line number on the after side (added or same), 1-based. */
  afterLine?: number;
}

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
  const rows: DiffRow[] = [];
  let beforeLine = 1;
  let afterLine = 1;
  for (const change of diffArrays(before as string[], after as string[])) {
    for (const text of change.value) {
      if (change.removed) rows.push({ kind: 'remove', text, beforeLine: beforeLine++ });
      else if (change.added) rows.push({ kind: 'add', text, afterLine: afterLine++ });
      else rows.push({ kind: 'same', text, beforeLine: beforeLine++, afterLine: afterLine++ });
    }
  }
  return rows;
}

/** The lines of a text; a final line break ends the last line, it does not start an empty one. */
export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split(/\r?\n/);
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** The line diff of two texts (a profile's revisions). */
export const textDiff = (before: string, after: string): DiffRow[] => lineDiff(splitLines(before), splitLines(after));

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
