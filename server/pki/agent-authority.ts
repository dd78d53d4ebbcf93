import { callBatcher } from '../../core/call-batcher.js';
import { status as GrpcStatus } from '@grpc/grpc-js';
import type { Logger } from 'pino';
import type { PrismaClient } from '../../prisma/generated/client/client.js';
import type { EnrollRequest, EnrollResponse, RenewRequest, Renewed } from '../../proto/gen/wrtfleet/agent/v1/agent.js';
import type { AgentGateway } from '../agent-gateway/agent-gateway.js';
import { IdentityRefused } from '../agent-gateway/agent-report-sink.js';
import type { AgentSecurity, CallWithAuth, StreamGrant } from '../agent-gateway/agent-security.js';
import type { AuditLog } from '../audit/audit-log.js';
import type { EnrollmentTokens } from '../auth/enrollment-tokens.js';
import { CertificateRequestRejected, peerCertificateInfo, type ControllerPki, type IssuedCertificate } from './ca.js';
import { admitEnrollment, checkEnrollRequest, peerAddress } from './enrollment-admission.js';
import { EnrollRefused } from './enroll-refused.js';
import { commitEnrollment, GENERIC_TOKEN_REFUSAL, recordCertificate } from './enrollment-commit.js';
import { RevocationWatch } from './revocation-watch.js';
import { DEFAULT_ENROLLMENT_LIMITS, EnrollmentLimits, type EnrollmentLimitSettings } from './enrollment-limits.js';

export { EnrollRefused } from './enroll-refused.js';

export type { AgentSecurity, StreamGrant } from '../agent-gateway/agent-security.js';

/**
 * Trust between the controller and its agents: enrollment (token + CSR -> client
 * certificate), the certificate check on every Connect stream (an agent speaks only for the
 * router its certificate names), renewal over the authenticated stream, revocation and
 * decommissioning (live streams close within a second, on every replica, via the
 * revocation watch).
 */
export class AgentAuthority implements AgentSecurity {
  private gateway: AgentGateway | undefined;
  private readonly enrollLimits: EnrollmentLimits;
  private readonly revocations: RevocationWatch;

  constructor(
    private readonly db: PrismaClient,
    /** null only in the explicit insecure mode: no CA, no enrollment, streams not tied to certificates. */
    private readonly pkiOrNull: ControllerPki | null,
    private readonly enrollmentTokens: EnrollmentTokens,
    private readonly audit: AuditLog,
    private readonly log: Logger,
    /** Failed enrollments (bad token, refused identity) allowed per token, identity and peer address. */
    enrollLimits: EnrollmentLimitSettings = DEFAULT_ENROLLMENT_LIMITS,
  ) {
    this.enrollLimits = new EnrollmentLimits(enrollLimits, log);
    this.revocations = new RevocationWatch(db, log);
  }

  /**
   * The stored certificates that streams present, looked up together: a fleet reconnecting
   * at once costs one query per batch of streams, not one per stream.
   */
  private readonly certificates = callBatcher(
    async (serials: string[]) => {
      const rows = await this.db.agentCertificate.findMany({
        where: { serial: { in: [...new Set(serials)] } },
        include: { router: { select: { identity: true, decommissionedAt: true } } },
      });
      const bySerial = new Map(rows.map((r) => [r.serial, r]));
      return serials.map((s) => bySerial.get(s) ?? null);
    },
    { windowMs: 10, maxBatch: 500, concurrency: 2 },
  );

  private get pki(): ControllerPki {
    if (!this.pkiOrNull)
      throw new EnrollRefused(
        GrpcStatus.UNIMPLEMENTED,
        'this controller runs with insecure agents: no certificates are issued',
      );
    return this.pkiOrNull;
  }

  get caCertificatePem(): string | null {
    return this.pkiOrNull?.trustBundlePem ?? null;
  }

  get caFingerprint(): string | null {
    return this.pkiOrNull?.caFingerprint ?? null;
  }

  async authorizeStream(call: CallWithAuth, helloIdentity: string): Promise<StreamGrant> {
    const auth = call.getAuthContext();
    // grpc-js fills sslPeerCertificate only when the TLS layer verified the chain against the
    // trust bundle (socket.authorized): a certificate from another CA, an expired one or
    // none at all all arrive here as "no certificate".
    const certificate = auth?.sslPeerCertificate;
    if (!certificate?.raw)
      throw new IdentityRefused(
        GrpcStatus.UNAUTHENTICATED,
        'Connect needs a client certificate issued by this controller (enroll first)',
      );
    const peer = peerCertificateInfo(certificate);
    if (!peer) throw new IdentityRefused(GrpcStatus.UNAUTHENTICATED, 'the client certificate names no router');
    if (peer.identity !== helloIdentity) {
      this.log.warn(
        { certificateIdentity: peer.identity, helloIdentity, serial: peer.serial },
        'agent claimed another router than its certificate names',
      );
      throw new IdentityRefused(
        GrpcStatus.PERMISSION_DENIED,
        `this certificate may only speak for router ${peer.identity}`,
      );
    }
    const row = await this.certificates(peer.serial);
    // Unknown serial: issued by this CA but not recorded (a restored backup, a foreign
    // controller sharing the CA). Refuse rather than guess.
    if (!row || row.fingerprint !== peer.fingerprint)
      throw new IdentityRefused(GrpcStatus.UNAUTHENTICATED, 'this client certificate is not known to the controller');
    if (row.router.identity !== peer.identity)
      throw new IdentityRefused(GrpcStatus.PERMISSION_DENIED, 'this client certificate belongs to another router');
    if (row.revokedAt) throw new IdentityRefused(GrpcStatus.PERMISSION_DENIED, 'this client certificate was revoked');
    if (row.router.decommissionedAt)
      throw new IdentityRefused(
        GrpcStatus.PERMISSION_DENIED,
        `router ${peer.identity} was decommissioned and may not reconnect`,
      );
    if (row.notAfter <= new Date())
      throw new IdentityRefused(GrpcStatus.UNAUTHENTICATED, 'this client certificate has expired; enroll again');
    return { certificateSerial: row.serial, certificateNotAfter: row.notAfter };
  }

  /**
   * Enroll, behind the failed-enrollment limits per token, identity and peer address
   * (EnrollmentLimits): a call takes its slots before anything is looked up and keeps them
   * only when its token or identity is refused; past a limit it is RESOURCE_EXHAUSTED without
   * touching the database or the log.
   */
  async enroll(request: EnrollRequest, peer: string): Promise<EnrollResponse> {
    const { identity, requestedName } = checkEnrollRequest(request);
    const slots = this.enrollLimits.reserve({ token: request.token, identity, address: peerAddress(peer) });
    try {
      const response = await this.admitAndIssue(request, identity, requestedName, peer);
      slots.release();
      return response;
    } catch (err) {
      if (
        err instanceof EnrollRefused &&
        (err.code === GrpcStatus.UNAUTHENTICATED || err.code === GrpcStatus.PERMISSION_DENIED)
      )
        slots.failed();
      else slots.release();
      throw err;
    }
  }

  private async admitAndIssue(
    request: EnrollRequest,
    identity: string,
    requestedName: string,
    peer: string,
  ): Promise<EnrollResponse> {
    const { row: token, problem } = await this.enrollmentTokens.inspect(request.token);
    if (!token || problem) {
      this.log.warn({ peer, identity, tokenId: token?.id, problem }, 'enrollment refused');
      throw new EnrollRefused(GrpcStatus.UNAUTHENTICATED, GENERIC_TOKEN_REFUSAL);
    }
    const admission = await admitEnrollment(this.db, token, identity, requestedName);
    if (admission.kind === 'refuse') {
      this.log.warn({ peer, identity, tokenId: token.id }, `enrollment refused: ${admission.message}`);
      throw new EnrollRefused(GrpcStatus.PERMISSION_DENIED, admission.message);
    }

    // Proof of possession and key policy before the token is spent, so a broken agent can
    // retry with the same token.
    let issued: IssuedCertificate;
    try {
      issued = await this.pki.issueClientCertificate(request.csrPem, identity);
    } catch (err) {
      if (err instanceof CertificateRequestRejected) throw new EnrollRefused(GrpcStatus.INVALID_ARGUMENT, err.message);
      throw err;
    }
    let routerId: string;
    try {
      ({ routerId } = await commitEnrollment(this.audit, this.enrollmentTokens, {
        token,
        identity,
        admission,
        issued,
        peer,
      }));
    } catch (err) {
      if (err instanceof EnrollRefused)
        this.log.warn({ peer, identity, tokenId: token.id }, `enrollment refused: ${err.message}`);
      throw err;
    }
    this.log.info({ routerId, identity, serial: issued.serial, notAfter: issued.notAfter }, 'router enrolled');
    return {
      certificatePem: issued.certificatePem,
      caCertificatePem: this.pki.trustBundlePem,
      notAfter: issued.notAfter,
      routerId,
    };
  }

  async renew(
    session: { routerId: string; identity: string; certificateSerial?: string },
    request: RenewRequest,
  ): Promise<Renewed> {
    const refuse = (error: string): Renewed => ({
      certificatePem: '',
      notAfter: undefined,
      caCertificatePem: '',
      error,
    });
    if (!this.pkiOrNull) return refuse('this controller runs with insecure agents: no certificates are issued');
    if (!session.certificateSerial) return refuse('renewal needs a stream authenticated by a client certificate');
    const router = await this.db.router.findUnique({
      where: { id: session.routerId },
      select: { decommissionedAt: true },
    });
    if (!router || router.decommissionedAt) return refuse('this router was decommissioned');
    let issued: IssuedCertificate;
    try {
      issued = await this.pki.issueClientCertificate(request.csrPem, session.identity);
    } catch (err) {
      if (err instanceof CertificateRequestRejected) return refuse(err.message);
      throw err;
    }
    // The certificate and its event commit together.
    await this.audit.record(async (tx) => {
      await recordCertificate(tx, session.routerId, issued);
      return {
        result: undefined,
        event: {
          actor: `agent:${session.identity}`,
          action: 'router.certificate_renewed',
          targetType: 'router',
          targetId: session.routerId,
          before: session.certificateSerial ? { certificateSerial: session.certificateSerial } : null,
          after: { certificateSerial: issued.serial, notAfter: issued.notAfter.toISOString() },
        },
      };
    });
    this.log.info(
      { routerId: session.routerId, serial: issued.serial, notAfter: issued.notAfter },
      'client certificate renewed',
    );
    return {
      certificatePem: issued.certificatePem,
      notAfter: issued.notAfter,
      caCertificatePem: this.pki.trustBundlePem,
      error: '',
    };
  }

  /** Revokes one certificate; its stream (on any replica) closes within the watch interval. */
  async revokeCertificate(serial: string, actor: string, requestId?: string): Promise<boolean> {
    // The conditional UPDATE decides: of two revocations at once, one revokes and is audited.
    const revoked = await this.audit.record(async (tx) => {
      const row = await tx.agentCertificate.findUnique({ where: { serial }, select: { routerId: true } });
      const { count } = await tx.agentCertificate.updateMany({
        where: { serial, revokedAt: null },
        data: { revokedAt: new Date() },
      });
      if (!row || count === 0) return { result: false, event: null };
      return {
        result: true,
        event: {
          actor,
          action: 'router.certificate_revoked',
          targetType: 'router',
          targetId: row.routerId,
          after: { certificateSerial: serial },
          requestId: requestId ?? null,
        },
      };
    });
    if (revoked)
      this.closeLocal((s) => s.certificateSerial === serial, 'the client certificate of this stream was revoked');
    return revoked;
  }

  /**
   * Decommissions a router: it may never connect or enroll again, every certificate it
   * holds is revoked, and its live stream on this replica closes now (others within the
   * watch interval).
   */
  async decommission(routerId: string, actor: string, requestId?: string) {
    // The router's state, its certificates' revocation and the event commit together; the
    // streams close once that is so.
    const result = await this.audit.record(async (tx) => {
      const router = await tx.router.findUnique({ where: { id: routerId } });
      if (!router) return { result: null, event: null };
      const now = new Date();
      const already = router.decommissionedAt;
      const decommissionedAt = already ?? now;
      if (!already) await tx.router.update({ where: { id: routerId }, data: { decommissionedAt, status: 'offline' } });
      const { count } = await tx.agentCertificate.updateMany({
        where: { routerId, revokedAt: null },
        data: { revokedAt: now },
      });
      const done = { id: routerId, identity: router.identity, decommissionedAt, revokedCertificates: count };
      if (already && count === 0) return { result: done, event: null };
      return {
        result: done,
        event: {
          actor,
          action: 'router.decommissioned',
          targetType: 'router',
          targetId: routerId,
          before: { decommissionedAt: already?.toISOString() ?? null },
          after: { decommissionedAt: decommissionedAt.toISOString(), revokedCertificates: count },
          requestId: requestId ?? null,
        },
      };
    });
    if (result) this.closeLocal((s) => s.routerId === routerId, 'this router was decommissioned');
    return result;
  }

  private closeLocal(match: (s: { routerId: string; certificateSerial?: string }) => boolean, reason: string): void {
    for (const session of this.gateway?.sessions.values() ?? []) {
      if (match(session)) session.close(GrpcStatus.PERMISSION_DENIED, reason);
    }
  }

  /** Closes this replica's streams when their certificate or router is revoked anywhere (RevocationWatch). */
  watch(gateway: AgentGateway, intervalMs?: number, fullSweepEvery?: number): void {
    this.gateway = gateway;
    this.revocations.watch(gateway, intervalMs, fullSweepEvery);
  }

  stop(): void {
    this.revocations.stop();
  }
}
