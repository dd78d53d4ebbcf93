import { experimental, type ServerCredentials } from '@grpc/grpc-js';
import type { ControllerPki } from './ca.js';

type CaListener = experimental.CaCertificateUpdateListener;
type IdentityListener = experimental.IdentityCertificateUpdateListener;

/**
 * An in-memory certificate provider (CA bundle and identity in one). grpc-js reads
 * providers through listeners; delivering on a microtask matters: the server registers its
 * own watcher only after subscribing to the provider, so a synchronous first delivery would
 * be lost and every connection dropped as "credentials not loaded".
 */
class StaticCertificateProvider implements experimental.CertificateProvider {
  private readonly caListeners = new Set<CaListener>();
  private readonly identityListeners = new Set<IdentityListener>();

  constructor(
    private ca: Buffer,
    private identity: { certificate: Buffer; privateKey: Buffer },
  ) {}

  addCaCertificateListener(listener: CaListener): void {
    this.caListeners.add(listener);
    queueMicrotask(() => listener({ caCertificate: this.ca }));
  }
  removeCaCertificateListener(listener: CaListener): void {
    this.caListeners.delete(listener);
  }
  addIdentityCertificateListener(listener: IdentityListener): void {
    this.identityListeners.add(listener);
    queueMicrotask(() => listener(this.identity));
  }
  removeIdentityCertificateListener(listener: IdentityListener): void {
    this.identityListeners.delete(listener);
  }
}

/**
 * TLS for the agent endpoint: the server presents its certificate (chain with the CA) and
 * REQUESTS a client certificate verified against the trust bundle, but does not require
 * one at the TLS layer, because `Enroll` is how an agent without a certificate gets one.
 * `Connect` insists on a verified certificate itself (AgentAuthority.authorizeStream).
 *
 * grpc-js 1.14's `ServerCredentials.createSsl(ca, pairs, false)` would not even request a
 * client certificate (requestCert=false), and `true` rejects cert-less Enroll calls at the
 * handshake, so the certificate-provider credentials (requestCert=true,
 * rejectUnauthorized=false) are used instead.
 */
export function agentServerCredentials(pki: ControllerPki): ServerCredentials {
  const provider = new StaticCertificateProvider(Buffer.from(pki.trustBundlePem), {
    certificate: Buffer.from(pki.serverCertificateChainPem),
    privateKey: Buffer.from(pki.serverKeyPem),
  });
  // One object serves both roles, which also sidesteps grpc-js naming the two parameters
  // of createCertificateProviderServerCredentials in the opposite order to its constructor.
  return experimental.createCertificateProviderServerCredentials(provider, provider, false);
}
