import { Metadata, status as GrpcStatus, type sendUnaryData, type ServerUnaryCall } from '@grpc/grpc-js';
import type { Logger } from 'pino';
import type { EnrollRequest, EnrollResponse } from '../../proto/gen/wrtfleet/agent/v1/agent.js';
import type { AgentSecurity } from './agent-security.js';
import { RETRY_AFTER_METADATA } from './hello-admission.js';

/**
 * Answers an Enroll call: the authority issues the certificate, or its refusal goes back with
 * its gRPC code (and, past a limit, when to come back). An unexpected failure is logged and
 * answered INTERNAL without its details.
 */
export function answerEnroll(
  security: AgentSecurity | undefined,
  call: ServerUnaryCall<EnrollRequest, EnrollResponse>,
  callback: sendUnaryData<EnrollResponse>,
  log: Logger,
): void {
  if (!security)
    return callback(
      {
        code: GrpcStatus.UNIMPLEMENTED,
        details: 'enrollment is disabled: this controller runs with insecure agents',
      },
      null,
    );
  security.enroll(call.request, call.getPeer()).then(
    (response) => callback(null, response),
    (err: { code?: unknown; message?: string; retryAfterMs?: unknown }) => {
      const known = typeof err.code === 'number';
      if (!known) log.error({ err }, 'enrollment failed');
      // A refusal past a limit says when to come back, as a refused Hello does.
      const trailers = new Metadata();
      if (known && typeof err.retryAfterMs === 'number') trailers.set(RETRY_AFTER_METADATA, String(err.retryAfterMs));
      callback(
        {
          code: known ? (err.code as GrpcStatus) : GrpcStatus.INTERNAL,
          details: known ? err.message : 'enrollment failed; see the controller log',
          metadata: trailers,
        },
        null,
      );
    },
  );
}
