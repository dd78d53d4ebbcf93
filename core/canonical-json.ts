/**
 * JSON with object keys sorted at every depth (arrays keep their order) and undefined
 * members left out: one spelling per value, so equal values hash and compare equal. Used for
 * plan hashes, the audit chain's event hashes and "is this spec unchanged" checks. Dates are
 * their ISO string and bigints their decimal string, as they are once stored as JSON.
 *
 * Its output is part of stored audit hashes: it must never change for a given value.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'bigint') return `"${value.toString()}"`;
  if (typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i === 0 ? '' : ',') + canonicalJson(value[i]);
    return `${out}]`;
  }
  if (value instanceof Date) return JSON.stringify(value.toISOString());
  // Plain loops and one string rather than entries/filter/map/join. Why: every agent hashes each
  // plan with it and the controller each audit event; measured in docs/BENCHMARKS.md#canonical-json.
  const record = value as Record<string, unknown>;
  // The default sort compares UTF-16 code units, as `<` on strings does.
  const keys = Object.keys(record).sort();
  let out = '{';
  let first = true;
  for (const key of keys) {
    const member = record[key];
    if (member === undefined) continue;
    out += `${first ? '' : ','}${JSON.stringify(key)}:${canonicalJson(member)}`;
    first = false;
  }
  return `${out}}`;
}
