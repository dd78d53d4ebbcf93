/**
 * A storage failure the operator can act on. The message is one complete sentence meant to be
 * printed as-is at start-up (no stack trace), and never contains a database password.
 */
export class StorageError extends Error {
  override readonly name = 'StorageError';

  constructor(
    message: string,
    /** Stable machine-readable reason, for callers that branch on it. */
    readonly code:
      | 'invalid_url'
      | 'unreachable'
      | 'auth_failed'
      | 'database_missing'
      | 'migration_failed'
      | 'data_dir_in_use'
      | 'data_dir_unusable',
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
