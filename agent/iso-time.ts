/**
 * `Date.prototype.toISOString()`, same output (years 0 to 9999), without V8's detour through
 * ICU: this V8 builds every date string, ISO ones included, after looking up the local time
 * zone's display name, and the first lookup loads ICU's time zone names for the rest of the
 * process. The getUTC* accessors need no ICU. Why: the idle agent's RSS budget; measured in
 * docs/BENCHMARKS.md#agent-memory.
 */
export function isoTime(date: Date = new Date()): string {
  const year = date.getUTCFullYear();
  if (!(year >= 0 && year <= 9999)) return date.toISOString(); // the ±YYYYYY forms, and RangeError for an invalid date
  const p = (n: number, width = 2) => String(n).padStart(width, '0');
  return `${p(year, 4)}-${p(date.getUTCMonth() + 1)}-${p(date.getUTCDate())}T${p(date.getUTCHours())}:${p(date.getUTCMinutes())}:${p(date.getUTCSeconds())}.${p(date.getUTCMilliseconds(), 3)}Z`;
}
