import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  diffStats,
  jsonDiffRows,
  jsonLines,
  lineDiff,
  withContext,
} from '../../../web-admin/src/diff/json-line-diff.js';

describe("the console's JSON line diff", () => {
  it('shows a changed value as one removed and one added line, keys sorted on both sides', () => {
    const rows = jsonDiffRows({ tags: ['a'], name: 'r1' }, { name: 'r1', tags: ['a', 'b'] });
    expect(rows.filter((r) => r.kind !== 'same')).toEqual([
      { kind: 'remove', text: '    "a"', beforeLine: 4 },
      { kind: 'add', text: '    "a",', afterLine: 4 },
      { kind: 'add', text: '    "b"', afterLine: 5 },
    ]);
    expect(rows[0]).toEqual({ kind: 'same', text: '{', beforeLine: 1, afterLine: 1 });
    expect(diffStats(rows)).toEqual({ added: 2, removed: 1 });
  });

  it('key order alone is no change', () => {
    const rows = jsonDiffRows({ a: 1, b: { c: 2, d: 3 } }, { b: { d: 3, c: 2 }, a: 1 });
    expect(rows.every((r) => r.kind === 'same')).toBe(true);
  });

  it('an event without before (a creation) is all added; without after (a deletion) all removed', () => {
    expect(jsonDiffRows(null, { a: 1 }).map((r) => r.kind)).toEqual(['add', 'add', 'add']);
    expect(jsonDiffRows({ a: 1 }, undefined).map((r) => r.kind)).toEqual(['remove', 'remove', 'remove']);
    expect(jsonLines(null)).toEqual([]);
  });

  it('folds long unchanged runs, keeping context around changes', () => {
    const before = Array.from({ length: 30 }, (_, i) => `line ${i}`);
    const after = [...before];
    after[15] = 'changed';
    const folded = withContext(lineDiff(before, after), 2);
    expect(folded[0]).toBeNull();
    expect(folded.filter((r) => r !== null).map((r) => r!.text)).toEqual([
      'line 13',
      'line 14',
      'line 15',
      'changed',
      'line 16',
      'line 17',
    ]);
    expect(folded.at(-1)).toBeNull();
  });

  it('always rebuilds both sides from its rows, and keeps the longest common run', () => {
    const lines = fc.array(fc.constantFrom('a', 'b', 'c', 'd'), { maxLength: 30 });
    fc.assert(
      fc.property(lines, lines, (before, after) => {
        const rows = lineDiff(before, after);
        expect(rows.filter((r) => r.kind !== 'add').map((r) => r.text)).toEqual(before);
        expect(rows.filter((r) => r.kind !== 'remove').map((r) => r.text)).toEqual(after);
        // Equal inputs: nothing marked.
        if (before.join('\n') === after.join('\n')) expect(rows.every((r) => r.kind === 'same')).toBe(true);
        // Line numbers count each side from 1 without gaps.
        expect(rows.filter((r) => r.beforeLine).map((r) => r.beforeLine)).toEqual(before.map((_, i) => i + 1));
      }),
    );
  });
});
