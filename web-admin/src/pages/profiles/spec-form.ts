/**
 * The form beside the spec's JSON: one switch per rewrite program with its settings, then the
 * spec's other fields. A field is a JSON pointer into the spec; its kind, bounds, choices,
 * default and description come from the published schema, so only the layout lives here.
 * Changing a field writes that one value into the document the text holds (and "use default"
 * removes it), so the form and the JSON edit the same spec both ways.
 */
import { escapePointer } from './json-source.js';
import type { JsonSchema } from './schema-check.js';

export interface SpecFieldDef {
  pointer: string;
  label: string;
}

export interface RewriteProgramDef {
  /** The program's fixed name, as the plan, the datapath and docs/DOMAIN.md name it. */
  program: string;
  /** The spec's switch that turns the program on. */
  enabled: string;
  settings: readonly SpecFieldDef[];
}

/** The four TC egress rewrites (core/programs.ts), in the order docs/DOMAIN.md lists them. */
export const REWRITE_PROGRAMS: readonly RewriteProgramDef[] = [
  {
    program: 'set_ip_ttl',
    enabled: '/l3Rewrite/ttl/enabled',
    settings: [
      { pointer: '/l3Rewrite/ttl/value', label: 'TTL value' },
      { pointer: '/l3Rewrite/ipv6HopLimit', label: 'IPv6 hop limit too' },
    ],
  },
  { program: 'set_ip_id_zero', enabled: '/l3Rewrite/ipid', settings: [] },
  {
    program: 'set_tcp_syn_window',
    enabled: '/l3Rewrite/tcpwin/enabled',
    settings: [{ pointer: '/l3Rewrite/tcpwin/value', label: 'SYN window value' }],
  },
  { program: 'clear_tcp_syn_ts', enabled: '/l3Rewrite/tcpts', settings: [] },
];

/** The spec's fields besides the programs. */
export const OTHER_FIELDS: readonly SpecFieldDef[] = [
  { pointer: '/l3Rewrite/ebpf', label: 'eBPF datapath' },
  { pointer: '/flowOffload/mode', label: 'Offload mode' },
  { pointer: '/conflictPolicy', label: 'Conflict policy' },
  { pointer: '/commitConfirm/windowSeconds', label: 'Commit-confirm window (seconds)' },
  { pointer: '/drift/policy', label: 'Drift policy' },
  { pointer: '/drift/intervalSeconds', label: 'Drift check interval (seconds)' },
];

/** Left to the text: the format version, which has a single value. */
export const TEXT_ONLY_FIELDS: readonly string[] = ['/schemaVersion'];

/** Every pointer the form edits. */
export const FORM_POINTERS: readonly string[] = [
  ...REWRITE_PROGRAMS.flatMap((p) => [p.enabled, ...p.settings.map((s) => s.pointer)]),
  ...OTHER_FIELDS.map((f) => f.pointer),
];

export type FieldModel =
  | { kind: 'switch'; default: unknown; description?: string }
  | { kind: 'integer'; default: unknown; description?: string; min?: number; max?: number }
  | { kind: 'choice'; default: unknown; description?: string; choices: string[] };

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** The segments of a JSON pointer, unescaped ("/a~1b/c" -> ["a/b", "c"]). */
export function pointerSegments(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

const pointerOf = (segments: readonly string[]) => segments.map((s) => `/${escapePointer(s)}`).join('');

/** The schema of the value at `pointer`, through `properties`; null where the schema has none. */
export function schemaAt(schema: JsonSchema, pointer: string): JsonSchema | null {
  let node: JsonSchema | undefined = schema;
  for (const segment of pointerSegments(pointer)) {
    const properties: Record<string, JsonSchema> | undefined = node.properties;
    node = properties && Object.prototype.hasOwnProperty.call(properties, segment) ? properties[segment] : undefined;
    if (!node) return null;
  }
  return node;
}

/** How the form shows the field at `pointer`, read from its schema; null for a kind it has no control for. */
export function fieldModel(schema: JsonSchema, pointer: string): FieldModel | null {
  const node = schemaAt(schema, pointer);
  if (!node) return null;
  const common = { default: node.default, description: node.description };
  // The spec spells an enum as anyOf single values; the OpenAPI document writes each as a one-item enum.
  const choices = node.anyOf?.map((b) => (b.const !== undefined ? b.const : b.enum?.length === 1 ? b.enum[0] : null));
  if (choices && choices.length > 0 && choices.every((c) => typeof c === 'string')) {
    return { kind: 'choice', ...common, choices: choices as string[] };
  }
  if (node.type === 'boolean') return { kind: 'switch', ...common };
  if (node.type === 'integer') return { kind: 'integer', ...common, min: node.minimum, max: node.maximum };
  return null;
}

/** The pointers of the schema's values that are not objects: what a complete form has a control for. */
export function leafPointers(schema: JsonSchema, pointer = ''): string[] {
  if (!schema.properties) return [pointer];
  return Object.entries(schema.properties).flatMap(([key, child]) =>
    leafPointers(child, `${pointer}/${escapePointer(key)}`),
  );
}

export function valueAt(document: unknown, pointer: string): unknown {
  let node = document;
  for (const segment of pointerSegments(pointer)) {
    if (!isObject(node) || !Object.prototype.hasOwnProperty.call(node, segment)) return undefined;
    node = node[segment];
  }
  return node;
}

/**
 * Why the form cannot edit this document, or null when it can: it must be an object, and so
 * must every enclosing value of a field that is there (a missing one is created on write).
 */
export function formBlocker(document: unknown): string | null {
  if (!isObject(document)) return 'the spec is not a JSON object';
  for (const pointer of FORM_POINTERS) {
    const segments = pointerSegments(pointer);
    for (let n = 1; n < segments.length; n += 1) {
      const enclosing = valueAt(document, pointerOf(segments.slice(0, n)));
      if (enclosing !== undefined && !isObject(enclosing)) return `${pointerOf(segments.slice(0, n))} is not an object`;
    }
  }
  return null;
}

/** A copy of `document` with `value` at `pointer` (missing objects on the way are created); the rest kept as is. */
export function withValue(document: unknown, pointer: string, value: unknown): Record<string, unknown> {
  const segments = pointerSegments(pointer);
  const set = (node: unknown, at: number): Record<string, unknown> => {
    if (node !== undefined && !isObject(node)) throw new Error(`${pointerOf(segments.slice(0, at))} is not an object`);
    const copy: Record<string, unknown> = { ...(node ?? {}) };
    const key = segments[at]!;
    copy[key] = at === segments.length - 1 ? value : set(copy[key], at + 1);
    return copy;
  };
  return set(document, 0);
}

/** A copy of `document` without the value at `pointer`, so the controller fills in its default. */
export function withoutValue(document: unknown, pointer: string): unknown {
  const segments = pointerSegments(pointer);
  const drop = (node: unknown, at: number): unknown => {
    if (!isObject(node)) return node;
    const key = segments[at]!;
    if (!Object.prototype.hasOwnProperty.call(node, key)) return node;
    const copy: Record<string, unknown> = { ...node };
    if (at === segments.length - 1) delete copy[key];
    else copy[key] = drop(copy[key], at + 1);
    return copy;
  };
  return drop(document, 0);
}

/** A value as the form's hints say it: a switch is on or off, anything else as JSON. */
export function describeValue(value: unknown): string {
  if (value === true) return 'on';
  if (value === false) return 'off';
  return typeof value === 'string' ? value : JSON.stringify(value);
}
