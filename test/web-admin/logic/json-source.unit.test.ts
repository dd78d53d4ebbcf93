import { describe, expect, it } from 'vitest';
import { JsonSyntaxError, lineOfPointer, parseJsonSource } from '../../../web-admin/src/pages/profiles/json-source.js';

const spec = `{
  "l3Rewrite": {
    "ttl": { "enabled": true,
      "value": 300 },
    "a/b~c": 1
  },
  "list": [
    1,
    { "x": "y" }
  ]
}`;

describe('JSON text with the line of every pointer', () => {
  it('reads the same value JSON.parse does', () => {
    expect(parseJsonSource(spec).value).toEqual(JSON.parse(spec));
    for (const text of ['1', '"a\\u0041\\n"', '[]', '{}', '-0.5e3', 'null', '[true,false]']) {
      expect(parseJsonSource(text).value, text).toEqual(JSON.parse(text));
    }
  });

  it('maps pointers to the line their key starts on, array items to their value line', () => {
    const { lines } = parseJsonSource(spec);
    expect(lines.get('')).toBe(1);
    expect(lines.get('/l3Rewrite')).toBe(2);
    expect(lines.get('/l3Rewrite/ttl')).toBe(3);
    expect(lines.get('/l3Rewrite/ttl/enabled')).toBe(3);
    expect(lines.get('/l3Rewrite/ttl/value')).toBe(4);
    expect(lines.get('/l3Rewrite/a~1b~0c')).toBe(5);
    expect(lines.get('/list/0')).toBe(8);
    expect(lines.get('/list/1/x')).toBe(9);
  });

  it('puts a pointer that is not in the text at its nearest ancestor', () => {
    const { lines } = parseJsonSource(spec);
    expect(lineOfPointer(lines, '/l3Rewrite/ttl/missing')).toBe(3);
    expect(lineOfPointer(lines, '/nothing/at/all')).toBe(1);
    expect(lineOfPointer(lines, '/l3Rewrite/ttl/value')).toBe(4);
  });

  it('gives a syntax error its line and column', () => {
    const bad = '{\n  "a": 1,\n  "b": 2\n  "c": 3\n}';
    expect(() => parseJsonSource(bad)).toThrow(JsonSyntaxError);
    try {
      parseJsonSource(bad);
    } catch (err) {
      expect((err as JsonSyntaxError).line).toBe(4);
      expect((err as JsonSyntaxError).column).toBe(3);
      expect((err as Error).message).toMatch(/^line 4, column 3: expected "," between two values, found """/);
    }
    const cases: [string, number][] = [
      ['{"a": 1,}', 1],
      ['{\n"a": tru\n}', 2],
      ['{"a": "x\ny"}', 1],
      ['{"a": 1}\n\n x', 3],
      ['{"a": 1, "a": 2}', 1],
      ['', 1],
      ['{\n  "a": [1, 2\n}', 3],
      ['{\n  "a": 1 // no comments in JSON\n}', 2],
    ];
    for (const [text, line] of cases) {
      let caught: unknown;
      try {
        parseJsonSource(text);
      } catch (err) {
        caught = err;
      }
      expect(caught, text).toBeInstanceOf(JsonSyntaxError);
      expect((caught as JsonSyntaxError).line, text).toBe(line);
    }
  });

  it('does not let "__proto__" reach the prototype', () => {
    const { value } = parseJsonSource('{"__proto__": {"polluted": true}}');
    expect(Object.keys(value as object)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
