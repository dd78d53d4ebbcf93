import { AgentCredentials } from '../../agent/index.js';
import type { ControllerSecurity } from '../auth/security.js';

/**
 * Enrolls an agent the way an operator and a real agent would, for callers that sit next
 * to the controller (the demo's simulated fleet, tests): mint a single-use enrollment token
 * bound to the router's name, then let the agent pin the CA by fingerprint, send its CSR
 * through the gRPC Enroll call over TLS, and connect with the certificate it receives.
 * Nothing is shortcut: the token, the pin, the CSR and the mTLS stream are the real path.
 */
export async function enrollThroughController(
  security: ControllerSecurity,
  grpcAddress: string,
  router: { identity: string; name: string; tags?: string[] },
  createdBy = 'system:local-enrollment',
): Promise<AgentCredentials> {
  if (!security.pki) throw new Error('this controller runs with insecure agents; there is nothing to enroll');
  // A router already in the fleet (the demo restarted on its data) is re-keyed only through
  // a re-enroll token, which this trusted, in-process caller mints for itself (audited).
  const existing = await security.reenrollment.routerFor(router.identity);
  const secret =
    existing && !existing.decommissionedAt
      ? (await security.reenrollment.mint(existing.id, createdBy, 300))!.secret
      : (
          await security.enrollmentTokens.create({
            routerName: router.name,
            tags: router.tags ?? [],
            ttlSeconds: 300,
            createdBy,
          })
        ).secret;
  return AgentCredentials.enroll({
    address: grpcAddress,
    token: secret,
    identity: router.identity,
    name: router.name,
    caFingerprint: security.pki.caFingerprint,
  });
}
