import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sideBySide } from '../../../web-admin/src/diff/diff-side-by-side.js';
import { diffStats, splitLines, textDiff } from '../../../web-admin/src/diff/json-line-diff.js';

const diffLines = (before: string, after: string) => sideBySide(textDiff(before, after));

describe('the side-by-side line diff', () => {
  it('keeps common lines aligned and pairs a replaced line', () => {
    const rows = diffLines('a\nb\nc\nd\n', 'a\nB\nc\nd\ne\n');
    expect(rows.map((r) => r.kind)).toEqual(['same', 'changed', 'same', 'same', 'added']);
    expect(rows[1]).toEqual({ kind: 'changed', left: { number: 2, text: 'b' }, right: { number: 2, text: 'B' } });
    expect(rows[4]).toEqual({ kind: 'added', left: null, right: { number: 5, text: 'e' } });
    expect(diffStats(textDiff('a\nb\nc\nd\n', 'a\nB\nc\nd\ne\n'))).toEqual({ removed: 1, added: 2 });
  });

  it('shows pure removals, and nothing changed as all same', () => {
    expect(diffLines('x\ny\nz', 'x\nz').map((r) => r.kind)).toEqual(['same', 'removed', 'same']);
    expect(diffLines('x\ny', 'x\ny\n').every((r) => r.kind === 'same')).toBe(true);
    expect(diffLines('', '')).toEqual([]);
    expect(diffLines('', 'a').map((r) => r.kind)).toEqual(['added']);
  });

  it('finds the longest common run, not the first match', () => {
    const rows = diffLines('{\n  "a": 1,\n  "b": 2\n}', '{\n  "b": 2\n}');
    expect(rows.map((r) => r.kind)).toEqual(['same', 'removed', 'same', 'same']);
  });

  it('always rebuilds both texts, in order, with every line numbered', () => {
    const text = fc.array(fc.constantFrom('a', 'b', 'c', '', '  "x": 1'), { maxLength: 30 }).map((l) => l.join('\n'));
    fc.assert(
      fc.property(text, text, (before, after) => {
        const rows = diffLines(before, after);
        const left = rows.flatMap((r) => (r.left ? [r.left] : []));
        const right = rows.flatMap((r) => (r.right ? [r.right] : []));
        expect(left.map((s) => s.text)).toEqual(splitLines(before));
        expect(right.map((s) => s.text)).toEqual(splitLines(after));
        expect(left.map((s) => s.number)).toEqual(splitLines(before).map((_, i) => i + 1));
        expect(right.map((s) => s.number)).toEqual(splitLines(after).map((_, i) => i + 1));
        for (const r of rows) if (r.kind === 'same') expect(r.left.text).toBe(r.right.text);
      }),
    );
  });
});
