import { status as grpcStatus, type ServiceError } from '@grpc/grpc-js';

/** What a link reports, once, when the controller refused its router for good. */
export interface Refusal {
  /** The gRPC status and the controller's words. */
  code: grpcStatus;
  details: string;
  /** What happened and what to do, for the agent's log. */
  message: string;
  /** When the link asks again (ms from now). */
  checkInMs: number;
}

/**
 * Whether the controller refused the router itself rather than this attempt: PERMISSION_DENIED
 * is what it answers for a revoked certificate, a decommissioned router and an identity it does
 * not accept (server/pki/agent-authority.ts, server/fleet/router-registry.ts), on a new stream
 * or when its revocation watch closes a live one. Dialling again changes none of these; only
 * an operator does (a re-enrolment, a registration).
 */
export function refusedForGood(error: Pick<ServiceError, 'code'> | undefined): boolean {
  return error?.code === grpcStatus.PERMISSION_DENIED;
}

/** The one log line of a refusal: the controller's words, and what brings the router back. */
export function refusalMessage(details: string, checkInMs: number): string {
  return (
    `the controller refused this router (${details || 'permission denied'}): its certificate was revoked or ` +
    `the router was decommissioned. The agent stops dialling and asks again only every ` +
    `${Math.round(checkInMs / 60_000)} min or so. To bring it back, re-enroll it: an admin mints a token with ` +
    `POST /v1/routers/{id}/re-enroll, then the agent enrolls again with it (new credentials).`
  );
}
