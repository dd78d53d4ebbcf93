import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_PROFILE_SPEC,
  ProfileSpecSchema,
  validateProfileSpec,
  type ProfileSpec,
} from '../../core/profile-spec.js';

/** The whole default spec, spelled out: changing a default must be a visible decision. */
const EXPECTED_DEFAULTS: ProfileSpec = {
  schemaVersion: 1,
  l3Rewrite: {
    ttl: { enabled: true, value: 64 },
    ipv6HopLimit: false,
    ipid: true,
    tcpts: true,
    tcpwin: { enabled: true, value: 65535 },
    ebpf: 'auto',
  },
  flowOffload: { mode: 'auto' },
  conflictPolicy: 'prefer-rewrite',
  commitConfirm: { windowSeconds: 60 },
  drift: { policy: 'report', intervalSeconds: 300 },
};

function errorsOf(input: unknown) {
  const result = validateProfileSpec(input);
  if (result.ok) throw new Error(`expected errors, got ${JSON.stringify(result.spec)}`);
  return result.errors;
}

function specOf(input: unknown): ProfileSpec {
  const result = validateProfileSpec(input);
  if (!result.ok) throw new Error(`expected a spec, got ${JSON.stringify(result.errors)}`);
  return result.spec;
}

describe('profile spec: defaults', () => {
  it('an empty body is the full default spec', () => {
    expect(specOf({})).toEqual(EXPECTED_DEFAULTS);
    expect(DEFAULT_PROFILE_SPEC).toEqual(EXPECTED_DEFAULTS);
  });

  it('a partial body keeps what it says and fills the rest, at every level', () => {
    const spec = specOf({ l3Rewrite: { ttl: { value: 128 }, ebpf: 'on' }, flowOffload: { mode: 'hardware' } });
    expect(spec.l3Rewrite.ttl).toEqual({ enabled: true, value: 128 });
    expect(spec.l3Rewrite.ebpf).toBe('on');
    expect(spec.l3Rewrite.tcpwin).toEqual({ enabled: true, value: 65535 });
    expect(spec.flowOffload.mode).toBe('hardware');
    expect(spec.commitConfirm.windowSeconds).toBe(60);
  });

  it('a full spec passes unchanged', () => {
    const full: ProfileSpec = {
      schemaVersion: 1,
      l3Rewrite: {
        ttl: { enabled: true, value: 128 },
        ipv6HopLimit: true,
        ipid: false,
        tcpts: false,
        tcpwin: { enabled: false, value: 1 },
        ebpf: 'off',
      },
      flowOffload: { mode: 'software' },
      conflictPolicy: 'prefer-offload',
      commitConfirm: { windowSeconds: 3600 },
      drift: { policy: 'reapply', intervalSeconds: 30 },
    };
    expect(specOf(structuredClone(full))).toEqual(full);
  });

  it('never mutates the input, and the shared default cannot be edited', () => {
    const input = { l3Rewrite: {} };
    specOf(input);
    expect(input).toEqual({ l3Rewrite: {} });
    expect(Object.isFrozen(DEFAULT_PROFILE_SPEC)).toBe(true);
    expect(Object.isFrozen(DEFAULT_PROFILE_SPEC.l3Rewrite.ttl)).toBe(true);
    // A default object handed out once is not the one handed out next time.
    const a = specOf({});
    a.l3Rewrite.ttl.value = 5;
    expect(specOf({}).l3Rewrite.ttl.value).toBe(64);
  });

  it('every optional field of the schema carries a default, so the stored spec is always complete', () => {
    const missing: string[] = [];
    const walk = (schema: Record<string, unknown>, path: string) => {
      const properties = schema['properties'] as Record<string, Record<string, unknown>> | undefined;
      if (!properties) return;
      const required = new Set((schema['required'] as string[] | undefined) ?? []);
      for (const [key, sub] of Object.entries(properties)) {
        if (!required.has(key) && !('default' in sub)) missing.push(`${path}/${key}`);
        walk(sub, `${path}/${key}`);
      }
    };
    walk(ProfileSpecSchema as unknown as Record<string, unknown>, '');
    expect(missing).toEqual([]);
  });
});

describe('profile spec: errors name the field (JSON pointer)', () => {
  it('unknown fields are rejected at the root and nested, each with its path', () => {
    expect(errorsOf({ tll: 64 })).toEqual([{ path: '/tll', message: 'unknown field' }]);
    expect(errorsOf({ l3Rewrite: { ttl: { value: 64, vaule: 1 } } })).toEqual([
      { path: '/l3Rewrite/ttl/vaule', message: 'unknown field' },
    ]);
    expect(errorsOf({ drift: { policy: 'report', every: 5 } })).toEqual([
      { path: '/drift/every', message: 'unknown field' },
    ]);
  });

  it('out-of-range values', () => {
    for (const value of [0, 256, -1]) {
      const errors = errorsOf({ l3Rewrite: { ttl: { value } } });
      expect(errors).toHaveLength(1);
      expect(errors[0]?.path).toBe('/l3Rewrite/ttl/value');
      expect(errors[0]?.message).toMatch(value > 255 ? /less or equal to 255/ : /greater or equal to 1/);
    }
    expect(errorsOf({ l3Rewrite: { tcpwin: { value: 65536 } } })[0]?.path).toBe('/l3Rewrite/tcpwin/value');
    expect(errorsOf({ commitConfirm: { windowSeconds: 5 } })[0]?.path).toBe('/commitConfirm/windowSeconds');
    expect(errorsOf({ commitConfirm: { windowSeconds: 3601 } })[0]?.path).toBe('/commitConfirm/windowSeconds');
    expect(errorsOf({ drift: { intervalSeconds: 1 } })[0]?.path).toBe('/drift/intervalSeconds');
  });

  it('wrong types are errors, never coerced', () => {
    expect(errorsOf({ l3Rewrite: { ttl: { value: '64' } } })).toEqual([
      { path: '/l3Rewrite/ttl/value', message: 'Expected integer' },
    ]);
    expect(errorsOf({ l3Rewrite: { ttl: { value: 64.5 } } })).toEqual([
      { path: '/l3Rewrite/ttl/value', message: 'Expected integer' },
    ]);
    expect(errorsOf({ l3Rewrite: { ipid: 'yes' } })).toEqual([
      { path: '/l3Rewrite/ipid', message: 'Expected boolean' },
    ]);
    expect(errorsOf({ l3Rewrite: { ttl: true } })).toEqual([{ path: '/l3Rewrite/ttl', message: 'Expected object' }]);
    expect(errorsOf({ flowOffload: 'hardware' })).toEqual([{ path: '/flowOffload', message: 'Expected object' }]);
    expect(errorsOf({ schemaVersion: 2 })).toEqual([{ path: '/schemaVersion', message: 'Expected 1' }]);
    for (const input of [null, 'spec', 42, []])
      expect(errorsOf(input)).toEqual([{ path: '', message: 'Expected object' }]);
  });

  it('enums list the allowed values', () => {
    expect(errorsOf({ l3Rewrite: { ebpf: 'yes' } })).toEqual([
      { path: '/l3Rewrite/ebpf', message: 'must be one of "on", "auto", "off"' },
    ]);
    expect(errorsOf({ flowOffload: { mode: 'hw' } })).toEqual([
      { path: '/flowOffload/mode', message: 'must be one of "off", "software", "hardware", "auto"' },
    ]);
    expect(errorsOf({ conflictPolicy: 'rewrite' })).toEqual([
      { path: '/conflictPolicy', message: 'must be one of "prefer-rewrite", "prefer-offload"' },
    ]);
    expect(errorsOf({ drift: { policy: 'fix' } })).toEqual([
      { path: '/drift/policy', message: 'must be one of "report", "reapply"' },
    ]);
  });

  it('reports every error at once', () => {
    const errors = errorsOf({ l3Rewrite: { ttl: { value: 300 }, ebpf: 'maybe' }, extra: 1 });
    expect(errors.map((e) => e.path).sort()).toEqual(['/extra', '/l3Rewrite/ebpf', '/l3Rewrite/ttl/value']);
  });

  it('an IPv6 hop-limit rewrite needs TTL rewriting (it rides on set_ip_ttl)', () => {
    expect(errorsOf({ l3Rewrite: { ttl: { enabled: false }, ipv6HopLimit: true } })).toEqual([
      { path: '/l3Rewrite/ipv6HopLimit', message: expect.stringMatching(/set_ip_ttl/) },
    ]);
    expect(specOf({ l3Rewrite: { ttl: { enabled: true }, ipv6HopLimit: true } }).l3Rewrite.ipv6HopLimit).toBe(true);
  });
});

describe('profile spec: the same schema in a Fastify route', () => {
  it('is plain JSON Schema: with strict ajv options, Fastify applies the defaults and rejects unknown fields', async () => {
    // Fastify's default ajv options strip unknown properties (removeAdditional: true) and coerce
    // types; a profile API must turn both off, or `tll: 64` would be silently dropped.
    const app = Fastify({ ajv: { customOptions: { removeAdditional: false, coerceTypes: false, allErrors: true } } });
    app.post(
      '/spec',
      { schema: { body: JSON.parse(JSON.stringify(ProfileSpecSchema)) } },
      async (request) => request.body,
    );
    try {
      const ok = await app.inject({ method: 'POST', url: '/spec', payload: {} });
      expect(ok.statusCode).toBe(200);
      expect(ok.json()).toEqual(EXPECTED_DEFAULTS);
      const unknown = await app.inject({ method: 'POST', url: '/spec', payload: { l3Rewrite: { ttl: { vaule: 1 } } } });
      expect(unknown.statusCode).toBe(400);
      const range = await app.inject({ method: 'POST', url: '/spec', payload: { l3Rewrite: { ttl: { value: 256 } } } });
      expect(range.statusCode).toBe(400);
      expect(range.json().message).toMatch(/ttl\/value/);
    } finally {
      await app.close();
    }
  });

  it("Fastify's default ajv options would silently drop an unknown field (why the server must not rely on them)", async () => {
    const app = Fastify();
    app.post('/spec', { schema: { body: ProfileSpecSchema } }, async (request) => request.body);
    try {
      const response = await app.inject({ method: 'POST', url: '/spec', payload: { tll: 1 } });
      expect(response.statusCode).toBe(200);
      expect(response.json()).not.toHaveProperty('tll');
      // validateProfileSpec on the raw body catches it.
      expect(errorsOf({ tll: 1 })).toEqual([{ path: '/tll', message: 'unknown field' }]);
    } finally {
      await app.close();
    }
  });
});
