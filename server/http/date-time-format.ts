import { fullFormats } from 'ajv-formats/dist/formats.js';

const rfc3339 = fullFormats['date-time'] as { validate: (value: string) => boolean };

/** Years 1 to 9999: earlier is year 0 or BC, later is past what a PostgreSQL timestamp's text form round-trips. */
const EARLIEST_MS = Date.parse('0001-01-01T00:00:00Z');
const LATEST_MS = Date.parse('9999-12-31T23:59:59.999Z');

/**
 * `format: "date-time"` as this API means it: RFC 3339 text that is also a real instant.
 * RFC 3339 admits a leap second (23:59:60) and the year 0000, neither of which a JavaScript
 * Date or a PostgreSQL timestamp can hold; accepted by the schema they would only fail later,
 * inside a handler (or midway through a streamed response), instead of as a 400 naming the field.
 */
export function isRealInstant(value: string): boolean {
  if (!rfc3339.validate(value)) return false;
  if (/[Tt ]\d\d:\d\d:60/.test(value)) return false;
  const ms = Date.parse(value);
  return Number.isFinite(ms) && ms >= EARLIEST_MS && ms <= LATEST_MS;
}
