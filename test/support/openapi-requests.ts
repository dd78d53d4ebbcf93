import fc from 'fast-check';

/**
 * Requests derived from the controller's published OpenAPI document: a valid request of every
 * operation from its parameter and body schemas, and mutations of it (one field replaced by a
 * value of a wrong kind, a required field dropped, an unknown one added, the body replaced by
 * text that is not the JSON it asks for). The API fuzz test and bench/api-fuzz share them.
 */

type Schema = Record<string, unknown> & {
  type?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  enum?: unknown[];
  $ref?: string;
};

export interface Operation {
  method: string;
  path: string;
  params: { name: string; in: 'path' | 'query'; required: boolean; schema: Schema }[];
  body?: Schema;
}

export interface GeneratedRequest {
  op: Operation;
  pathParams: Record<string, string>;
  query: Record<string, string>;
  /** JSON text, or raw text with its content type; undefined sends no body. */
  body?: { text: string; contentType: string };
  mutation: string;
}

type Document = {
  paths: Record<string, Record<string, { parameters?: Operation['params']; requestBody?: unknown }>>;
  components?: { schemas?: Record<string, Schema> };
};

/** Every operation of the document (the documentation routes aside), $refs resolved. */
export function operationsOf(doc: Document): Operation[] {
  const resolve = (s: Schema): Schema => {
    if (s.$ref) return resolve(doc.components?.schemas?.[s.$ref.split('/').pop()!] ?? {});
    const out: Schema = { ...s };
    if (s.properties)
      out.properties = Object.fromEntries(Object.entries(s.properties).map(([k, v]) => [k, resolve(v)]));
    if (s.items) out.items = resolve(s.items);
    if (s.anyOf) out.anyOf = s.anyOf.map(resolve);
    if (s.oneOf) out.oneOf = s.oneOf.map(resolve);
    return out;
  };
  const ops: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    if (path.startsWith('/docs')) continue;
    for (const [method, op] of Object.entries(methods)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const body = (op.requestBody as { content?: Record<string, { schema?: Schema }> } | undefined)?.content?.[
        'application/json'
      ]?.schema;
      ops.push({
        method: method.toUpperCase(),
        path,
        params: (op.parameters ?? []).map((p) => ({
          ...p,
          required: p.in === 'path' || !!p.required,
          schema: resolve(p.schema ?? {}),
        })),
        body: body ? resolve(body) : undefined,
      });
    }
  }
  return ops;
}

/** A value the schema accepts (strings from patterns may exceed a length bound: then it is a mutation too). */
export function validValue(schema: Schema, known: Record<string, unknown[]> = {}, name = ''): fc.Arbitrary<unknown> {
  const pool = known[name];
  const own = schemaValue(schema, known);
  return pool?.length
    ? fc.oneof({ arbitrary: fc.constantFrom(...pool), weight: 3 }, { arbitrary: own, weight: 1 })
    : own;
}

function schemaValue(s: Schema, known: Record<string, unknown[]>): fc.Arbitrary<unknown> {
  const value = plainValue(s, known);
  return s.nullable ? fc.oneof({ arbitrary: value, weight: 4 }, { arbitrary: fc.constant(null), weight: 1 }) : value;
}

function plainValue(s: Schema, known: Record<string, unknown[]>): fc.Arbitrary<unknown> {
  if (s.enum) return fc.constantFrom(...s.enum);
  if (s.anyOf ?? s.oneOf) return fc.oneof(...(s.anyOf ?? s.oneOf)!.map((x) => schemaValue(x, known)));
  const num = (k: string) => (typeof s[k] === 'number' ? (s[k] as number) : undefined);
  switch (s.type) {
    case 'integer':
      return fc.integer({
        min: Math.max(num('minimum') ?? -1000, -(2 ** 31)),
        max: Math.min(num('maximum') ?? 1000, 2 ** 31 - 1),
      });
    case 'number':
      return fc.double({ min: num('minimum') ?? -1000, max: num('maximum') ?? 1000, noNaN: true });
    case 'boolean':
      return fc.boolean();
    case 'string': {
      const max = Math.min(num('maxLength') ?? 40, 40);
      const min = Math.min(num('minLength') ?? 0, max);
      if (s.format === 'date-time')
        return fc
          .date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
          .map((d) => d.toISOString());
      if (typeof s.pattern === 'string')
        return fc
          .stringMatching(new RegExp(s.pattern as string), { size: 'xsmall' })
          .map((t) => t.slice(0, num('maxLength') ?? 1000));
      return fc.string({ minLength: min, maxLength: max });
    }
    case 'array': {
      const maxLength = Math.min(num('maxItems') ?? 4, 4);
      const items = schemaValue(s.items ?? {}, known);
      const minLength = Math.min(num('minItems') ?? 0, maxLength);
      return s.uniqueItems
        ? fc.uniqueArray(items, { minLength, maxLength, selector: (v) => JSON.stringify(v) })
        : fc.array(items, { minLength, maxLength });
    }
    case 'object': {
      const props = s.properties ?? {};
      if (Object.keys(props).length === 0)
        return fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 });
      return fc.record(Object.fromEntries(Object.entries(props).map(([k, v]) => [k, validValue(v, known, k)])), {
        requiredKeys: (s.required ?? []).filter((k) => k in props),
      });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

const nested = (depth: number, open: string, close: string, leaf: string) =>
  open.repeat(depth) + leaf + close.repeat(depth);
const cursorOf = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** Values of wrong kinds and the shapes that once reached the database or the stack as a 500. */
export const weirdValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', minLength: 500, maxLength: 5_000 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  {
    arbitrary: fc.constantFrom(
      2147483648,
      1e20,
      -2147483649,
      1e19,
      Number.MAX_SAFE_INTEGER,
      '__proto__',
      '../../etc/passwd',
      '\u0000',
      'a\u0000b',
      '\ud800',
      'x\udfff',
      '😀'.repeat(300),
      '\'; DROP TABLE "Router"; --',
      '9'.repeat(400),
      '9999999999999999999',
      '1e20',
      '-1',
      'NaN',
      '',
      '2025-06-30T23:59:60Z',
      '0000-01-01T00:00:00Z',
      '9999-12-31T23:59:59-01:00',
      '2025-02-30T00:00:00Z',
      cursorOf(['2025-01-01T00:00:00.000Z', 'a\u0000b']),
      cursorOf(['-271821-04-20T00:00:00.000Z', 'x']),
      cursorOf(['0000-01-01T00:00:00.000Z', 'x']),
      cursorOf([8.64e15, 'x']),
      cursorOf({ a: 1 }),
    ),
    weight: 12,
  },
  fc.array(fc.jsonValue({ maxDepth: 3 }), { maxLength: 6 }),
  fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 6 }),
  fc.integer({ min: 20, max: 200 }).map((d) => JSON.parse(nested(d, '{"a":', '}', '1')) as unknown),
);

/** Raw JSON text spliced in place of a field: nesting no JSON.stringify of a value would survive cheaply. */
const deepText = fc.oneof(
  fc.integer({ min: 1_000, max: 20_000 }).map((d) => nested(d, '{"a":', '}', '1')),
  fc.integer({ min: 1_000, max: 20_000 }).map((d) => nested(d, '[', ']', '')),
  fc.constant('"\\ud800"'),
  fc.constant('"a\\u0000b"'),
);

/** Stands in for a spliced field until the body is text. */
const SPLICE = 'splice:7f3a9c';

const wellFormed = (s: string) =>
  s.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');

const asText = (v: unknown) => (typeof v === 'string' ? v : (JSON.stringify(v) ?? ''));

/** A valid request of op (mutation "none"), or one mutated in one place. */
export function requestOf(op: Operation, known: Record<string, unknown[]>): fc.Arbitrary<GeneratedRequest> {
  const paramArbs = Object.fromEntries(
    op.params.map((p) => [`${p.in}:${p.name}`, validValue(p.schema, known, p.name)]),
  );
  const valid = fc.record({
    params: fc.record(paramArbs, { requiredKeys: op.params.filter((p) => p.required).map((p) => `${p.in}:${p.name}`) }),
    body: op.body ? validValue(op.body, known) : fc.constant(undefined),
  });
  const fields = [
    ...op.params.map((p) => `${p.in}:${p.name}`),
    ...Object.keys(op.body?.properties ?? {}).map((k) => `body:${k}`),
  ];
  const mutation = fc.oneof(
    { arbitrary: fc.constant({ kind: 'none' as const }), weight: 3 },
    ...(fields.length
      ? [
          {
            arbitrary: fc.record({
              kind: fc.constant('replace' as const),
              field: fc.constantFrom(...fields),
              value: weirdValue,
            }),
            weight: 5,
          },
          {
            arbitrary: fc.record({ kind: fc.constant('drop' as const), field: fc.constantFrom(...fields) }),
            weight: 1,
          },
        ]
      : []),
    ...(op.body && fields.some((f) => f.startsWith('body:'))
      ? [
          {
            arbitrary: fc.record({
              kind: fc.constant('splice' as const),
              field: fc.constantFrom(...fields.filter((f) => f.startsWith('body:'))),
              text: deepText,
            }),
            weight: 2,
          },
        ]
      : []),
    {
      arbitrary: fc.record({
        kind: fc.constant('extra' as const),
        field: fc.string({ unit: 'binary', minLength: 1, maxLength: 12 }),
        value: weirdValue,
      }),
      weight: 1,
    },
    {
      arbitrary: fc.record({
        kind: fc.constant('raw-body' as const),
        text: fc.oneof(
          fc.string({ unit: 'binary', maxLength: 200 }),
          deepText,
          fc.constant(`"${'x'.repeat(300 * 1024)}"`),
        ),
        contentType: fc.constantFrom(
          'application/json',
          'text/plain',
          'application/x-www-form-urlencoded',
          'multipart/form-data',
        ),
      }),
      weight: 1,
    },
  );
  return fc.tuple(valid, mutation).map(([v, m]) => {
    const params: Record<string, unknown> = { ...v.params };
    let body =
      v.body && typeof v.body === 'object' && !Array.isArray(v.body)
        ? ({ ...(v.body as object) } as Record<string, unknown>)
        : v.body;
    let spliced: string | undefined;
    let raw: { text: string; contentType: string } | undefined;
    const set = (field: string, value: unknown, remove = false) => {
      const [where, ...rest] = field.split(':');
      const key = rest.join(':');
      const target =
        where === 'body'
          ? body && typeof body === 'object'
            ? (body as Record<string, unknown>)
            : (body = {})
          : params;
      const name = where === 'body' ? key : field;
      if (remove) delete (target as Record<string, unknown>)[name];
      else (target as Record<string, unknown>)[name] = value;
    };
    if (m.kind === 'replace') set(m.field, m.value);
    if (m.kind === 'drop') set(m.field, undefined, true);
    if (m.kind === 'splice') {
      set(m.field, SPLICE);
      spliced = m.text;
    }
    if (m.kind === 'extra') set(op.body ? `body:${m.field}` : `query:${m.field}`, m.value);
    if (m.kind === 'raw-body') raw = { text: m.text, contentType: m.contentType };
    const pathParams: Record<string, string> = {};
    const query: Record<string, string> = {};
    for (const [key, value] of Object.entries(params)) {
      const [where, ...rest] = key.split(':');
      if (value === undefined) continue;
      (where === 'path' ? pathParams : query)[rest.join(':')] = wellFormed(asText(value)).slice(0, 2_000);
    }
    let text: { text: string; contentType: string } | undefined = raw;
    if (!raw && op.body && body !== undefined) {
      const json = JSON.stringify(body) ?? 'null';
      text = { text: spliced ? json.replace(JSON.stringify(SPLICE), spliced) : json, contentType: 'application/json' };
    }
    return { op, pathParams, query, body: text, mutation: m.kind };
  });
}

export function urlOf(req: GeneratedRequest): string {
  const path = req.op.path.replace(/\{([^}]+)\}/g, (_m, name: string) =>
    encodeURIComponent(req.pathParams[name] ?? 'x'),
  );
  const qs = new URLSearchParams(Object.entries(req.query)).toString();
  return qs ? `${path}?${qs}` : path;
}
