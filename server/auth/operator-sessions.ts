import { randomBytes } from 'node:crypto';
import type { PrismaClient } from '../../prisma/generated/client/client.js';
import type { AuditTransaction } from '../audit/audit-log.js';
import { hashToken, type Actor } from './api-tokens.js';
import { isRole, scopesOfRole, type Role } from './operator-roles.js';

/** How long a console session lasts: since its last request, and at most since sign-in. */
export interface SessionLifetime {
  idleSeconds: number;
  absoluteSeconds: number;
}

export const DEFAULT_SESSION_LIFETIME: SessionLifetime = { idleSeconds: 30 * 60, absoluteSeconds: 12 * 3600 };

/** The cookie that carries the session id. */
export const SESSION_COOKIE = 'wrtfleet_session';

/** A request's session, as GET /v1/session shows it. */
export interface SessionInfo {
  idHash: string;
  role: Role;
  csrfToken: string;
  idleExpiresAt: Date;
  absoluteExpiresAt: Date;
}

/**
 * lastSeenAt is written at most this often: a console polling every few seconds must not turn
 * each read into a write. Idle expiry is therefore up to this much later than configured.
 */
const TOUCH_EVERY_MS = 15_000;
/**
 * How long a session seen valid is trusted without asking the database again, as for API
 * tokens (AUTH_CACHE_MS): the console's calls cost no lookup each. A change on this replica
 * (logout, disable, role, password) takes effect at once; on another replica within this.
 */
export const SESSION_CACHE_MS = 2_000;
const SESSION_CACHE_MAX = 10_000;

/** Session ids are 43 characters of base64url; anything much longer is not one. */
const MAX_ID_LENGTH = 100;

/**
 * Console sessions: a random id in an HttpOnly cookie, of which only the SHA-256 is stored; a
 * CSRF token per session; idle and absolute expiry. The clock is a field so tests can move time.
 */
export class OperatorSessions {
  /** The current time; tests replace it to expire sessions without waiting. */
  now: () => Date = () => new Date();
  private readonly recent = new Map<
    string,
    {
      accountName: string;
      role: Role;
      csrfToken: string;
      lastSeenAt: Date;
      absoluteExpiresAt: Date;
      until: number;
    }
  >();

  constructor(
    private readonly db: PrismaClient,
    readonly lifetime: SessionLifetime = DEFAULT_SESSION_LIFETIME,
  ) {}

  /**
   * Starts a session for an account that just signed in, in the caller's transaction (with its
   * audit event); the id goes in the cookie and nowhere else.
   */
  async start(accountName: string, tx: AuditTransaction): Promise<{ id: string; session: SessionInfo }> {
    const id = randomBytes(32).toString('base64url');
    const csrfToken = randomBytes(32).toString('base64url');
    const now = this.now();
    const absoluteExpiresAt = new Date(now.getTime() + this.lifetime.absoluteSeconds * 1000);
    // The account's sessions that can never be used again go, so the table stays as small as
    // the sessions that are open.
    await tx.operatorSession.deleteMany({
      where: {
        accountName,
        OR: [
          { endedAt: { not: null } },
          { absoluteExpiresAt: { lte: now } },
          { lastSeenAt: { lte: new Date(now.getTime() - this.lifetime.idleSeconds * 1000) } },
        ],
      },
    });
    const row = await tx.operatorSession.create({
      data: { idHash: hashToken(id), accountName, csrfToken, createdAt: now, lastSeenAt: now, absoluteExpiresAt },
      include: { account: true },
    });
    await tx.operatorAccount.update({ where: { name: accountName }, data: { lastSignInAt: now } });
    return { id, session: this.infoOf(row.idHash, row.account.role, csrfToken, now, absoluteExpiresAt) };
  }

  /**
   * The actor and session a cookie's id stands for, or null when the session is unknown, ended,
   * idle too long, past its absolute expiry, or its account is disabled. Scopes come from the
   * account's role as it is now, so a role change applies at the next request.
   */
  async authenticate(id: string): Promise<{ actor: Actor; session: SessionInfo } | null> {
    if (id.length === 0 || id.length > MAX_ID_LENGTH) return null;
    const idHash = hashToken(id);
    const now = this.now();
    let live = this.recent.get(idHash);
    if (!live || live.until <= now.getTime()) {
      this.recent.delete(idHash);
      const row = await this.db.operatorSession.findUnique({ where: { idHash }, include: { account: true } });
      if (!row || row.endedAt || row.account.disabled || !isRole(row.account.role)) return null;
      live = {
        accountName: row.accountName,
        role: row.account.role,
        csrfToken: row.csrfToken,
        lastSeenAt: row.lastSeenAt,
        absoluteExpiresAt: row.absoluteExpiresAt,
        until: now.getTime() + SESSION_CACHE_MS,
      };
      if (this.recent.size >= SESSION_CACHE_MAX) this.recent.clear();
      this.recent.set(idHash, live);
    }
    const idleEnd = live.lastSeenAt.getTime() + this.lifetime.idleSeconds * 1000;
    if (idleEnd <= now.getTime() || live.absoluteExpiresAt <= now) return null;
    if (now.getTime() - live.lastSeenAt.getTime() >= TOUCH_EVERY_MS) {
      live.lastSeenAt = now;
      await this.db.operatorSession.update({ where: { idHash }, data: { lastSeenAt: now } });
    }
    return {
      actor: {
        kind: 'account',
        id: `account:${live.accountName}`,
        owner: live.accountName,
        tokenId: null,
        scopes: scopesOfRole(live.role),
      },
      session: this.infoOf(idHash, live.role, live.csrfToken, live.lastSeenAt, live.absoluteExpiresAt),
    };
  }

  /**
   * Forgets what this replica remembers of an account's sessions: called after a change that
   * ended them (disabled, role changed, password reset, deleted), so they end here at once.
   */
  forget(accountName: string): void {
    for (const [hash, entry] of this.recent) if (entry.accountName === accountName) this.recent.delete(hash);
  }

  /** Ends the session (logout); false when it had ended already. */
  async end(idHash: string, tx: AuditTransaction | PrismaClient = this.db): Promise<boolean> {
    this.recent.delete(idHash);
    const { count } = await tx.operatorSession.updateMany({
      where: { idHash, endedAt: null },
      data: { endedAt: this.now() },
    });
    return count > 0;
  }

  private infoOf(idHash: string, role: string, csrfToken: string, lastSeenAt: Date, absoluteExpiresAt: Date) {
    const idle = new Date(lastSeenAt.getTime() + this.lifetime.idleSeconds * 1000);
    return {
      idHash,
      role: (isRole(role) ? role : 'read') as Role,
      csrfToken,
      idleExpiresAt: idle < absoluteExpiresAt ? idle : absoluteExpiresAt,
      absoluteExpiresAt,
    };
  }
}
