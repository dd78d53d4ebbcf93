/**
 * The keyset cursor of listings ordered by (createdAt, id): the routers, the commands.
 * Opaque to callers (base64url of the pair), decoded as untrusted input.
 */
export class InvalidCursor extends Error {}

/** Keyset cursor over (createdAt, id): stable under inserts, O(limit) per page at any depth. */
export function encodeCursor(createdAt: Date, id: string): string {
  return Buffer.from(JSON.stringify([createdAt.toISOString(), id])).toString('base64url');
}

/** What encodeCursor writes: Date.prototype.toISOString() of a year PostgreSQL stores. */
const CURSOR_INSTANT = /^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z$/;
/** A row id (a UUID from the database): anything else cannot be one this API returned. */
const CURSOR_ID = /^[A-Za-z0-9-]{1,64}$/;

/**
 * The cursor arrives from the caller, so it is decoded as untrusted data: exactly the pair
 * encodeCursor writes, an instant that round-trips through Date in years 0001-9999 and an id of
 * the id alphabet. Anything else (a NUL in the id, a date PostgreSQL cannot hold) is refused
 * here rather than by the database.
 */
export function decodeCursor(cursor: string): { createdAt: Date; id: string } {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    decoded = undefined;
  }
  if (Array.isArray(decoded) && decoded.length === 2) {
    const [at, id] = decoded as unknown[];
    if (typeof at === 'string' && typeof id === 'string' && CURSOR_INSTANT.test(at) && CURSOR_ID.test(id)) {
      const createdAt = new Date(at);
      if (!Number.isNaN(createdAt.getTime()) && createdAt.toISOString() === at && createdAt.getUTCFullYear() >= 1)
        return { createdAt, id };
    }
  }
  throw new InvalidCursor('is not one this API returned');
}
