/**
 * The spec as the controller will store it: the typed spec with every `default` of the
 * published JSON Schema filled in, and which values came from a default. The controller stores
 * exactly that (PUT /v1/profiles/{name} keeps the output of its validation, not the body as
 * typed), so an operator sees before saving that, say, turning on TTL leaves the IP ID, the
 * timestamp and the SYN window rewrites on too. The defaults are read from the schema the
 * controller publishes, never copied here, so the two cannot disagree.
 */
import { escapePointer, parseJsonSource } from './json-source.js';
import type { JsonSchema } from './schema-check.js';

export interface SpecWithDefaults {
  /** The spec with every default filled in; an object's known properties in the schema's order. */
  spec: unknown;
  /** JSON pointers of the values (not objects) that came from a `default`, not from the text. */
  defaulted: ReadonlySet<string>;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

const clone = <T>(value: T): T => (value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T));

/**
 * Fills in defaults as the controller's validation does (TypeBox's Value.Default): a missing
 * value takes its schema's `default`, and an object, given or defaulted, has its missing
 * properties filled the same way. A value of the wrong type is kept as it is: the schema check
 * reports it.
 */
export function fillDefaults(schema: JsonSchema, value: unknown): SpecWithDefaults {
  const defaulted = new Set<string>();
  const fill = (node: JsonSchema, given: unknown, pointer: string, fromDefault: boolean): unknown => {
    let current = given;
    let defaultedHere = fromDefault;
    if (current === undefined) {
      if (node.default === undefined) return undefined;
      current = clone(node.default);
      defaultedHere = true;
    }
    if (!isObject(current)) {
      if (defaultedHere) defaulted.add(pointer);
      return current;
    }
    const known = node.properties ?? {};
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(known)) {
      const filled = fill(
        child,
        Object.prototype.hasOwnProperty.call(current, key) ? current[key] : undefined,
        `${pointer}/${escapePointer(key)}`,
        defaultedHere,
      );
      if (filled !== undefined) out[key] = filled;
    }
    // Unknown properties stay, so the check still names them.
    for (const [key, child] of Object.entries(current)) {
      if (!Object.prototype.hasOwnProperty.call(known, key)) out[key] = child;
    }
    return out;
  };
  return { spec: fill(schema, value, '', false), defaulted };
}

/** The text a spec is edited, stored and compared as: two-space JSON, one field a line. */
export const specText = (spec: unknown) => `${JSON.stringify(spec, null, 2)}\n`;

export interface SpecLine {
  text: string;
  /** The pointer of the value that starts on this line, if any. */
  pointer: string | null;
  /** The value on this line came from a default. */
  defaulted: boolean;
}

/** The spec with defaults as lines of `specText`, each marked when its value came from a default. */
export function linesWithDefaults({ spec, defaulted }: SpecWithDefaults): SpecLine[] {
  const text = specText(spec).replace(/\n$/, '');
  const byLine = new Map<number, string>();
  // In two-space JSON a line holds one key; the last pointer recorded at a line is the deepest.
  for (const [pointer, line] of parseJsonSource(text).lines) byLine.set(line, pointer);
  return text.split('\n').map((lineText, i) => {
    const pointer = byLine.get(i + 1) ?? null;
    return { text: lineText, pointer, defaulted: pointer !== null && defaulted.has(pointer) };
  });
}
