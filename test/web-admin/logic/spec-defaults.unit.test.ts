/**
 * The spec as saved, computed in the console from the `default` keywords of the schema the
 * controller publishes, against what the controller itself stores (validateProfileSpec's
 * output): the same spec for any input, and the values that came from defaults marked.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_PROFILE_SPEC, validateProfileSpec } from '../../../core/profile-spec.js';
import { buildOpenApiDocument } from '../../../server/openapi-document.js';
import type { JsonSchema } from '../../../web-admin/src/pages/profiles/schema-check.js';
import { fillDefaults, linesWithDefaults, specText } from '../../../web-admin/src/pages/profiles/spec-defaults.js';
import { specSchemaOf } from '../../../web-admin/src/pages/profiles/spec-schema.js';

async function publishedSpecSchema(): Promise<JsonSchema> {
  const schema = specSchemaOf(await buildOpenApiDocument());
  if (!schema) throw new Error('no spec schema in the OpenAPI document');
  return schema;
}

const TTL_ONLY = { l3Rewrite: { ttl: { enabled: true, value: 64 } } };

describe('the spec as saved, defaults filled in from the published schema', () => {
  it('turning on TTL alone leaves the three other rewrites on, and says they are defaults', async () => {
    const schema = await publishedSpecSchema();
    const { spec, defaulted } = fillDefaults(schema, TTL_ONLY);
    expect(spec).toMatchObject({
      l3Rewrite: {
        ttl: { enabled: true, value: 64 },
        ipid: true,
        tcpts: true,
        tcpwin: { enabled: true, value: 65535 },
      },
    });
    for (const pointer of [
      '/l3Rewrite/ipid',
      '/l3Rewrite/tcpts',
      '/l3Rewrite/tcpwin/enabled',
      '/l3Rewrite/tcpwin/value',
    ])
      expect(defaulted.has(pointer), pointer).toBe(true);
    expect(defaulted.has('/l3Rewrite/ttl/enabled')).toBe(false);
    expect(defaulted.has('/l3Rewrite/ttl/value')).toBe(false);
    // Only values are marked, never the objects that hold them.
    expect(defaulted.has('/l3Rewrite')).toBe(false);
    expect(defaulted.has('/drift')).toBe(false);
    expect(defaulted.has('/drift/policy')).toBe(true);
  });

  it('is what the controller stores, for specs from empty to complete', async () => {
    const schema = await publishedSpecSchema();
    const inputs: unknown[] = [
      {},
      TTL_ONLY,
      { l3Rewrite: { ipid: false, tcpts: false, tcpwin: { enabled: false } }, flowOffload: { mode: 'hardware' } },
      { l3Rewrite: { ttl: { value: 128 }, ipv6HopLimit: true, ebpf: 'off' }, drift: { policy: 'reapply' } },
      { commitConfirm: { windowSeconds: 600 }, conflictPolicy: 'prefer-offload', schemaVersion: 1 },
      structuredClone(DEFAULT_PROFILE_SPEC),
    ];
    for (const input of inputs) {
      const stored = validateProfileSpec(input);
      expect(stored.ok, JSON.stringify(input)).toBe(true);
      if (!stored.ok) continue;
      expect(fillDefaults(schema, input).spec, JSON.stringify(input)).toEqual(stored.spec);
    }
    // A complete spec has nothing left to default.
    expect(fillDefaults(schema, DEFAULT_PROFILE_SPEC).defaulted.size).toBe(0);
    // Every value of an empty spec is a default: one per leaf of the stored spec.
    const leaves = specText(DEFAULT_PROFILE_SPEC)
      .split('\n')
      .filter((l) => /:\s*[^{\s]/.test(l)).length;
    expect(fillDefaults(schema, {}).defaulted.size).toBe(leaves);
  });

  it('never edits its input, keeps wrong values and unknown fields for the check to name', async () => {
    const schema = await publishedSpecSchema();
    const input = { l3Rewrite: { ttl: { value: 300 }, tll: 1, tcpwin: 'yes' } };
    const before = JSON.stringify(input);
    const { spec, defaulted } = fillDefaults(schema, input);
    expect(JSON.stringify(input)).toBe(before);
    expect(spec).toMatchObject({ l3Rewrite: { ttl: { enabled: true, value: 300 }, tll: 1, tcpwin: 'yes' } });
    expect(defaulted.has('/l3Rewrite/ttl/value')).toBe(false);
    expect(defaulted.has('/l3Rewrite/tcpwin/enabled')).toBe(false);
  });

  it('lays the spec out as lines, the defaulted ones marked at their own line', async () => {
    const schema = await publishedSpecSchema();
    const lines = linesWithDefaults(fillDefaults(schema, TTL_ONLY));
    expect(`${lines.map((l) => l.text).join('\n')}\n`).toBe(specText(fillDefaults(schema, TTL_ONLY).spec));
    const marked = lines.filter((l) => l.defaulted).map((l) => l.text.trim());
    expect(marked).toContain('"ipid": true,');
    expect(marked).toContain('"tcpts": true,');
    expect(marked).toContain('"enabled": true,'); // tcpwin's
    expect(marked).toContain('"schemaVersion": 1,');
    const ttlLine = lines.find((l) => l.pointer === '/l3Rewrite/ttl/enabled');
    expect(ttlLine).toMatchObject({ defaulted: false });
    // An object's opening line is not a value of its own.
    expect(lines.find((l) => l.pointer === '/l3Rewrite')).toMatchObject({ defaulted: false });
    expect(lines[0]).toEqual({ text: '{', pointer: '', defaulted: false });
  });
});
