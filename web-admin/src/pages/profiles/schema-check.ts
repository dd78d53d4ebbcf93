/**
 * The profile spec checked against the controller's published JSON Schema by ajv (compiled at
 * build time: spec-validator.generated.js), its errors worded for the editor: a JSON pointer
 * and a message that says what is allowed. The API still has the last word on save.
 */
import type { ErrorObject } from 'ajv';
import { escapePointer } from './json-source.js';

/** The JSON Schema keywords the console reads itself (the form, the defaults). */
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

/** An ajv validate function compiled with SPEC_AJV_OPTIONS (web-admin/scripts/spec-validator.ts). */
export interface SchemaCheck {
  (value: unknown): boolean;
  errors?: ErrorObject[] | null;
}

export interface SchemaProblem {
  /** JSON pointer of the offending value ("" is the document). */
  pointer: string;
  message: string;
}

const show = (v: unknown) => JSON.stringify(v);
const article = (type: string) => (type === 'integer' ? 'an integer' : `a${/^[aeiou]/.test(type) ? 'n' : ''} ${type}`);

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

function messageOf(error: ErrorObject): string {
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'type':
      return `must be ${String(p.type).split(',').map(article).join(' or ')}`;
    case 'enum':
      return `must be one of ${(p.allowedValues as unknown[]).map(show).join(', ')}`;
    case 'const':
      return `must be ${show(p.allowedValue)}`;
    case 'anyOf': {
      const choices = choicesOf(error.schema as JsonSchema[]);
      return choices ? `must be one of ${choices.map(show).join(', ')}` : 'matches none of the allowed forms';
    }
    case 'required':
      return `must have the property "${String(p.missingProperty)}"`;
    case 'additionalProperties': {
      const names = Object.keys((error.parentSchema as JsonSchema).properties ?? {});
      return `unknown property "${String(p.additionalProperty)}"${names.length ? ` (known here: ${names.join(', ')})` : ''}`;
    }
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum': {
      const words = { '>=': 'at least', '<=': 'at most', '>': 'more than', '<': 'less than' };
      return `must be ${words[p.comparison as keyof typeof words]} ${String(p.limit)}`;
    }
    case 'minLength':
      return `must have at least ${String(p.limit)} characters`;
    case 'maxLength':
      return `must have at most ${String(p.limit)} characters`;
    case 'minItems':
      return `must have at least ${String(p.limit)} items`;
    case 'maxItems':
      return `must have at most ${String(p.limit)} items`;
    case 'pattern':
      return `must match ${String(p.pattern)}`;
    default:
      return error.message ?? `fails "${error.keyword}"`;
  }
}

/**
 * What is wrong with `value`, one problem per offending value and rule. The errors ajv reports
 * inside an anyOf (one per branch) are folded into the anyOf's own, and a value of the wrong
 * type is reported for its type only, as the branches and the other rules say nothing more.
 */
export function schemaProblems(check: SchemaCheck, value: unknown): SchemaProblem[] {
  if (check(value)) return [];
  const errors = check.errors ?? [];
  const folded = errors.filter((e) => e.keyword === 'anyOf' || e.keyword === 'type');
  const kept = errors.filter(
    (e) =>
      !folded.some((f) => {
        if (f === e) return false;
        if (f.keyword === 'anyOf')
          return (
            (e.instancePath === f.instancePath || e.instancePath.startsWith(`${f.instancePath}/`)) &&
            e.schemaPath.startsWith(`${f.schemaPath}/`)
          );
        const scope = f.schemaPath.slice(0, -'/type'.length);
        return e.instancePath === f.instancePath && e.schemaPath.startsWith(`${scope}/`);
      }),
  );
  return kept.map((e) => ({
    pointer:
      e.keyword === 'additionalProperties'
        ? `${e.instancePath}/${escapePointer(String((e.params as { additionalProperty: string }).additionalProperty))}`
        : e.instancePath,
    message: messageOf(e),
  }));
}
