/**
 * JSON text read with a map from each value's JSON pointer to the line it starts on, so a
 * validation error (which names a pointer) can be shown at its line in the editor. A small
 * parser of its own: JSON.parse gives neither positions of values nor, in every browser, the
 * line of a syntax error.
 */

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

export function parseJsonSource(text: string): JsonSource {
  const lines = new Map<string, number>();
  let i = 0;
  let line = 1;
  let lineStart = 0;

  const fail = (message: string): never => {
    throw new JsonSyntaxError(message, line, i - lineStart + 1);
  };
  const skip = () => {
    for (;;) {
      const c = text[i];
      if (c === '\n') {
        line += 1;
        i += 1;
        lineStart = i;
      } else if (c === ' ' || c === '\t' || c === '\r') i += 1;
      else return;
    }
  };
  const describe = () => (i >= text.length ? 'the end of the text' : `"${text[i]}"`);

  const string = (): string => {
    i += 1; // the opening quote
    let out = '';
    for (;;) {
      if (i >= text.length) fail('unterminated string');
      const c = text[i]!;
      if (c === '"') {
        i += 1;
        return out;
      }
      if (c === '\n') fail('line break inside a string');
      if (c === '\\') {
        const e = text[i + 1];
        const simple: Record<string, string> = {
          '"': '"',
          '\\': '\\',
          '/': '/',
          b: '\b',
          f: '\f',
          n: '\n',
          r: '\r',
          t: '\t',
        };
        if (e !== undefined && e in simple) {
          out += simple[e];
          i += 2;
        } else if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) {
          out += String.fromCharCode(parseInt(text.slice(i + 2, i + 6), 16));
          i += 6;
        } else fail('invalid escape in a string');
      } else {
        out += c;
        i += 1;
      }
    }
  };

  const value = (pointer: string, recordLine: boolean): unknown => {
    skip();
    if (recordLine) lines.set(pointer, line);
    const c = text[i];
    if (c === '{') {
      i += 1;
      const out: Record<string, unknown> = {};
      skip();
      if (text[i] === '}') {
        i += 1;
        return out;
      }
      for (;;) {
        skip();
        if (text[i] !== '"') fail(`expected a property name in quotes, found ${describe()}`);
        const keyLine = line;
        const key = string();
        const child = `${pointer}/${escapePointer(key)}`;
        if (Object.prototype.hasOwnProperty.call(out, key)) fail(`duplicate property "${key}"`);
        lines.set(child, keyLine);
        skip();
        if (text[i] !== ':') fail(`expected ":" after "${key}", found ${describe()}`);
        i += 1;
        Object.defineProperty(out, key, {
          value: value(child, false),
          enumerable: true,
          writable: true,
          configurable: true,
        });
        skip();
        if (text[i] === ',') {
          i += 1;
          continue;
        }
        if (text[i] === '}') {
          i += 1;
          return out;
        }
        fail(`expected "," or "}" after a property value, found ${describe()}`);
      }
    }
    if (c === '[') {
      i += 1;
      const out: unknown[] = [];
      skip();
      if (text[i] === ']') {
        i += 1;
        return out;
      }
      for (;;) {
        out.push(value(`${pointer}/${out.length}`, true));
        skip();
        if (text[i] === ',') {
          i += 1;
          continue;
        }
        if (text[i] === ']') {
          i += 1;
          return out;
        }
        fail(`expected "," or "]" after an array item, found ${describe()}`);
      }
    }
    if (c === '"') return string();
    const literal = /^(?:true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(text.slice(i, i + 64));
    if (!literal) return fail(`expected a value, found ${describe()}`);
    i += literal[0].length;
    const word = literal[0];
    return word === 'true' ? true : word === 'false' ? false : word === 'null' ? null : Number(word);
  };

  const result = value('', true);
  skip();
  if (i < text.length) fail(`unexpected ${describe()} after the end of the document`);
  return { value: result, lines };
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
