import { status as GrpcStatus } from '@grpc/grpc-js';
import type { AuditLog, AuditTransaction } from '../audit/audit-log.js';
import type { EnrollmentTokenRow, EnrollmentTokens } from '../auth/enrollment-tokens.js';
import type { IssuedCertificate } from './ca.js';
import type { EnrollmentAdmission } from './enrollment-admission.js';
import { EnrollRefused } from './enroll-refused.js';

export const GENERIC_TOKEN_REFUSAL = 'the enrollment token is unknown, already used, revoked or expired';

/** An Enroll call past every check: what `commitEnrollment` writes. */
export interface AcceptedEnrollment {
  token: EnrollmentTokenRow;
  identity: string;
  admission: Exclude<EnrollmentAdmission, { kind: 'refuse' }>;
  issued: IssuedCertificate;
  peer: string;
}

/** How often a new router's name is chosen again when other routers keep taking it. */
const MAX_NAME_ATTEMPTS = 5;

const enrolledConcurrently = (identity: string) =>
  `router ${identity} was enrolled by another Enroll call at the same moment; this enrollment token was not spent`;

/**
 * Writes an accepted enrollment in one transaction with its `router.enrolled` (or
 * `router.reenrolled`) event: the token is spent, the router created or re-keyed, the
 * certificate stored, or none of it. Of several Enroll calls for one new identity (or for the
 * first key of one router) exactly one wins; the others get ALREADY_EXISTS, their tokens
 * unspent. A call that lost only the router's name to another router gets ABORTED and may
 * simply enroll again.
 */
export async function commitEnrollment(
  audit: AuditLog,
  enrollmentTokens: EnrollmentTokens,
  accepted: AcceptedEnrollment,
): Promise<{ routerId: string }> {
  const { token, identity, admission, issued, peer } = accepted;
  return audit.record(async (tx) => {
    if (!(await enrollmentTokens.consume(token.id, tx)))
      throw new EnrollRefused(GrpcStatus.UNAUTHENTICATED, GENERIC_TOKEN_REFUSAL);
    const { routerId, revokedPrevious } = await writeRouter(tx, accepted);
    await recordCertificate(tx, routerId, issued);
    await enrollmentTokens.markUsedBy(token.id, routerId, tx);
    return {
      result: { routerId },
      event: {
        actor: `agent:${identity}`,
        action: admission.kind === 'rekey' ? 'router.reenrolled' : 'router.enrolled',
        targetType: 'router',
        targetId: routerId,
        after: {
          identity,
          enrollmentTokenId: token.id,
          tokenCreatedBy: token.createdBy,
          certificateSerial: issued.serial,
          notAfter: issued.notAfter.toISOString(),
          revokedPreviousCertificates: revokedPrevious,
          ...(admission.kind === 'rekey' && admission.decommissioned ? { recommissioned: true } : {}),
          peer,
        },
      },
    };
  });
}

async function writeRouter(
  tx: AuditTransaction,
  { token, identity, admission }: AcceptedEnrollment,
): Promise<{ routerId: string; revokedPrevious: number }> {
  if (admission.kind === 'rekey') {
    // An admin asked for a new key: the old one may be lost or stolen. A decommissioned
    // router the admin re-enrolls is back in the fleet.
    const routerId = admission.routerId;
    if (admission.decommissioned) await tx.router.update({ where: { id: routerId }, data: { decommissionedAt: null } });
    const { count } = await tx.agentCertificate.updateMany({
      where: { routerId, revokedAt: null },
      data: { revokedAt: new Date() },
    });
    return { routerId, revokedPrevious: count };
  }
  if (admission.kind === 'first-key') {
    // Two tokens racing for the first key of one router: the row lock makes the second wait
    // for the first to commit, and then it sees the first one's certificate.
    await tx.$executeRaw`SELECT 1 FROM "Router" WHERE id = ${admission.routerId} FOR UPDATE`;
    const keyed = await tx.agentCertificate.findFirst({
      where: { routerId: admission.routerId },
      select: { serial: true },
    });
    if (keyed) throw new EnrollRefused(GrpcStatus.ALREADY_EXISTS, enrolledConcurrently(identity));
    return { routerId: admission.routerId, revokedPrevious: 0 };
  }
  // ON CONFLICT DO NOTHING: when a concurrent Enroll stored this identity (or name) first, the
  // insert finds nothing to do instead of failing, which would abort the transaction this
  // change may share with others.
  let name = admission.nameTaken ? await freeName(tx, admission.name) : admission.name;
  for (let attempt = 1; ; attempt++) {
    const [row] = await tx.router.createManyAndReturn({
      data: [{ identity, name, tags: admission.tags }],
      skipDuplicates: true,
      select: { id: true },
    });
    if (row) return { routerId: row.id, revokedPrevious: 0 };
    if (await tx.router.findUnique({ where: { identity }, select: { id: true } }))
      throw new EnrollRefused(GrpcStatus.ALREADY_EXISTS, enrolledConcurrently(identity));
    // Only the name was taken meanwhile, by another router: an unbound name takes the next
    // free suffix, as it would have a moment later; a name the token binds cannot.
    if (token.routerName !== null || attempt >= MAX_NAME_ATTEMPTS)
      throw new EnrollRefused(
        GrpcStatus.ABORTED,
        `another router took the name "${name}" at the same moment; enroll again (this enrollment token was not spent)`,
      );
    name = await freeName(tx, admission.name);
  }
}

/** Stores an issued certificate; inside the transaction that records why it was issued. */
export async function recordCertificate(
  tx: AuditTransaction,
  routerId: string,
  issued: IssuedCertificate,
): Promise<void> {
  await tx.agentCertificate.create({
    data: {
      serial: issued.serial,
      routerId,
      fingerprint: issued.fingerprint,
      notBefore: issued.notBefore,
      notAfter: issued.notAfter,
    },
  });
}

async function freeName(tx: AuditTransaction, wanted: string): Promise<string> {
  const base = wanted.slice(0, 120);
  for (let i = 2; ; i++) {
    const candidate = `${base}-${i}`;
    if (!(await tx.router.findUnique({ where: { name: candidate }, select: { id: true } }))) return candidate;
  }
}
