/**
 * What the gateway asks of agent security: the certificate check on every Connect stream,
 * enrollment and renewal. The gateway owns the contract; server/pki/agent-authority.ts fulfils
 * it, so the gateway never imports the authority (which watches the gateway's streams).
 */
import type { ServerDuplexStream } from '@grpc/grpc-js';
import type { EnrollRequest, EnrollResponse, RenewRequest, Renewed } from '../../proto/gen/wrtfleet/agent/v1/agent.js';

/** What a verified Connect stream is bound to. */
export interface StreamGrant {
  certificateSerial: string;
  certificateNotAfter: Date;
}

/** The part of a gRPC call the authority reads: the TLS peer certificate. */
export type CallWithAuth = Pick<ServerDuplexStream<unknown, unknown>, 'getAuthContext'>;

/** The gateway's view of agent security; absent only in the explicit insecure mode. */
export interface AgentSecurity {
  authorizeStream(call: CallWithAuth, helloIdentity: string): Promise<StreamGrant>;
  enroll(request: EnrollRequest, peer: string): Promise<EnrollResponse>;
  renew(
    session: { routerId: string; identity: string; certificateSerial?: string },
    request: RenewRequest,
  ): Promise<Renewed>;
}
