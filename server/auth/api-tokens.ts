import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { PrismaClient } from '../../prisma/generated/client/client.js';
import type { AuditLog } from '../audit/audit-log.js';

/** What a REST token may do. admin ⊃ write ⊃ read; enroll only mints enrollment tokens. */
export const SCOPES = ['read', 'write', 'admin', 'enroll'] as const;
export type Scope = (typeof SCOPES)[number];

/** The authenticated caller of a request: the audit history's actor. */
export interface Actor {
  /** How the caller authenticated: an API token, or an operator account's session cookie. */
  kind: 'token' | 'account';
  /** "token:<owner>" or "account:<name>" in audit events. */
  id: string;
  /** The token's owner, or the account's name. */
  owner: string;
  /** The API token's id; null for an account. */
  tokenId: string | null;
  scopes: Scope[];
}

/** The secret's visible prefix makes leaked tokens greppable (secret scanners, logs). */
export const TOKEN_PREFIX = 'wft_';

export function hashToken(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

export function grants(scopes: readonly Scope[], needed: Scope): boolean {
  if (scopes.includes('admin')) return true;
  if (needed === 'read') return scopes.includes('read') || scopes.includes('write');
  return scopes.includes(needed);
}

export interface NewToken {
  name: string;
  owner: string;
  scopes: Scope[];
  expiresAt?: Date | null;
  /** The actor minting it ("token:<owner>", "system"): also the actor of its audit event. */
  createdBy: string;
  requestId?: string | null;
}

/** API tokens: random secrets shown once, stored as SHA-256 hashes only. */
/** How long a token seen valid is trusted without asking the database again. */
export const AUTH_CACHE_MS = 2_000;
const AUTH_CACHE_MAX = 10_000;

export class ApiTokens {
  private readonly recent = new Map<string, { actor: Actor; until: number; expiresAt: number | null }>();

  constructor(
    private readonly db: PrismaClient,
    private readonly audit: AuditLog,
  ) {}

  /** Mints a token; the token and its `api_token.created` event commit together. */
  async create(input: NewToken) {
    const secret = `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
    const record = await this.audit.record(async (tx) => {
      const row = await tx.apiToken.create({
        data: {
          name: input.name,
          owner: input.owner,
          scopes: input.scopes,
          expiresAt: input.expiresAt ?? null,
          createdBy: input.createdBy,
          prefix: secret.slice(0, TOKEN_PREFIX.length + 6),
          tokenHash: hashToken(secret),
        },
      });
      return {
        result: row,
        event: {
          actor: input.createdBy,
          action: 'api_token.created',
          targetType: 'api_token',
          targetId: row.id,
          after: tokenView(row),
          requestId: input.requestId ?? null,
        },
      };
    });
    return { secret, record };
  }

  /** The actor for a presented secret, or null when it is unknown, revoked or expired. */
  async authenticate(secret: string): Promise<Actor | null> {
    if (!secret.startsWith(TOKEN_PREFIX) || secret.length > 200) return null;
    const hash = hashToken(secret);
    // A script polling the API presents the same token many times a second; a short memory of
    // tokens seen valid saves a database round trip per request. Revocation through this
    // replica clears it at once; through another replica (or by hand in the database) it
    // takes effect within AUTH_CACHE_MS.
    const cached = this.recent.get(hash);
    const nowMs = Date.now();
    if (cached && cached.until > nowMs && (cached.expiresAt === null || cached.expiresAt > nowMs)) return cached.actor;
    if (cached) this.recent.delete(hash);
    const row = await this.db.apiToken.findUnique({ where: { tokenHash: hash } });
    // The lookup is by hash already; the constant-time compare guards against a future
    // change to a prefix lookup leaking timing.
    if (!row || !timingSafeEqual(Buffer.from(row.tokenHash), Buffer.from(hash))) return null;
    const now = new Date();
    if (row.revokedAt || (row.expiresAt && row.expiresAt <= now)) return null;
    // lastUsedAt at minute granularity: a token used by a busy script must not turn every
    // read into a write.
    if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() > 60_000) {
      await this.db.apiToken.update({ where: { id: row.id }, data: { lastUsedAt: now } }).catch(() => undefined);
    }
    const actor: Actor = {
      kind: 'token',
      id: `token:${row.owner}`,
      owner: row.owner,
      tokenId: row.id,
      scopes: row.scopes.filter((s): s is Scope => (SCOPES as readonly string[]).includes(s)),
    };
    if (this.recent.size >= AUTH_CACHE_MAX) this.recent.clear();
    this.recent.set(hash, { actor, until: nowMs + AUTH_CACHE_MS, expiresAt: row.expiresAt?.getTime() ?? null });
    return actor;
  }

  /**
   * Revokes a token; false when it was revoked already (nothing changes, nothing is audited).
   * The revocation and its `api_token.revoked` event commit together.
   */
  async revoke(id: string, ctx: { actor: string; requestId?: string | null }): Promise<boolean> {
    const revoked = await this.audit.record(async (tx) => {
      const before = await tx.apiToken.findUnique({ where: { id } });
      const { count } = await tx.apiToken.updateMany({
        where: { id, revokedAt: null },
        data: { revokedAt: new Date() },
      });
      if (!before || count === 0) return { result: false, event: null };
      const after = await tx.apiToken.findUniqueOrThrow({ where: { id } });
      return {
        result: true,
        event: {
          actor: ctx.actor,
          action: 'api_token.revoked',
          targetType: 'api_token',
          targetId: id,
          before: tokenView(before),
          after: tokenView(after),
          requestId: ctx.requestId ?? null,
        },
      };
    });
    // After the commit: a request between the cache clear and the commit would cache it again.
    for (const [hash, entry] of this.recent) if (entry.actor.tokenId === id) this.recent.delete(hash);
    return revoked;
  }

  /** Tokens as listings show them: never the secret, never its hash. */
  async list(limit = 500) {
    const rows = await this.db.apiToken.findMany({ orderBy: { createdAt: 'desc' }, take: limit });
    return rows.map((row) => tokenView(row));
  }

  async get(id: string) {
    const row = await this.db.apiToken.findUnique({ where: { id } });
    return row ? tokenView(row) : null;
  }

  async count(): Promise<number> {
    return this.db.apiToken.count();
  }
}

type ApiTokenRow = Awaited<ReturnType<PrismaClient['apiToken']['findUniqueOrThrow']>>;

export function tokenView(row: ApiTokenRow, now = new Date()) {
  return {
    id: row.id,
    name: row.name,
    owner: row.owner,
    prefix: row.prefix,
    scopes: row.scopes,
    state: (row.revokedAt ? 'revoked' : row.expiresAt && row.expiresAt <= now ? 'expired' : 'active') as
      'revoked' | 'expired' | 'active',
    expiresAt: row.expiresAt?.toISOString() ?? null,
    revokedAt: row.revokedAt?.toISOString() ?? null,
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
    createdBy: row.createdBy,
    createdAt: row.createdAt.toISOString(),
  };
}
