/**
 * A fleet directory as the CLI reads it: every `*.yaml` / `*.yml` file under it (sorted by path,
 * so the order and the errors are the same on every machine), each holding one or more YAML
 * documents. Each document keeps where it came from, so an error the controller reports for
 * `/documents/3/spec/...` is shown at its file, line and column.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { isCollection, LineCounter, parseAllDocuments, type Document } from 'yaml';

export interface FleetDocument {
  /** Relative to the directory given. */
  file: string;
  /** The parsed YAML document: node ranges give lines. */
  yaml: Document;
  lines: LineCounter;
  value: unknown;
}

/** A document error placed in its file: `file:line:col: message`. */
export class FleetFileError extends Error {
  constructor(readonly problems: { file: string; line: number; col: number; message: string }[]) {
    super(problems.map((p) => `${p.file}:${p.line}:${p.col}: ${p.message}`).join('\n'));
  }
}

const YAML_FILE = /\.ya?ml$/i;

async function yamlFiles(dir: string, under = ''): Promise<string[]> {
  const entries = await readdir(path.join(dir, under), { withFileTypes: true });
  const out: string[] = [];
  for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    // .git, .github and the like hold no fleet documents (a CI workflow is YAML too).
    if (e.name.startsWith('.')) continue;
    const rel = path.join(under, e.name);
    if (e.isDirectory()) out.push(...(await yamlFiles(dir, rel)));
    else if (e.isFile() && YAML_FILE.test(e.name)) out.push(rel);
  }
  return out;
}

/** Reads and parses every document under `dir`; a YAML syntax error fails with its place. */
export async function readFleetDirectory(dir: string): Promise<FleetDocument[]> {
  const info = await stat(dir).catch(() => null);
  if (!info?.isDirectory()) throw new FleetFileError([{ file: dir, line: 0, col: 0, message: 'not a directory' }]);
  const documents: FleetDocument[] = [];
  const problems: FleetFileError['problems'] = [];
  for (const file of await yamlFiles(dir)) {
    const text = await readFile(path.join(dir, file), 'utf8');
    const lines = new LineCounter();
    for (const yaml of parseAllDocuments(text, { lineCounter: lines, prettyErrors: false })) {
      if ('empty' in yaml && yaml.empty) continue;
      const doc = yaml as Document;
      for (const e of doc.errors) {
        const at = lines.linePos(e.pos[0]);
        problems.push({ file, line: at.line, col: at.col, message: e.message.split('\n')[0]! });
      }
      // A file may end with `---` or hold only comments: nothing to apply there.
      if (doc.errors.length || doc.contents === null) continue;
      documents.push({ file, yaml: doc, lines, value: doc.toJS({ maxAliasCount: 100 }) });
    }
  }
  if (problems.length) throw new FleetFileError(problems);
  return documents;
}

/**
 * Where a JSON pointer into a document lands in its file: the node itself, or the deepest
 * parent present (a missing required field is reported on the object that lacks it).
 */
export function locate(doc: FleetDocument, pointer: string): { line: number; col: number } {
  const keys = pointer
    .split('/')
    .slice(1)
    .filter((k) => k !== '')
    .map((k) => k.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((k) => (/^\d+$/.test(k) ? Number(k) : k));
  let node: unknown = doc.yaml.contents;
  let found = node;
  for (const key of keys) {
    if (!isCollection(node)) break;
    const next = node.get(key, true);
    if (next === undefined) {
      // The key itself, when the value is what is wrong (an unknown field).
      const pair = (node.items as { key?: { value?: unknown; range?: [number, number, number] } }[]).find(
        (p) => p.key && (p.key as { value?: unknown }).value === key,
      );
      if (pair?.key?.range) found = pair.key;
      break;
    }
    node = next;
    found = next;
  }
  const range = (found as { range?: [number, number, number] } | null)?.range;
  return range ? doc.lines.linePos(range[0]) : { line: 1, col: 1 };
}

/** The controller's errors (`/documents/{i}/...`) placed at their files and lines. */
export function placeErrors(
  documents: FleetDocument[],
  details: { path: string; message: string }[],
): FleetFileError['problems'] {
  return details.map((d) => {
    const m = /^\/documents\/(\d+)(\/.*)?$/.exec(d.path);
    const doc = m ? documents[Number(m[1])] : undefined;
    if (!doc) return { file: '(request)', line: 0, col: 0, message: `${d.path}: ${d.message}` };
    const field = m![2] ?? '';
    const at = locate(doc, field);
    return { file: doc.file, line: at.line, col: at.col, message: `${field || '/'} ${d.message}` };
  });
}
