import { StorageError } from './storage-error.js';

export interface PostgresLocation {
  /** The URL exactly as given, for the driver only: it may hold a password. */
  connectionString: string;
  /** host:port (or socket directory), safe to print. */
  where: string;
  database: string;
  user: string;
  /** The URL with any password replaced by "***", safe to log. */
  redacted: string;
}

const invalid = (why: string) =>
  new StorageError(
    `DATABASE_URL is not a valid PostgreSQL URL (${why}); expected postgresql://user:password@host:5432/database.`,
    'invalid_url',
  );

/**
 * Validates DATABASE_URL up front so a typo is reported as such rather than as a confusing
 * driver error. The URL parser's own errors quote the whole input, password included, so they
 * are never passed on.
 */
export function parseDatabaseUrl(databaseUrl: string): PostgresLocation {
  let url: URL;
  try {
    url = new URL(databaseUrl);
  } catch {
    throw invalid('it cannot be parsed as a URL');
  }
  if (url.protocol !== 'postgresql:' && url.protocol !== 'postgres:') {
    throw invalid(`the scheme is "${url.protocol.replace(/:$/, '')}", not postgresql`);
  }
  const socketHost = url.searchParams.get('host');
  if (!url.hostname && !socketHost) throw invalid('it names no host');
  if (url.port && !/^\d+$/.test(url.port)) throw invalid('the port is not a number');
  let database: string;
  let user: string;
  try {
    database = decodeURIComponent(url.pathname.replace(/^\//, '')) || decodeURIComponent(url.username) || 'postgres';
    user = decodeURIComponent(url.username) || 'postgres';
  } catch {
    throw invalid('it contains a malformed %-escape');
  }
  const where = url.hostname ? `${url.hostname}:${url.port || '5432'}` : `${socketHost}:${url.port || '5432'}`;
  const redactedUrl = new URL(url.href);
  if (redactedUrl.password) redactedUrl.password = '***';
  for (const key of [...redactedUrl.searchParams.keys()]) {
    if (/pass|secret|key/i.test(key)) redactedUrl.searchParams.set(key, '***');
  }
  return { connectionString: databaseUrl, where, database, user, redacted: redactedUrl.href };
}

/** The driver's failure, turned into the one sentence an operator needs. */
export function describeConnectError(location: PostgresLocation, error: unknown, timeoutMs: number): StorageError {
  const err = error as { code?: string; message?: string };
  const code = err?.code ?? '';
  const message = String(err?.message ?? '');
  const unreachable = (reason: string) =>
    new StorageError(`Cannot reach PostgreSQL at ${location.where} (${reason}); check DATABASE_URL.`, 'unreachable');
  switch (code) {
    case 'ECONNREFUSED':
      return unreachable('connection refused');
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_NONAME':
      return unreachable('host not found');
    case 'ETIMEDOUT':
      return unreachable(`no answer within ${timeoutMs / 1000} s`);
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return unreachable('no route to host');
    case 'ECONNRESET':
    case 'EPIPE':
      return unreachable('connection reset');
    case 'ENOENT':
      return unreachable('no server socket there');
    case '28P01':
    case '28000':
      return new StorageError(
        `PostgreSQL at ${location.where} rejected user "${location.user}" (authentication failed); check DATABASE_URL.`,
        'auth_failed',
      );
    case '3D000':
      return new StorageError(
        `PostgreSQL at ${location.where} has no database "${location.database}"; create it or fix DATABASE_URL.`,
        'database_missing',
      );
  }
  if (/timeout/i.test(message)) return unreachable(`no answer within ${timeoutMs / 1000} s`);
  if (/ssl|tls|certificate/i.test(message)) return unreachable('TLS negotiation failed');
  return unreachable(code ? `error ${code}` : 'connection failed');
}
