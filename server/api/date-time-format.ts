import { fullFormats } from 'ajv-formats/dist/formats.js';

const rfc3339 = fullFormats['date-time'] as { validate: (value: string) => boolean };

/** The first instant of year 1: an earlier one would be year 0 or BC, which the API has no use for. */
const EARLIEST_MS = Date.parse('0001-01-01T00:00:00Z');

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
  return Number.isFinite(ms) && ms >= EARLIEST_MS;
}
