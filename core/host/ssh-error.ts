export type SshErrorKind =
  'auth' | 'host-key' | 'refused' | 'unreachable' | 'timeout' | 'closed' | 'protocol' | 'backoff' | 'not-allowed';

export class SshError extends Error {
  constructor(
    readonly kind: SshErrorKind,
    message: string,
    override readonly cause?: unknown,
  ) {
    super(message);
    this.name = 'SshError';
  }
}

/**
 * What a failed connect means for the operator: bad credentials, no SSH server, a router that
 * cannot be reached, or a protocol failure. The kind decides how long SshHost backs off.
 */
export function classifyConnectError(
  err: Error & { level?: string; code?: string },
  d: string,
  options: { username: string; privateKey?: unknown; port?: number; connectTimeoutMs?: number },
): SshError {
  if (err.level === 'client-authentication') {
    return new SshError(
      'auth',
      `${d}: authentication failed for user ${options.username} (${options.privateKey ? 'key' : 'password'} rejected by the router)`,
      err,
    );
  }
  if (err.code === 'ECONNREFUSED')
    return new SshError(
      'refused',
      `${d}: connection refused (no SSH server listening on port ${options.port ?? 22})`,
      err,
    );
  if (
    err.code === 'EHOSTUNREACH' ||
    err.code === 'ENETUNREACH' ||
    err.code === 'EHOSTDOWN' ||
    err.code === 'ETIMEDOUT'
  ) {
    return new SshError('unreachable', `${d}: router unreachable (${err.code})`, err);
  }
  if (err.level === 'client-timeout')
    return new SshError(
      'unreachable',
      `${d}: router unreachable (no SSH handshake within ${options.connectTimeoutMs ?? 15_000} ms)`,
      err,
    );
  if (err.code === 'ECONNRESET') return new SshError('closed', `${d}: connection reset during handshake`, err);
  return new SshError('protocol', `${d}: ${err.message}`, err);
}
