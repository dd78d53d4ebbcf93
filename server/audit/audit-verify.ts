import type { PrismaClient } from '../../prisma/generated/client/client.js';
import { findUnauditedSubjects, type UnauditedSubject } from './audit-completeness.js';
import { eventHash, GENESIS_HASH } from './audit-log.js';

export interface ChainVerdict {
  ok: boolean;
  /** Events checked. */
  checked: number;
  /** The first event that does not fit the chain, and why. */
  firstBroken?: { seq: string; id: string; reason: string };
}

/** The chain's verdict and what the store holds without its event (audit-completeness.ts). */
export interface AuditVerdict extends ChainVerdict {
  /** What lacks its event, listed up to 100 per check. */
  missing: UnauditedSubject[];
  /** How many lack their event, listed or not. */
  missingCount: number;
}

const PAGE = 5000;

/** The whole check: an intact chain that also holds the event of everything stored that needs one. */
export async function verifyAudit(db: PrismaClient): Promise<AuditVerdict> {
  const [chain, completeness] = await Promise.all([verifyAuditChain(db), findUnauditedSubjects(db)]);
  return { ...chain, ...completeness, ok: chain.ok && completeness.missingCount === 0 };
}

/**
 * Walks the whole audit chain in order, recomputing every hash: an edited row no longer
 * matches its own hash, a deleted or inserted row breaks the link to its neighbour.
 */
export async function verifyAuditChain(db: PrismaClient): Promise<ChainVerdict> {
  let prevHash = GENESIS_HASH;
  let checked = 0;
  let after: bigint | undefined;
  for (;;) {
    const rows = await db.auditEvent.findMany({
      where: after !== undefined ? { seq: { gt: after } } : {},
      orderBy: { seq: 'asc' },
      take: PAGE,
    });
    if (rows.length === 0) return { ok: true, checked };
    for (const e of rows) {
      const where = { seq: e.seq.toString(), id: e.id };
      if (e.prevHash !== prevHash)
        return {
          ok: false,
          checked,
          firstBroken: {
            ...where,
            reason:
              'prevHash does not match the hash of the event before (an event was removed, inserted or reordered)',
          },
        };
      // eventHash reads only the hashed fields, so the stored row is its own input.
      const expected = eventHash(prevHash, e);
      if (expected !== e.hash)
        return {
          ok: false,
          checked,
          firstBroken: { ...where, reason: 'the event content does not match its hash (the row was edited)' },
        };
      prevHash = e.hash;
      checked++;
    }
    after = rows[rows.length - 1]!.seq;
  }
}
