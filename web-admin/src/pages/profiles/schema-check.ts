/**
 * A validator for the part of JSON Schema the controller's profile spec uses (type, enum,
 * const, anyOf, properties, required, additionalProperties: false, minimum/maximum, string
 * and array bounds, items). The schema itself comes from the controller's OpenAPI document,
 * so the editor checks exactly what the API will; the API still has the last word on save.
 */
import { escapePointer } from './json-source.js';

export interface JsonSchema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  description?: string;
  /** The value the controller fills in when the field is missing (spec-defaults.ts). */
  default?: unknown;
}

export interface SchemaProblem {
  /** JSON pointer of the offending value ("" is the document). */
  pointer: string;
  message: string;
}

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function typeMatches(wanted: string, value: unknown): boolean {
  const actual = typeOf(value);
  return wanted === actual || (wanted === 'number' && actual === 'integer');
}

const show = (v: unknown) => JSON.stringify(v);

/** The allowed values when every branch of an anyOf is a single enum or const (how the spec spells enums). */
function choicesOf(branches: JsonSchema[]): unknown[] | null {
  const out: unknown[] = [];
  for (const b of branches) {
    if (b.const !== undefined) out.push(b.const);
    else if (b.enum && b.enum.length === 1) out.push(b.enum[0]);
    else return null;
  }
  return out;
}

export function checkAgainstSchema(value: unknown, schema: JsonSchema, pointer = ''): SchemaProblem[] {
  const problems: SchemaProblem[] = [];
  const add = (message: string, at = pointer) => problems.push({ pointer: at, message });

  if (schema.anyOf) {
    const choices = choicesOf(schema.anyOf);
    if (choices) {
      if (!choices.some((c) => c === value)) add(`must be one of ${choices.map(show).join(', ')}`);
    } else if (!schema.anyOf.some((b) => checkAgainstSchema(value, b, pointer).length === 0)) {
      add('matches none of the allowed forms');
    }
  }
  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (!types.some((t) => typeMatches(t, value))) {
      add(
        `must be ${types.map((t) => (t === 'integer' ? 'an integer' : `a${/^[aeiou]/.test(t) ? 'n' : ''} ${t}`)).join(' or ')}`,
      );
      return problems;
    }
  }
  if (schema.const !== undefined && value !== schema.const) add(`must be ${show(schema.const)}`);
  if (schema.enum && !schema.enum.some((e) => e === value)) add(`must be one of ${schema.enum.map(show).join(', ')}`);

  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum) add(`must be at least ${schema.minimum}`);
    if (schema.maximum !== undefined && value > schema.maximum) add(`must be at most ${schema.maximum}`);
    if (schema.exclusiveMinimum !== undefined && value <= schema.exclusiveMinimum)
      add(`must be more than ${schema.exclusiveMinimum}`);
    if (schema.exclusiveMaximum !== undefined && value >= schema.exclusiveMaximum)
      add(`must be less than ${schema.exclusiveMaximum}`);
  }
  if (typeof value === 'string') {
    if (schema.minLength !== undefined && value.length < schema.minLength)
      add(`must have at least ${schema.minLength} characters`);
    if (schema.maxLength !== undefined && value.length > schema.maxLength)
      add(`must have at most ${schema.maxLength} characters`);
    if (schema.pattern !== undefined && !new RegExp(schema.pattern, 'u').test(value))
      add(`must match ${schema.pattern}`);
  }
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems)
      add(`must have at least ${schema.minItems} items`);
    if (schema.maxItems !== undefined && value.length > schema.maxItems)
      add(`must have at most ${schema.maxItems} items`);
    if (schema.items)
      value.forEach((item, n) => problems.push(...checkAgainstSchema(item, schema.items!, `${pointer}/${n}`)));
  }
  if (typeOf(value) === 'object') {
    const object = value as Record<string, unknown>;
    for (const key of schema.required ?? []) {
      if (!(key in object)) add(`must have the property "${key}"`);
    }
    const known = schema.properties ?? {};
    for (const [key, child] of Object.entries(object)) {
      const at = `${pointer}/${escapePointer(key)}`;
      const sub = Object.prototype.hasOwnProperty.call(known, key) ? known[key] : undefined;
      if (sub) problems.push(...checkAgainstSchema(child, sub, at));
      else if (schema.additionalProperties === false) {
        const names = Object.keys(known);
        add(`unknown property "${key}"${names.length ? ` (known here: ${names.join(', ')})` : ''}`, at);
      } else if (typeof schema.additionalProperties === 'object') {
        problems.push(...checkAgainstSchema(child, schema.additionalProperties, at));
      }
    }
  }
  return problems;
}
