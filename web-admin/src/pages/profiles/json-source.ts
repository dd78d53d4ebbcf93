/**
 * JSON text read with a map from each value's JSON pointer to the line it starts on, so a
 * validation error (which names a pointer) can be shown at its line in the editor. jsonc-parser
 * (strict JSON: no comments, no trailing comma) gives the offsets of values and of a syntax
 * error, which JSON.parse does not give in every browser.
 */
import { parseTree, printParseErrorCode, type Node, type ParseError } from 'jsonc-parser';

export interface JsonSource {
  value: unknown;
  /** JSON pointer ("" is the document, "/a/0/b") -> 1-based line where its key (or, in an array, its value) starts. */
  lines: Map<string, number>;
}

export class JsonSyntaxError extends Error {
  constructor(
    message: string,
    readonly line: number,
    readonly column: number,
  ) {
    super(`line ${line}, column ${column}: ${message}`);
  }
}

/** A pointer segment as RFC 6901 escapes it. */
export function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** jsonc-parser's error codes in words. */
const SYNTAX_MESSAGES: Record<ReturnType<typeof printParseErrorCode>, string> = {
  InvalidSymbol: 'unexpected character',
  InvalidNumberFormat: 'invalid number',
  PropertyNameExpected: 'expected a property name in quotes',
  ValueExpected: 'expected a value',
  ColonExpected: 'expected ":" after a property name',
  CommaExpected: 'expected "," between two values',
  CloseBraceExpected: 'expected "}" to close the object',
  CloseBracketExpected: 'expected "]" to close the array',
  EndOfFileExpected: 'unexpected text after the end of the document',
  InvalidCommentToken: 'comments are not JSON',
  UnexpectedEndOfComment: 'comments are not JSON',
  UnexpectedEndOfString: 'unterminated string',
  UnexpectedEndOfNumber: 'invalid number',
  InvalidUnicode: 'invalid \\u escape in a string',
  InvalidEscapeCharacter: 'invalid escape in a string',
  InvalidCharacter: 'control character inside a string',
  '<unknown ParseErrorCode>': 'invalid JSON',
};

/** 1-based line and column of `offset`, from the start of each line. */
function positionOf(lineStarts: readonly number[], offset: number): { line: number; column: number } {
  let line = 0;
  while (line + 1 < lineStarts.length && lineStarts[line + 1]! <= offset) line += 1;
  return { line: line + 1, column: offset - lineStarts[line]! + 1 };
}

export function parseJsonSource(text: string): JsonSource {
  const lineStarts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lineStarts.push(i + 1);
  const lineAt = (offset: number) => positionOf(lineStarts, offset).line;
  const fail = (message: string, offset: number): never => {
    const { line, column } = positionOf(lineStarts, offset);
    throw new JsonSyntaxError(message, line, column);
  };

  const errors: ParseError[] = [];
  const tree = parseTree(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  const first = errors[0];
  if (first) {
    const found = first.offset >= text.length ? 'the end of the text' : `"${text[first.offset]}"`;
    fail(`${SYNTAX_MESSAGES[printParseErrorCode(first.error)]}, found ${found}`, first.offset);
  }
  if (!tree) return fail('expected a value', 0);

  const lines = new Map<string, number>();
  const visit = (node: Node, pointer: string) => {
    if (node.type === 'object') {
      const seen = new Set<string>();
      for (const property of node.children ?? []) {
        const [key, value] = property.children ?? [];
        if (!key || !value) continue;
        const name = key.value as string;
        // JSON.parse keeps the last of two equal keys; an editor should say the first is lost.
        if (seen.has(name)) fail(`duplicate property "${name}"`, key.offset);
        seen.add(name);
        const child = `${pointer}/${escapePointer(name)}`;
        lines.set(child, lineAt(key.offset));
        visit(value, child);
      }
    } else if (node.type === 'array') {
      (node.children ?? []).forEach((item, n) => {
        lines.set(`${pointer}/${n}`, lineAt(item.offset));
        visit(item, `${pointer}/${n}`);
      });
    }
  };
  lines.set('', lineAt(tree.offset));
  visit(tree, '');
  // The value as JSON.parse builds it ("__proto__" an own property, never the prototype).
  return { value: JSON.parse(text) as unknown, lines };
}

/**
 * The line to show an error about `pointer` at: its own line, or the nearest enclosing
 * value's (a missing property is reported on the object that lacks it).
 */
export function lineOfPointer(lines: ReadonlyMap<string, number>, pointer: string): number {
  let p = pointer;
  for (;;) {
    const found = lines.get(p);
    if (found !== undefined) return found;
    if (p === '') return 1;
    p = p.slice(0, p.lastIndexOf('/'));
  }
}
