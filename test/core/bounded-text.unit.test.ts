import { describe, expect, it } from 'vitest';
import { boundChars, boundText, utf8Bytes } from '../../core/bounded-text.js';

const lines = (n: number, width = 40) =>
  Array.from({ length: n }, (_, i) => `line ${String(i).padStart(5, '0')} ${'x'.repeat(width)}`).join('\n') + '\n';

describe('bounded text', () => {
  it('leaves text within the bound alone', () => {
    expect(boundText('short\n', 100)).toEqual({ text: 'short\n', truncated: false });
    const exact = 'y'.repeat(64);
    expect(boundText(exact, 64)).toEqual({ text: exact, truncated: false });
  });

  it('keeps the first whole lines and says how much was cut (head)', () => {
    const text = lines(10_000);
    const cut = boundText(text, 4096, 'head');
    expect(cut.truncated).toBe(true);
    expect(utf8Bytes(cut.text)).toBeLessThanOrEqual(4096);
    expect(cut.text.startsWith('line 00000 ')).toBe(true);
    const body = cut.text.split('\n[cut: ')[0]!;
    // Whole lines only, each as it was.
    for (const line of body.split('\n')) expect(line).toMatch(/^line \d{5} x{40}$/);
    const dropped = Number(/\[cut: (\d+) more bytes not shown\]/.exec(cut.text)![1]);
    expect(dropped).toBe(utf8Bytes(text) - utf8Bytes(body) - 1);
  });

  it("keeps a log's newest lines (tail)", () => {
    const text = lines(10_000);
    const cut = boundText(text, 4096, 'tail');
    expect(utf8Bytes(cut.text)).toBeLessThanOrEqual(4096);
    expect(cut.text).toMatch(/^\[cut: \d+ earlier bytes not shown\]\nline \d{5} x{40}\n/);
    expect(cut.text.endsWith('line 09999 ' + 'x'.repeat(40) + '\n')).toBe(true);
  });

  it('cuts one huge line inside it, never inside a UTF-8 sequence', () => {
    const text = 'é'.repeat(100_000); // two bytes each
    for (const keep of ['head', 'tail'] as const) {
      const cut = boundText(text, 1001, keep);
      expect(utf8Bytes(cut.text)).toBeLessThanOrEqual(1001);
      expect(cut.text).not.toContain('\ufffd');
      expect(cut.text.replace(/\n?\[cut: \d+ [a-z ]+\]\n/, '')).toMatch(/^é+$/);
    }
  });

  it('does not give up most of the budget to snap to an early line break', () => {
    const text = `first\n${'z'.repeat(50_000)}`;
    const cut = boundText(text, 2000, 'head');
    expect(utf8Bytes(cut.text)).toBeGreaterThan(1900);
  });

  it('short fields are cut to a character count', () => {
    expect(boundChars('abc', 5)).toBe('abc');
    expect(boundChars('abcdefgh', 5)).toBe('abcd…');
  });
});
