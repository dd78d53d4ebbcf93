import type { status as GrpcStatus } from '@grpc/grpc-js';

/**
 * A refused Enroll call: the gRPC status and a message safe to show the caller, and for a
 * RESOURCE_EXHAUSTED when to try again (sent as the wrtfleet-retry-after-ms trailer).
 */
export class EnrollRefused extends Error {
  constructor(
    readonly code: GrpcStatus,
    message: string,
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}
