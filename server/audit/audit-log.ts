import { createHash } from 'node:crypto';
import type { Prisma, PrismaClient } from '../../prisma/generated/client/client.js';
import { canonicalJson } from '../../core/canonical-json.js';

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
  private readonly queue: {
    entry: AuditEntry;
    resolve: (v: { id: string; hash: string }) => void;
    reject: (e: unknown) => void;
  }[] = [];
  private draining = false;

  constructor(private readonly db: PrismaClient) {}

  /**
   * Appends one event. Appends from this process are written in order and in batches: a
   * burst (a thousand agents reporting at once) becomes a few multi-row INSERTs, each
   * extending the chain from the tail it read. A batch is one statement, so it lands whole
   * or not at all; if another replica extended the chain meanwhile, the unique prevHash
   * rejects it and the batch is rebuilt on the new tail.
   */
  append(entry: AuditEntry): Promise<{ id: string; hash: string }> {
    return new Promise((resolve, reject) => {
      this.queue.push({ entry, resolve, reject });
      if (!this.draining) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.draining = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, MAX_BATCH);
        try {
          const results = await this.writeBatch(batch.map((b) => b.entry));
          batch.forEach((b, i) => b.resolve(results[i]!));
        } catch (err) {
          for (const b of batch) b.reject(err);
        }
      }
    } finally {
      this.draining = false;
    }
  }

  private async writeBatch(entries: AuditEntry[]): Promise<{ id: string; hash: string }[]> {
    for (let attempt = 1; ; attempt++) {
      const tail = await this.db.auditEvent.findFirst({ orderBy: { seq: 'desc' }, select: { hash: true } });
      let prevHash = tail?.hash ?? GENESIS_HASH;
      // Millisecond precision: the column is timestamptz(3), and the hash must match what a
      // verifier reads back.
      const at = new Date(Math.floor(Date.now()));
      const rows = entries.map((entry) => {
        const id = crypto.randomUUID();
        const hash = eventHash(prevHash, { ...entry, id, at });
        const row = {
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
        };
        prevHash = hash;
        return row;
      });
      try {
        // createMany inserts in array order, so seq follows the chain.
        await this.db.auditEvent.createMany({ data: rows });
        return rows.map((r) => ({ id: r.id, hash: r.hash }));
      } catch (err) {
        const racedForTail = (err as { code?: string }).code === 'P2002';
        if (!racedForTail || attempt >= MAX_APPEND_ATTEMPTS) throw err;
        // Another replica took the tail; back off a random moment so we do not collide again.
        await new Promise((r) => setTimeout(r, Math.random() * 20 * attempt));
      }
    }
  }
}

const MAX_BATCH = 500;

// Prisma distinguishes JSON null from "no value"; an absent before/after is a SQL NULL.
function jsonOrNull(value: unknown): Prisma.InputJsonValue | undefined {
  return value === undefined || value === null ? undefined : JSON.parse(canonicalJson(value));
}
