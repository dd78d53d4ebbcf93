import { describe, expect, it } from 'vitest';
import { checkAgainstSchema, type JsonSchema } from '../../../web-admin/src/pages/profiles/schema-check.js';
import { buildOpenApiDocument } from '../../../server/openapi-document.js';
import { validateProfileSpec } from '../../../core/profile-spec.js';

/** The spec schema as the console gets it: from the controller's own OpenAPI document. */
async function publishedSpecSchema(): Promise<JsonSchema> {
  const doc = (await buildOpenApiDocument()) as unknown as {
    paths: Record<
      string,
      { put: { requestBody: { content: Record<string, { schema: { properties: { spec: JsonSchema } } }> } } }
    >;
  };
  return doc.paths['/v1/profiles/{name}']!.put.requestBody.content['application/json']!.schema.properties.spec;
}

describe("the console's check of a spec against the published schema", () => {
  it('accepts what the controller accepts and names every problem by pointer', async () => {
    const schema = await publishedSpecSchema();
    expect(checkAgainstSchema({}, schema)).toEqual([]);
    expect(
      checkAgainstSchema(
        { l3Rewrite: { ttl: { enabled: true, value: 64 } }, flowOffload: { mode: 'hardware' } },
        schema,
      ),
    ).toEqual([]);
    const problems = checkAgainstSchema(
      { l3Rewrite: { ttl: { value: 300 }, tll: 1, ebpf: 'sometimes' }, flowOffload: { mode: 7 }, schemaVersion: 2 },
      schema,
    );
    const byPointer = Object.fromEntries(problems.map((p) => [p.pointer, p.message]));
    expect(byPointer['/l3Rewrite/ttl/value']).toBe('must be at most 255');
    expect(byPointer['/l3Rewrite/tll']).toMatch(/^unknown property "tll" \(known here: ttl,/);
    expect(byPointer['/l3Rewrite/ebpf']).toBe('must be one of "on", "auto", "off"');
    expect(byPointer['/flowOffload/mode']).toMatch(/^must be one of "off", "software", "hardware", "auto"/);
    expect(byPointer['/schemaVersion']).toBe('must be one of 1');
    expect(checkAgainstSchema([], schema)).toEqual([{ pointer: '', message: 'must be an object' }]);
  });

  it("agrees with the controller's own validation on valid and invalid specs", async () => {
    const schema = await publishedSpecSchema();
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
      const console = checkAgainstSchema(spec, schema).length === 0;
      const server = validateProfileSpec(spec).ok;
      expect(console, JSON.stringify(spec)).toBe(server);
    }
  });

  it('checks the other keywords of the subset', () => {
    const schema: JsonSchema = {
      type: 'object',
      required: ['name'],
      properties: {
        name: { type: 'string', minLength: 2, maxLength: 4, pattern: '^[a-z]+$' },
        list: { type: 'array', minItems: 1, maxItems: 2, items: { type: 'integer', minimum: 0 } },
        n: { type: 'number', exclusiveMinimum: 0 },
      },
    };
    const messages = (v: unknown) => checkAgainstSchema(v, schema).map((p) => `${p.pointer} ${p.message}`);
    expect(messages({})).toEqual([' must have the property "name"']);
    expect(messages({ name: 'A' })).toEqual(['/name must have at least 2 characters', '/name must match ^[a-z]+$']);
    expect(messages({ name: 'ab', list: [1, -1, 2.5], n: 0 })).toEqual([
      '/list must have at most 2 items',
      '/list/1 must be at least 0',
      '/list/2 must be an integer',
      '/n must be more than 0',
    ]);
  });
});
