/**
 * The switches beside the spec's JSON: every field of the published schema has a control (a
 * field added to the spec without one fails here), each control's kind comes from the schema,
 * and a change writes one value into the document and nothing else.
 */
import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../../server/openapi-document.js';
import type { JsonSchema } from '../../../web-admin/src/pages/profiles/schema-check.js';
import {
  fieldModel,
  formBlocker,
  FORM_POINTERS,
  leafPointers,
  REWRITE_PROGRAMS,
  TEXT_ONLY_FIELDS,
  valueAt,
  withoutValue,
  withValue,
} from '../../../web-admin/src/pages/profiles/spec-form.js';
import { specSchemaOf } from '../../../web-admin/src/pages/profiles/spec-schema.js';
import { PROGRAM_NAMES } from '../../../core/programs.js';

async function publishedSpecSchema(): Promise<JsonSchema> {
  const schema = specSchemaOf(await buildOpenApiDocument());
  if (!schema) throw new Error('no spec schema in the OpenAPI document');
  return schema;
}

describe('the spec form', () => {
  it('has one switch per rewrite program and a control for every other field of the schema', async () => {
    const schema = await publishedSpecSchema();
    expect(REWRITE_PROGRAMS.map((p) => p.program).sort()).toEqual([...PROGRAM_NAMES].sort());
    expect([...FORM_POINTERS, ...TEXT_ONLY_FIELDS].sort()).toEqual(leafPointers(schema).sort());
    for (const p of REWRITE_PROGRAMS) {
      expect(fieldModel(schema, p.enabled), p.program).toMatchObject({ kind: 'switch', default: true });
      // Each program's switch is the one its description names.
      expect(fieldModel(schema, p.enabled)?.description).toContain(`(${p.program})`);
    }
    for (const pointer of FORM_POINTERS) expect(fieldModel(schema, pointer), pointer).not.toBeNull();
    expect(fieldModel(schema, '/l3Rewrite/ttl/value')).toEqual(
      expect.objectContaining({ kind: 'integer', min: 1, max: 255, default: 64 }),
    );
    expect(fieldModel(schema, '/flowOffload/mode')).toEqual(
      expect.objectContaining({ kind: 'choice', choices: ['off', 'software', 'hardware', 'auto'], default: 'auto' }),
    );
    expect(fieldModel(schema, '/l3Rewrite/nope')).toBeNull();
  });

  it('writes one value, creating the objects on its way, and leaves the rest as it was', () => {
    const document = { l3Rewrite: { ttl: { enabled: true } }, conflictPolicy: 'prefer-offload' };
    const next = withValue(document, '/l3Rewrite/tcpwin/value', 1460);
    expect(next).toEqual({
      l3Rewrite: { ttl: { enabled: true }, tcpwin: { value: 1460 } },
      conflictPolicy: 'prefer-offload',
    });
    expect(document).toEqual({ l3Rewrite: { ttl: { enabled: true } }, conflictPolicy: 'prefer-offload' });
    expect(withValue(next, '/l3Rewrite/ttl/enabled', false)).toMatchObject({ l3Rewrite: { ttl: { enabled: false } } });
    expect(valueAt(next, '/l3Rewrite/tcpwin/value')).toBe(1460);
    expect(valueAt(next, '/drift/policy')).toBeUndefined();
    // "Use default" takes the value out, so the controller fills it in.
    expect(withoutValue(next, '/l3Rewrite/tcpwin/value')).toEqual({
      l3Rewrite: { ttl: { enabled: true }, tcpwin: {} },
      conflictPolicy: 'prefer-offload',
    });
    expect(withoutValue(next, '/drift/policy')).toEqual(next);
  });

  it('refuses a document it cannot edit, saying where', () => {
    expect(formBlocker({})).toBeNull();
    expect(formBlocker({ l3Rewrite: { ttl: { value: 300 } } })).toBeNull();
    expect(formBlocker([])).toBe('the spec is not a JSON object');
    expect(formBlocker(null)).toBe('the spec is not a JSON object');
    expect(formBlocker({ l3Rewrite: { ttl: 64 } })).toBe('/l3Rewrite/ttl is not an object');
    expect(formBlocker({ drift: 'report' })).toBe('/drift is not an object');
    expect(() => withValue({ drift: 'report' }, '/drift/policy', 'reapply')).toThrow('/drift is not an object');
  });
});
