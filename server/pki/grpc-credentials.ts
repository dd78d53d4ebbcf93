import { constants } from 'node:crypto';
import { ServerCredentials } from '@grpc/grpc-js';
import type { ControllerPki } from './ca.js';

/**
 * TLS for the agent endpoint: the server presents its certificate (chain with the CA) and
 * REQUESTS a client certificate verified against the trust bundle, but does not require
 * one at the TLS layer, because `Enroll` is how an agent without a certificate gets one.
 * `Connect` insists on a verified certificate itself (AgentAuthority.authorizeStream).
 *
 * grpc-js 1.14's `ServerCredentials.createSsl(ca, pairs, false)` would not even request a
 * client certificate (requestCert=false), and `true` rejects cert-less Enroll calls at the
 * handshake, so the options are given to Node's TLS server directly.
 *
 * No session tickets: TLS 1.3 servers send two after every handshake, which grpc-js
 * clients never use to resume (each reconnect is a full handshake).
 * Why: Node holds every connection's tickets for nothing; measured in docs/BENCHMARKS.md#transport-floor.
 */
class AgentServerCredentials extends ServerCredentials {
  constructor(pki: ControllerPki) {
    super(
      { requestCert: true, rejectUnauthorized: false },
      {
        ca: Buffer.from(pki.trustBundlePem),
        cert: Buffer.from(pki.serverCertificateChainPem),
        key: Buffer.from(pki.serverKeyPem),
        secureOptions: constants.SSL_OP_NO_TICKET,
      },
    );
  }

  _equals(other: ServerCredentials): boolean {
    return other === this;
  }
}

export function agentServerCredentials(pki: ControllerPki): ServerCredentials {
  return new AgentServerCredentials(pki);
}
