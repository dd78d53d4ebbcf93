/**
 * A line diff of two texts as side-by-side rows: the longest common subsequence of lines
 * stays aligned, removed and added lines face each other where they replace one another.
 * Specs are a few hundred lines, so the quadratic table is small; past MAX_CELLS it falls
 * back to pairing lines by position, which is still a correct (if longer) diff.
 */

export interface DiffSide {
  /** 1-based line number in its text. */
  number: number;
  text: string;
}

export type DiffRow =
  | { kind: 'same'; left: DiffSide; right: DiffSide }
  | { kind: 'changed'; left: DiffSide; right: DiffSide }
  | { kind: 'removed'; left: DiffSide; right: null }
  | { kind: 'added'; left: null; right: DiffSide };

const MAX_CELLS = 4_000_000;

export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split(/\r?\n/);
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

type Op = { kind: 'same' | 'removed' | 'added'; a: number; b: number };

function lcsOps(a: string[], b: string[]): Op[] {
  const n = a.length;
  const m = b.length;
  if ((n + 1) * (m + 1) > MAX_CELLS) {
    const ops: Op[] = [];
    for (let k = 0; k < Math.max(n, m); k++) {
      if (k < n && k < m && a[k] === b[k]) ops.push({ kind: 'same', a: k, b: k });
      else {
        if (k < n) ops.push({ kind: 'removed', a: k, b: -1 });
        if (k < m) ops.push({ kind: 'added', a: -1, b: k });
      }
    }
    return ops;
  }
  // suffix[i][j]: the LCS length of a[i..] and b[j..], row-major in one array.
  const width = m + 1;
  const suffix = new Int32Array((n + 1) * width);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      suffix[i * width + j] =
        a[i] === b[j]
          ? suffix[(i + 1) * width + j + 1]! + 1
          : Math.max(suffix[(i + 1) * width + j]!, suffix[i * width + j + 1]!);
    }
  }
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) ops.push({ kind: 'same', a: i++, b: j++ });
    else if (j < m && (i === n || suffix[i * width + j + 1]! >= suffix[(i + 1) * width + j]!))
      ops.push({ kind: 'added', a: -1, b: j++ });
    else ops.push({ kind: 'removed', a: i++, b: -1 });
  }
  return ops;
}

/** Side-by-side rows; a run of removals followed by additions is paired into "changed" rows. */
export function diffLines(before: string, after: string): DiffRow[] {
  const a = splitLines(before);
  const b = splitLines(after);
  const ops = lcsOps(a, b);
  const rows: DiffRow[] = [];
  let k = 0;
  while (k < ops.length) {
    const op = ops[k]!;
    if (op.kind === 'same') {
      rows.push({
        kind: 'same',
        left: { number: op.a + 1, text: a[op.a]! },
        right: { number: op.b + 1, text: b[op.b]! },
      });
      k += 1;
      continue;
    }
    const removed: number[] = [];
    const added: number[] = [];
    while (k < ops.length && ops[k]!.kind !== 'same') {
      const o = ops[k]!;
      if (o.kind === 'removed') removed.push(o.a);
      else added.push(o.b);
      k += 1;
    }
    for (let p = 0; p < Math.max(removed.length, added.length); p++) {
      const l = removed[p];
      const r = added[p];
      if (l !== undefined && r !== undefined)
        rows.push({ kind: 'changed', left: { number: l + 1, text: a[l]! }, right: { number: r + 1, text: b[r]! } });
      else if (l !== undefined) rows.push({ kind: 'removed', left: { number: l + 1, text: a[l]! }, right: null });
      else rows.push({ kind: 'added', left: null, right: { number: r! + 1, text: b[r!]! } });
    }
  }
  return rows;
}

/** How many lines each side lost and gained, for the diff's heading. */
export function diffSummary(rows: readonly DiffRow[]): { removed: number; added: number } {
  let removed = 0;
  let added = 0;
  for (const r of rows) {
    if (r.kind === 'removed' || r.kind === 'changed') removed += 1;
    if (r.kind === 'added' || r.kind === 'changed') added += 1;
  }
  return { removed, added };
}
