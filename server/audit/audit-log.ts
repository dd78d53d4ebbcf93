import { createHash } from 'node:crypto';
import type { Prisma, PrismaClient } from '../../prisma/generated/client/client.js';
import { canonicalJson } from '../../core/canonical-json.js';
import { bulkInsert, type ColumnType } from '../storage/bulk-insert.js';
import { isDeadlock } from '../storage/deadlock.js';

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

/**
 * The advisory lock every append holds until its transaction ends: appends from all replicas
 * take their turn at the tail instead of racing for it ("wrtfaudi").
 */
export const AUDIT_APPEND_LOCK = 0x77_72_74_66_61_75_64_69n;

/** How long an append that still found its tail taken waits at most before trying again. */
const MAX_RETRY_DELAY_MS = 1_000;

/** The transaction an audited change writes through, so it commits with its event. */
export type AuditTransaction = Prisma.TransactionClient;

interface PendingChange {
  change: (tx: AuditTransaction) => Promise<{ result: unknown; event: AuditEntry | AuditEntry[] | null }>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** One change of a shared transaction failed: the transaction is rolled back without it. */
class ChangeFailed extends Error {
  constructor(
    readonly index: number,
    cause: unknown,
  ) {
    super('an audited change failed', { cause });
  }
}

/**
 * The append-only, hash-chained history of every change. Each event stores the hash of
 * the one before. Every append takes AUDIT_APPEND_LOCK inside its transaction before reading
 * the tail, so replicas take turns instead of racing; prevHash is also unique in the
 * database, so a writer that skipped the lock still cannot fork the chain.
 */
export class AuditLog {
  private readonly queue: {
    entry: AuditEntry;
    resolve: (v: { id: string; hash: string }) => void;
    reject: (e: unknown) => void;
  }[] = [];
  private draining = false;
  private readonly changes: PendingChange[] = [];
  private committing = false;

  constructor(private readonly db: PrismaClient) {}

  /**
   * Appends one event on its own, for a change that is already committed. Appends from this
   * process are written in order and in batches: a burst becomes a few multi-row INSERTs.
   * A batch that finds its tail taken anyway is rebuilt on the new tail until it lands.
   */
  append(entry: AuditEntry): Promise<{ id: string; hash: string }> {
    return new Promise((resolve, reject) => {
      this.queue.push({ entry, resolve, reject });
      if (!this.draining) void this.drain();
    });
  }

  /**
   * Appends one event inside the caller's transaction, so the change it records and the
   * event commit together or not at all. The lock is held until that transaction ends:
   * call this as the transaction's last step, after the change itself.
   */
  async appendIn(tx: AuditTransaction, entry: AuditEntry): Promise<{ id: string; hash: string }> {
    const [written] = await this.writeLocked(tx, [entry]);
    return written!;
  }

  /**
   * Runs `change` and appends the event it returns in one transaction, so both commit or
   * neither does; `change` returns a null event when there is nothing to record. Changes
   * arriving together share a transaction and one multi-row INSERT of their events: a fleet
   * registering at once takes the audit lock a few times, not once per router. A change
   * that fails takes the transaction down with it; it alone is rejected and the others run
   * again in a new one, as does a transaction that found its tail taken.
   */
  record<T>(
    change: (tx: AuditTransaction) => Promise<{ result: T; event: AuditEntry | AuditEntry[] | null }>,
  ): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.changes.push({ change, resolve: resolve as (v: unknown) => void, reject });
      if (!this.committing) void this.commitChanges();
    });
  }

  private async commitChanges(): Promise<void> {
    this.committing = true;
    try {
      while (this.changes.length > 0) await this.commitBatch(this.changes.splice(0, MAX_BATCH));
    } finally {
      this.committing = false;
    }
  }

  private async commitBatch(pending: PendingChange[]): Promise<void> {
    let batch = pending;
    while (batch.length > 0) {
      try {
        const results = await retryOnTakenTail(() =>
          this.db.$transaction((tx) => this.runChanges(tx, batch), { maxWait: 30_000, timeout: 60_000 }),
        );
        batch.forEach((b, i) => b.resolve(results[i]));
        return;
      } catch (err) {
        if (err instanceof ChangeFailed) {
          batch[err.index]!.reject(err.cause);
          batch = batch.filter((_, i) => i !== err.index);
        } else if (batch.length > 1) {
          // The shared part failed (the events' INSERT, the commit): each change runs again on
          // its own, so one whose event cannot be written does not take the others with it.
          for (const one of batch) await this.commitBatch([one]);
          return;
        } else {
          batch[0]!.reject(err);
          return;
        }
      }
    }
  }

  private async runChanges(tx: AuditTransaction, batch: PendingChange[]): Promise<unknown[]> {
    const results: unknown[] = [];
    const events: AuditEntry[] = [];
    for (const [index, { change }] of batch.entries()) {
      try {
        const { result, event } = await change(tx);
        // A set-wise change (a batch of apply results) records one event per thing it changed.
        if (Array.isArray(event)) events.push(...event);
        else if (event) events.push(event);
        results.push(result);
      } catch (error) {
        // A deadlock is the shared transaction's, not this change's: the whole batch retries.
        if (isDeadlock(error)) throw error;
        throw new ChangeFailed(index, error);
      }
    }
    if (events.length > 0) await this.writeLocked(tx, events);
    return results;
  }

  private async drain(): Promise<void> {
    this.draining = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, MAX_BATCH);
        try {
          const entries = batch.map((b) => b.entry);
          const results = await retryOnTakenTail(() =>
            this.db.$transaction((tx) => this.writeLocked(tx, entries), { maxWait: 30_000, timeout: 30_000 }),
          );
          batch.forEach((b, i) => b.resolve(results[i]!));
        } catch (err) {
          for (const b of batch) b.reject(err);
        }
      }
    } finally {
      this.draining = false;
    }
  }

  private async writeLocked(tx: AuditTransaction, entries: AuditEntry[]): Promise<{ id: string; hash: string }[]> {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(${AUDIT_APPEND_LOCK})`;
    const tail = await tx.auditEvent.findFirst({ orderBy: { seq: 'desc' }, select: { hash: true } });
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
    // Inserted in array order, so seq follows the chain.
    await bulkInsert(tx, 'AuditEvent', AUDIT_COLUMNS, rows);
    return rows.map((r) => ({ id: r.id, hash: r.hash }));
  }
}

/**
 * Runs `attempt` until it does not fail on the unique prevHash (a writer that took the tail
 * without the lock) or on a deadlock (two replicas' shared transactions taking the same rows
 * in opposite orders), backing off a random, growing moment so they do not collide again.
 * Either failure rolled everything back, so running the whole attempt again is safe.
 */
async function retryOnTakenTail<T>(attempt: () => Promise<T>): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (err) {
      if (!isTakenTail(err) && !isDeadlock(err)) throw err;
      await new Promise((r) => setTimeout(r, Math.random() * Math.min(MAX_RETRY_DELAY_MS, 20 * n)));
    }
  }
}

function isTakenTail(err: unknown): boolean {
  const e = err as { code?: string; meta?: { modelName?: string } };
  const meta = JSON.stringify(e.meta ?? {});
  // P2002 from a Prisma write, P2010 with PostgreSQL's 23505 from the raw insert.
  if (e.code !== 'P2002' && !(e.code === 'P2010' && meta.includes('23505'))) return false;
  return meta.includes('prevHash') || e.meta?.modelName === 'AuditEvent';
}

export const AUDIT_COLUMNS: Record<string, ColumnType> = {
  id: 'text',
  at: 'timestamptz',
  actor: 'text',
  action: 'text',
  targetType: 'text',
  targetId: 'text',
  before: 'jsonb',
  after: 'jsonb',
  diff: 'jsonb',
  requestId: 'text',
  prevHash: 'text',
  hash: 'text',
};

const MAX_BATCH = 500;

// An absent before/after is a SQL NULL, not a JSON null.
function jsonOrNull(value: unknown): unknown {
  return value === undefined || value === null ? undefined : JSON.parse(canonicalJson(value));
}
