/** One difference between two JSON documents, addressed by JSON pointer. */
export interface JsonChange {
  path: string;
  op: 'add' | 'remove' | 'replace';
  before?: unknown;
  after?: unknown;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const escape = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * The structured diff an audit event carries: leaves that were added, removed or replaced.
 * Arrays are compared as values (a changed tag list is one replace), which is what an
 * operator reading "tags: [a] -> [a, b]" expects.
 */
export function jsonDiff(before: unknown, after: unknown, path = ''): JsonChange[] {
  if (isObject(before) && isObject(after)) {
    const changes: JsonChange[] = [];
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    for (const key of keys) {
      const p = `${path}/${escape(key)}`;
      if (!(key in after)) changes.push({ path: p, op: 'remove', before: before[key] });
      else if (!(key in before)) changes.push({ path: p, op: 'add', after: after[key] });
      else changes.push(...jsonDiff(before[key], after[key], p));
    }
    return changes;
  }
  if (JSON.stringify(before) === JSON.stringify(after)) return [];
  if (before === undefined) return [{ path: path || '/', op: 'add', after }];
  if (after === undefined) return [{ path: path || '/', op: 'remove', before }];
  return [{ path: path || '/', op: 'replace', before, after }];
}
