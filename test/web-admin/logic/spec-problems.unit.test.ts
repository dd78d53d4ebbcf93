import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { readSpec, serverProblems } from '../../../web-admin/src/pages/profiles/spec-problems.js';
import { SPEC_AJV_OPTIONS } from '../../../web-admin/scripts/spec-validator.js';

const schema = new Ajv(SPEC_AJV_OPTIONS).compile({
  type: 'object',
  additionalProperties: false,
  properties: {
    ttl: { type: 'object', additionalProperties: false, properties: { value: { type: 'integer', maximum: 255 } } },
  },
});

describe('the problems of the editor text, each at a line', () => {
  it('puts a syntax error, and schema problems, at their lines, in line order', () => {
    expect(readSpec('{\n  "ttl": {\n    "value": 1,\n  }\n}', schema)).toMatchObject({
      ok: false,
      problems: [{ line: 4, pointer: '' }],
    });
    const reading = readSpec('{\n  "extra": 1,\n  "ttl": {\n    "value": 300\n  }\n}', schema);
    expect(reading.ok).toBe(false);
    if (reading.ok) return;
    expect(reading.problems).toEqual([
      { line: 2, pointer: '/extra', message: '/extra unknown property "extra" (known here: ttl)' },
      { line: 4, pointer: '/ttl/value', message: '/ttl/value must be at most 255' },
    ]);
    expect(readSpec('{ "ttl": { "value": 64 } }', schema)).toMatchObject({ ok: true, spec: { ttl: { value: 64 } } });
    // Without a schema check only the syntax is checked; the controller checks the rest.
    expect(readSpec('{ "anything": true }', null).ok).toBe(true);
  });

  it("places the controller's field errors (/spec/...) at their lines", () => {
    const reading = readSpec('{\n  "ttl": {\n    "value": 64\n  }\n}', null);
    if (!reading.ok) throw new Error('valid');
    expect(
      serverProblems(
        [
          { path: '/spec/ttl/value', message: 'must be at most 255' },
          { path: '/spec/ttl/missing', message: 'required' },
          { path: '/baseRevision', message: 'latest revision is 3' },
        ],
        reading.lines,
      ),
    ).toEqual([
      { line: 3, pointer: '/ttl/value', message: '/ttl/value must be at most 255' },
      { line: 2, pointer: '/ttl/missing', message: '/ttl/missing required' },
    ]);
  });
});
