import type { PrismaClient } from '../../prisma/generated/client/client.js';
import type { AuditLog } from '../audit/audit-log.js';
import type { EnrollmentTokens } from '../auth/enrollment-tokens.js';

/** A re-enroll token lives as long as an ordinary one by default: the router needs it soon. */
export const DEFAULT_REENROLL_TTL_SECONDS = 3600;

/**
 * The only way to re-key a router that is already in the fleet (or decommissioned): an
 * admin asks for it, and gets a single-use enrollment token bound to that router's id,
 * without tags or a name to apply. Audited with the admin as actor.
 */
export class Reenrollment {
  constructor(
    private readonly db: PrismaClient,
    private readonly enrollmentTokens: EnrollmentTokens,
    private readonly audit: AuditLog,
  ) {}

  /** The router a re-enroll token would be for, or null when the identity is not in the fleet. */
  async routerFor(identity: string) {
    return this.db.router.findUnique({ where: { identity }, select: { id: true, decommissionedAt: true } });
  }

  /** Mints the token; null when there is no such router. */
  async mint(routerId: string, actor: string, ttlSeconds = DEFAULT_REENROLL_TTL_SECONDS, requestId?: string) {
    const router = await this.db.router.findUnique({
      where: { id: routerId },
      select: { id: true, identity: true, name: true, decommissionedAt: true },
    });
    if (!router) return null;
    // The token and its event commit together: an admin's re-enroll is never unrecorded.
    const { secret, record } = await this.audit.record(async (tx) => {
      const minted = await this.enrollmentTokens.create({ routerId: router.id, ttlSeconds, createdBy: actor }, tx);
      return {
        result: minted,
        event: {
          actor,
          action: 'router.reenroll_requested',
          targetType: 'router',
          targetId: router.id,
          after: {
            identity: router.identity,
            enrollmentTokenId: minted.record.id,
            expiresAt: minted.record.expiresAt.toISOString(),
            decommissioned: router.decommissionedAt !== null,
          },
          requestId: requestId ?? null,
        },
      };
    });
    return { router, secret, record };
  }
}
