import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import {
  schemaProblems,
  type JsonSchema,
  type SchemaCheck,
} from '../../../web-admin/src/pages/profiles/schema-check.js';
import { validate as checkSpec } from '../../../web-admin/src/pages/profiles/spec-validator.generated.js';
import { SPEC_AJV_OPTIONS } from '../../../web-admin/scripts/spec-validator.js';
import { validateProfileSpec } from '../../../core/profile-spec.js';

/** A schema compiled as the console's spec check is (in Node, where ajv may compile at run time). */
const compiled = (schema: JsonSchema): SchemaCheck => new Ajv(SPEC_AJV_OPTIONS).compile(schema);

describe("the console's check of a spec against the published schema", () => {
  it('accepts what the controller accepts and names every problem by pointer', () => {
    expect(schemaProblems(checkSpec, {})).toEqual([]);
    expect(
      schemaProblems(checkSpec, {
        l3Rewrite: { ttl: { enabled: true, value: 64 } },
        flowOffload: { mode: 'hardware' },
      }),
    ).toEqual([]);
    const problems = schemaProblems(checkSpec, {
      l3Rewrite: { ttl: { value: 300 }, tll: 1, ebpf: 'sometimes' },
      flowOffload: { mode: 7 },
      schemaVersion: 2,
    });
    const byPointer = Object.fromEntries(problems.map((p) => [p.pointer, p.message]));
    expect(byPointer['/l3Rewrite/ttl/value']).toBe('must be at most 255');
    expect(byPointer['/l3Rewrite/tll']).toMatch(/^unknown property "tll" \(known here: ttl,/);
    expect(byPointer['/l3Rewrite/ebpf']).toBe('must be one of "on", "auto", "off"');
    expect(byPointer['/flowOffload/mode']).toMatch(/^must be one of "off", "software", "hardware", "auto"/);
    expect(byPointer['/schemaVersion']).toBe('must be one of 1');
    // One problem a value: the branches of an anyOf and the rules past a wrong type say nothing more.
    expect(problems).toHaveLength(5);
    expect(schemaProblems(checkSpec, [])).toEqual([{ pointer: '', message: 'must be an object' }]);
  });

  it("agrees with the controller's own validation on valid and invalid specs", () => {
    const samples: unknown[] = [
      {},
      { l3Rewrite: { ttl: { value: 0 } } },
      { l3Rewrite: { ttl: { value: 128 }, ipid: false } },
      { l3Rewrite: { tcpwin: { value: 65536 } } },
      { flowOffload: { mode: 'software' }, conflictPolicy: 'prefer-offload' },
      { conflictPolicy: 'prefer-nothing' },
      { l3Rewrite: { ttl: { enabled: 'yes' } } },
      { extra: true },
    ];
    for (const spec of samples) {
      const console = schemaProblems(checkSpec, spec).length === 0;
      const server = validateProfileSpec(spec).ok;
      expect(console, JSON.stringify(spec)).toBe(server);
    }
  });

  it('words the other keywords for the editor', () => {
    const check = compiled({
      type: 'object',
      required: ['name'],
      properties: {
        name: { type: 'string', minLength: 2, maxLength: 4, pattern: '^[a-z]+$' },
        list: { type: 'array', minItems: 1, maxItems: 2, items: { type: 'integer', minimum: 0 } },
        n: { type: 'number', exclusiveMinimum: 0 },
        either: { anyOf: [{ type: 'string' }, { type: 'object', properties: { a: { type: 'integer' } } }] },
      },
    });
    const messages = (v: unknown) => schemaProblems(check, v).map((p) => `${p.pointer} ${p.message}`);
    expect(messages({})).toEqual([' must have the property "name"']);
    expect(messages({ name: 'A' })).toEqual(['/name must have at least 2 characters', '/name must match ^[a-z]+$']);
    expect(messages({ name: 'ab', list: [1, -1, 2.5], n: 0 }).sort()).toEqual([
      '/list must have at most 2 items',
      '/list/1 must be at least 0',
      '/list/2 must be an integer',
      '/n must be more than 0',
    ]);
    expect(messages({ name: 'ab', either: { a: 'x' } })).toEqual(['/either matches none of the allowed forms']);
  });
});
