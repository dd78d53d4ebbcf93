/**
 * Everything wrong with the editor's text, each at a line: a syntax error where it is, a
 * schema problem at the line of the value it names, an error the controller answered (its
 * `details` name `/spec/...` pointers) the same way.
 */
import { JsonSyntaxError, lineOfPointer, parseJsonSource } from './json-source.js';
import { schemaProblems, type SchemaCheck } from './schema-check.js';

export interface SpecProblem {
  line: number;
  /** The JSON pointer inside the spec, "" for a syntax error. */
  pointer: string;
  message: string;
}

export type SpecReading =
  | { ok: true; spec: unknown; lines: Map<string, number> }
  | {
      ok: false;
      problems: SpecProblem[];
      lines: Map<string, number> | null;
      /** The document when the text parsed (the schema refused it), so the form can still edit it. */
      parsed: { value: unknown } | null;
    };

export function readSpec(text: string, check: SchemaCheck | null): SpecReading {
  let source;
  try {
    source = parseJsonSource(text);
  } catch (err) {
    if (err instanceof JsonSyntaxError)
      return {
        ok: false,
        lines: null,
        parsed: null,
        problems: [{ line: err.line, pointer: '', message: `${err.message}` }],
      };
    throw err;
  }
  const problems = check ? schemaProblems(check, source.value) : [];
  if (problems.length === 0) return { ok: true, spec: source.value, lines: source.lines };
  return {
    ok: false,
    lines: source.lines,
    parsed: { value: source.value },
    problems: problems
      .map((p) => ({
        line: lineOfPointer(source.lines, p.pointer),
        pointer: p.pointer,
        message: `${p.pointer || 'the spec'} ${p.message}`,
      }))
      .sort((a, b) => a.line - b.line),
  };
}

/** The controller's refusal of a save, its field errors placed at their lines. */
export function serverProblems(
  details: readonly { path?: string | null; message?: string | null }[],
  lines: ReadonlyMap<string, number> | null,
): SpecProblem[] {
  return details
    .filter((d) => d.message && d.path?.startsWith('/spec'))
    .map((d) => {
      const pointer = d.path!.slice('/spec'.length);
      return {
        line: lines ? lineOfPointer(lines, pointer) : 1,
        pointer,
        message: `${pointer || 'the spec'} ${d.message}`,
      };
    });
}
