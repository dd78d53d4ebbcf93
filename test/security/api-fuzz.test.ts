import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Controller } from '../../server/controller.js';
import { startTestController } from '../support/controller.js';
import { createPgliteDatabase, createPostgresDatabase, type TestDatabase } from '../support/databases.js';

interface Operation {
  method: string;
  path: string;
  pathParams: string[];
  queryParams: string[];
  body?: { properties: Record<string, unknown>; required: string[] };
}

/** Every operation of the OpenAPI document the controller serves (the docs routes aside). */
async function operations(baseUrl: string): Promise<Operation[]> {
  const doc = (await (await fetch(`${baseUrl}/docs/json`)).json()) as {
    paths: Record<
      string,
      Record<
        string,
        {
          parameters?: { name: string; in: string }[];
          requestBody?: {
            content?: Record<string, { schema?: { properties?: Record<string, unknown>; required?: string[] } }>;
          };
        }
      >
    >;
  };
  const ops: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    if (path.startsWith('/docs')) continue;
    for (const [method, op] of Object.entries(methods)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const schema = op.requestBody?.content?.['application/json']?.schema;
      ops.push({
        method: method.toUpperCase(),
        path,
        pathParams: [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!),
        queryParams: (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name),
        body: schema ? { properties: schema.properties ?? {}, required: schema.required ?? [] } : undefined,
      });
    }
  }
  return ops;
}

/** Lone surrogates cannot be percent-encoded; replace them as String.prototype.toWellFormed (ES2024) does. */
const wellFormed = (s: string) =>
  s.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');

const nested = (depth: number, open: string, close: string, leaf: string) =>
  open.repeat(depth) + leaf + close.repeat(depth);

/** Values of every wrong kind: types, sizes, encodings, injection-looking text, deep nesting. */
const weird: fc.Arbitrary<unknown> = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', minLength: 2_000, maxLength: 20_000 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom(
    '__proto__',
    'constructor',
    '../../etc/passwd',
    '\u0000\u0001',
    '😀'.repeat(500),
    '\'; DROP TABLE "Router"; --',
    '9'.repeat(400),
    '-1',
    'NaN',
    '1e309',
    '',
    ' ',
    '%00',
    '{{7*7}}',
  ),
  fc.array(fc.jsonValue({ maxDepth: 3 }), { maxLength: 6 }),
  fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 6 }),
  fc.integer({ min: 20, max: 400 }).map((d) => JSON.parse(nested(d, '[', ']', '1')) as unknown),
  fc.integer({ min: 20, max: 400 }).map((d) => JSON.parse(nested(d, '{"a":', '}', '1')) as unknown),
);

type Body = { kind: 'json'; value: unknown } | { kind: 'raw'; text: string; contentType: string };

function bodyArb(op: Operation): fc.Arbitrary<Body | undefined> {
  const props = Object.keys(op.body?.properties ?? {});
  // Known fields with wrong values, some required ones missing, some unknown ones added.
  const shaped = fc
    .tuple(
      fc.subarray(props),
      fc.array(weird, { minLength: props.length, maxLength: props.length }),
      fc.dictionary(fc.string({ unit: 'binary', minLength: 1, maxLength: 20 }), weird, { maxKeys: 3 }),
    )
    .map(([keep, values, extra]) => ({
      kind: 'json' as const,
      value: { ...Object.fromEntries(keep.map((k, i) => [k, values[i]])), ...extra },
    }));
  const variants: fc.Arbitrary<Body | undefined>[] = [
    shaped,
    weird.map((value) => ({ kind: 'json' as const, value })),
    fc
      .string({ unit: 'binary', maxLength: 200 })
      .map((text) => ({ kind: 'raw' as const, text, contentType: 'application/json' })),
    fc
      .integer({ min: 1_000, max: 20_000 })
      .map((d) => ({ kind: 'raw' as const, text: nested(d, '[', ']', ''), contentType: 'application/json' })),
    fc
      .constantFrom('text/plain', 'application/xml', 'application/x-www-form-urlencoded', 'multipart/form-data')
      .map((contentType) => ({ kind: 'raw' as const, text: 'a=1&b=<x/>', contentType })),
    fc.constant({ kind: 'raw' as const, text: `"${'x'.repeat(300 * 1024)}"`, contentType: 'application/json' }),
    fc.constant(undefined),
  ];
  return fc.oneof(...variants);
}

const paramValue = fc.oneof(
  fc.string({ unit: 'binary', minLength: 1, maxLength: 60 }),
  fc.string({ unit: 'grapheme', minLength: 200, maxLength: 1_000 }),
  fc.constantFrom(
    '0',
    '-1',
    '00000000-0000-0000-0000-000000000000',
    '..',
    '%2e%2e',
    'null',
    'undefined',
    '😀',
    'a'.repeat(65),
    'ff'.repeat(40),
  ),
);

function requestArb(op: Operation) {
  return fc.record({
    params: fc.array(paramValue, { minLength: op.pathParams.length, maxLength: op.pathParams.length }),
    query: fc.dictionary(
      fc.oneof(fc.constantFrom(...(op.queryParams.length ? op.queryParams : ['x'])), fc.string({ maxLength: 10 })),
      fc.oneof(
        paramValue,
        weird.map((v) => JSON.stringify(v) ?? ''),
      ),
      { maxKeys: 4 },
    ),
    body: bodyArb(op),
  });
}

function urlFor(op: Operation, params: string[], query: Record<string, string>): string {
  let i = 0;
  const path = op.path.replace(/\{[^}]+\}/g, () => encodeURIComponent(wellFormed(params[i++] ?? 'x')));
  const qs = new URLSearchParams(
    Object.entries(query).map(([k, v]) => [wellFormed(k), wellFormed(String(v)).slice(0, 2_000)]),
  ).toString();
  return qs ? `${path}?${qs}` : path;
}

const BACKEND_RUNS = [
  ['PostgreSQL', createPostgresDatabase, 2_000],
  ['embedded PGlite', createPgliteDatabase, 400],
] as const;

describe.each(BACKEND_RUNS)('the REST API under generated bad input on %s', (_name, createDb, runs) => {
  let db: TestDatabase;
  let controller: Controller;
  let token: string;

  beforeAll(async () => {
    db = await createDb();
    ({ controller, token } = await startTestController(db));
  });
  afterAll(async () => {
    await controller?.close();
    await db?.drop();
  });

  it(`${runs} bad requests over every route in /docs/json: only 4xx JSON errors (or a harmless success), never a 5xx, a hang or a crash`, async () => {
    const ops = await operations(controller.httpUrl);
    expect(ops.length).toBeGreaterThanOrEqual(10);
    const statuses = new Map<number, number>();
    const perRoute = new Map<string, number>();
    let sent = 0;
    const outcome = await fc.check(
      fc.asyncProperty(
        fc
          .integer({ min: 0, max: ops.length - 1 })
          .chain((i) => requestArb(ops[i]!).map((req) => ({ op: ops[i]!, req }))),
        async ({ op, req }) => {
          const url = `${controller.httpUrl}${urlFor(op, req.params, req.query as Record<string, string>)}`;
          const headers: Record<string, string> = { authorization: `Bearer ${token}` };
          let body: string | undefined;
          if (req.body && op.method !== 'GET') {
            if (req.body.kind === 'json') {
              body = JSON.stringify(req.body.value) ?? 'null';
              headers['content-type'] = 'application/json';
            } else {
              body = req.body.text;
              headers['content-type'] = req.body.contentType;
            }
          }
          sent += 1;
          const key = `${op.method} ${op.path}`;
          perRoute.set(key, (perRoute.get(key) ?? 0) + 1);
          // A hang fails here: every request must be answered within 5 s.
          const res = await fetch(url, { method: op.method, headers, body, signal: AbortSignal.timeout(5_000) });
          const text = await res.text();
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          if (res.status >= 500)
            throw new Error(`${op.method} ${url.slice(0, 200)} -> ${res.status} ${text.slice(0, 300)}`);
          if (res.status >= 400) {
            expect(res.headers.get('content-type'), `${key} ${res.status}`).toMatch(/application\/json/);
            const parsed = JSON.parse(text) as { error?: unknown; message?: unknown };
            expect(typeof parsed.error, `${key} ${res.status} ${text.slice(0, 200)}`).toBe('string');
            expect(typeof parsed.message).toBe('string');
          }
        },
      ),
      { numRuns: runs, seed: 20261130, endOnFailure: true },
    );
    // Report the failure briefly: counterexamples hold strings of hundreds of kilobytes.
    if (outcome.failed)
      throw new Error(
        `after ${outcome.numRuns} runs: ${String((outcome.errorInstance as Error | undefined)?.message ?? outcome.errorInstance).slice(0, 600)}`,
      );
    expect(sent).toBeGreaterThanOrEqual(runs);
    // Most generated inputs must be rejected (they are bad by construction), and every route was hit.
    const fourXX = [...statuses].filter(([s]) => s >= 400 && s < 500).reduce((n, [, c]) => n + c, 0);
    expect(fourXX / sent).toBeGreaterThan(0.8);
    expect(perRoute.size).toBe(ops.length);
    // Still alive and still serving real requests.
    expect((await fetch(`${controller.httpUrl}/healthz`)).status).toBe(200);
    expect(
      (await fetch(`${controller.httpUrl}/v1/routers`, { headers: { authorization: `Bearer ${token}` } })).status,
    ).toBe(200);
    console.log(
      `fuzz ${_name}: ${sent} requests over ${ops.length} operations; statuses ${JSON.stringify(Object.fromEntries(statuses))}`,
    );
  }, 240_000);
});
