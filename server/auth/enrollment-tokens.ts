import { randomBytes } from 'node:crypto';
import type { Prisma, PrismaClient } from '../../prisma/generated/client/client.js';
import { hashToken } from './api-tokens.js';

/** Enrollment secrets look different from API tokens so neither can be mistaken for the other. */
export const ENROLLMENT_TOKEN_PREFIX = 'wfe_';
export const DEFAULT_ENROLLMENT_TTL_SECONDS = 3600;
export const MAX_ENROLLMENT_TTL_SECONDS = 7 * 86_400;

export interface NewEnrollmentToken {
  /** The router enrolled with this token gets exactly this name. */
  routerName?: string | null;
  /** Tags the router this token creates receives (never applied to an existing router). */
  tags?: string[];
  /** Set only by an admin's re-enroll: the one existing router this token may re-key. */
  routerId?: string | null;
  ttlSeconds?: number;
  createdBy: string;
}

export type EnrollmentTokenRow = Awaited<ReturnType<PrismaClient['enrollmentToken']['findUniqueOrThrow']>>;

/** Why a presented enrollment token was not accepted (logged, never told to the caller in detail). */
export type EnrollmentTokenProblem = 'unknown' | 'used' | 'revoked' | 'expired';

export function enrollmentTokenView(row: EnrollmentTokenRow, now = new Date()) {
  const state: 'used' | 'revoked' | 'expired' | 'active' = row.usedAt
    ? 'used'
    : row.revokedAt
      ? 'revoked'
      : row.expiresAt <= now
        ? 'expired'
        : 'active';
  return {
    id: row.id,
    routerName: row.routerName,
    routerId: row.routerId,
    tags: row.tags,
    state,
    expiresAt: row.expiresAt.toISOString(),
    usedAt: row.usedAt?.toISOString() ?? null,
    usedByRouterId: row.usedByRouterId,
    revokedAt: row.revokedAt?.toISOString() ?? null,
    createdBy: row.createdBy,
    createdAt: row.createdAt.toISOString(),
  };
}

/**
 * Single-use, expiring enrollment tokens: random secrets shown once, stored as SHA-256
 * hashes. Consumption is one conditional UPDATE, so two agents racing with the same token
 * cannot both win, on any number of replicas. Writes take the transaction of an audited
 * change (`db`), so a token and the event that creates, spends or revokes it commit together.
 */
export class EnrollmentTokens {
  constructor(private readonly db: PrismaClient) {}

  async create(input: NewEnrollmentToken, db: Prisma.TransactionClient = this.db) {
    const ttl = Math.min(input.ttlSeconds ?? DEFAULT_ENROLLMENT_TTL_SECONDS, MAX_ENROLLMENT_TTL_SECONDS);
    const secret = `${ENROLLMENT_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
    const record = await db.enrollmentToken.create({
      data: {
        tokenHash: hashToken(secret),
        routerName: input.routerName ?? null,
        tags: input.tags ?? [],
        routerId: input.routerId ?? null,
        expiresAt: new Date(Date.now() + ttl * 1000),
        createdBy: input.createdBy,
      },
    });
    return { secret, record };
  }

  /** The token a secret names, and whether it can still be used. */
  async inspect(
    secret: string,
    now = new Date(),
  ): Promise<{ row: EnrollmentTokenRow | null; problem: EnrollmentTokenProblem | null }> {
    if (typeof secret !== 'string' || !secret.startsWith(ENROLLMENT_TOKEN_PREFIX) || secret.length > 200)
      return { row: null, problem: 'unknown' };
    const row = await this.db.enrollmentToken.findUnique({ where: { tokenHash: hashToken(secret) } });
    if (!row) return { row: null, problem: 'unknown' };
    if (row.usedAt) return { row, problem: 'used' };
    if (row.revokedAt) return { row, problem: 'revoked' };
    if (row.expiresAt <= now) return { row, problem: 'expired' };
    return { row, problem: null };
  }

  /** Marks the token used; false when another caller used it first (or it lapsed meanwhile). */
  async consume(id: string, db: Prisma.TransactionClient = this.db, now = new Date()): Promise<boolean> {
    const { count } = await db.enrollmentToken.updateMany({
      where: { id, usedAt: null, revokedAt: null, expiresAt: { gt: now } },
      data: { usedAt: now },
    });
    return count === 1;
  }

  async markUsedBy(id: string, routerId: string, db: Prisma.TransactionClient = this.db): Promise<void> {
    await db.enrollmentToken.update({ where: { id }, data: { usedByRouterId: routerId } });
  }

  async revoke(id: string, db: Prisma.TransactionClient = this.db): Promise<boolean> {
    const { count } = await db.enrollmentToken.updateMany({
      where: { id, revokedAt: null, usedAt: null },
      data: { revokedAt: new Date() },
    });
    return count > 0;
  }

  async list(limit = 200): Promise<EnrollmentTokenRow[]> {
    return this.db.enrollmentToken.findMany({ orderBy: { createdAt: 'desc' }, take: limit });
  }

  async get(id: string): Promise<EnrollmentTokenRow | null> {
    return this.db.enrollmentToken.findUnique({ where: { id } });
  }
}
