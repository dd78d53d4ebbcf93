import { createHash } from 'node:crypto';
import type { PrismaClient } from '../../prisma/generated/client/client.js';

/** The prevHash of the first event: the chain starts from a known, all-zero anchor. */
export const GENESIS_HASH = '0'.repeat(64);

export interface AuditEntry {
  /** Who did it: "token:<owner>", "agent:<identity>", "system". */
  actor: string;
  /** Dotted verb, e.g. "router.registered", "apply.reported". */
  action: string;
  targetType: string;
  targetId?: string | null;
  before?: unknown;
  after?: unknown;
  diff?: unknown;
  requestId?: string | null;
}

/** JSON with object keys sorted at every depth, so the same event always hashes the same. */
export function canonicalJson(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value instanceof Date) return JSON.stringify(value.toISOString());
  if (typeof value === 'bigint') return JSON.stringify(value.toString());
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export function eventHash(prevHash: string, event: { id: string; at: Date } & AuditEntry): string {
  const body = canonicalJson({
    id: event.id,
    at: event.at,
    actor: event.actor,
    action: event.action,
    targetType: event.targetType,
    targetId: event.targetId ?? null,
    before: event.before ?? null,
    after: event.after ?? null,
    diff: event.diff ?? null,
    requestId: event.requestId ?? null,
  });
  return createHash('sha256').update(prevHash).update('\n').update(body).digest('hex');
}

const MAX_APPEND_ATTEMPTS = 8;

/**
 * The append-only, hash-chained history of every change. Each event stores the hash of
 * the one before; prevHash is unique in the database, so two replicas racing for the same
 * tail cannot fork the chain: the loser's insert fails and it retries on the new tail.
 */
export class AuditLog {
  /** Appends from this process go one at a time, so only other replicas can race us. */
  private tail: Promise<unknown> = Promise.resolve();

  constructor(private readonly db: PrismaClient) {}

  append(entry: AuditEntry): Promise<{ id: string; hash: string }> {
    const result = this.tail.then(() => this.appendNow(entry));
    this.tail = result.catch(() => undefined);
    return result;
  }

  private async appendNow(entry: AuditEntry): Promise<{ id: string; hash: string }> {
    for (let attempt = 1; ; attempt++) {
      const tail = await this.db.auditEvent.findFirst({ orderBy: { seq: 'desc' }, select: { hash: true } });
      const prevHash = tail?.hash ?? GENESIS_HASH;
      const id = crypto.randomUUID();
      // Millisecond precision: the column is timestamptz(3), and the hash must match what
      // a verifier reads back.
      const at = new Date(Math.floor(Date.now()));
      const hash = eventHash(prevHash, { ...entry, id, at });
      try {
        await this.db.auditEvent.create({
          data: {
            id,
            at,
            actor: entry.actor,
            action: entry.action,
            targetType: entry.targetType,
            targetId: entry.targetId ?? null,
            before: jsonOrNull(entry.before),
            after: jsonOrNull(entry.after),
            diff: jsonOrNull(entry.diff),
            requestId: entry.requestId ?? null,
            prevHash,
            hash,
          },
        });
        return { id, hash };
      } catch (err) {
        const racedForTail = (err as { code?: string }).code === 'P2002';
        if (!racedForTail || attempt >= MAX_APPEND_ATTEMPTS) throw err;
        // Another replica took the tail; back off a random moment so we do not collide again.
        await new Promise((r) => setTimeout(r, Math.random() * 20 * attempt));
      }
    }
  }
}

// Prisma distinguishes JSON null from "no value"; an absent before/after is a SQL NULL.
function jsonOrNull(value: unknown): any {
  return value === undefined || value === null ? undefined : JSON.parse(canonicalJson(value));
}
