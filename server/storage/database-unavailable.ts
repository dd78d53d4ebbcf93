/**
 * Whether an error means "the database cannot be reached right now" (restarting, network
 * lost, pool exhausted) rather than "this query is wrong": the first is worth retrying and
 * must not close an agent's stream; the second is a bug to report.
 */
const PRISMA_UNAVAILABLE = new Set([
  'P1001', // can't reach database server
  'P1002', // reached but timed out
  'P1008', // operation timed out
  'P1017', // server closed the connection
  'P2024', // timed out fetching a connection from the pool
]);
const ADAPTER_UNAVAILABLE = new Set([
  'DatabaseNotReachable',
  'ConnectionClosed',
  'SocketTimeout',
  'TooManyConnections',
  'TransactionAlreadyClosed',
]);
const SOCKET_ERRORS = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH']);
/** PostgreSQL SQLSTATEs: connection exceptions (08) and operator intervention (57P01-57P03). */
const PG_UNAVAILABLE = /^(08\d{3}|57P0[123])$/;

export function isDatabaseUnavailable(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
    const o = e as {
      code?: unknown;
      kind?: unknown;
      meta?: { driverAdapterError?: { cause?: { kind?: unknown; originalCode?: unknown } } };
      cause?: unknown;
      message?: unknown;
    };
    if (typeof o.code === 'string' && (PRISMA_UNAVAILABLE.has(o.code) || SOCKET_ERRORS.has(o.code))) return true;
    if (typeof o.code === 'string' && PG_UNAVAILABLE.test(o.code)) return true;
    // A DriverAdapterError's cause is { kind }; Prisma's own errors carry it in meta.
    if (typeof o.kind === 'string' && ADAPTER_UNAVAILABLE.has(o.kind)) return true;
    const cause = o.meta?.driverAdapterError?.cause;
    if (cause && typeof cause.kind === 'string' && ADAPTER_UNAVAILABLE.has(cause.kind)) return true;
    if (cause && typeof cause.originalCode === 'string' && PG_UNAVAILABLE.test(cause.originalCode)) return true;
    if (
      typeof o.message === 'string' &&
      /Connection terminated|timeout exceeded when trying to connect/.test(o.message)
    )
      return true;
    e = o.cause;
  }
  return false;
}

/** The first wait before trying again, doubled each time up to the longest. */
const RETRY_FIRST_MS = 250;
const RETRY_LONGEST_MS = 5_000;
/** How long work waits for the database unless told otherwise. */
const DEFAULT_GIVE_UP_MS = 120_000;

/**
 * Runs `work` again while it fails only because the database is away (after 250 ms, doubling
 * up to 5 s between tries), until it succeeds, fails for another reason, `keepTrying` says no,
 * or `giveUpAfterMs` (120 s) has passed; then its last error is thrown. `onWait` is called
 * before the first wait.
 */
export async function retryWhileDatabaseAway<T>(
  work: () => Promise<T>,
  options: { giveUpAfterMs?: number; keepTrying?: () => boolean; onWait?: (err: unknown) => void } = {},
): Promise<T> {
  const giveUpAt = Date.now() + (options.giveUpAfterMs ?? DEFAULT_GIVE_UP_MS);
  for (let attempt = 0; ; attempt++) {
    try {
      return await work();
    } catch (err) {
      if (!isDatabaseUnavailable(err) || options.keepTrying?.() === false || Date.now() >= giveUpAt) throw err;
      if (attempt === 0) options.onWait?.(err);
      await new Promise((r) => setTimeout(r, Math.min(RETRY_LONGEST_MS, RETRY_FIRST_MS * 2 ** attempt)));
    }
  }
}
