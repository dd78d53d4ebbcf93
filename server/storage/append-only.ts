import type { Prisma, PrismaClient } from '../../prisma/generated/client/client.js';

/** Triggers created by the init migration that reject UPDATE and DELETE on history tables. */
export const APPEND_ONLY_TRIGGERS = {
  ProfileRevision: 'ProfileRevision_immutable',
  AuditEvent: 'AuditEvent_append_only',
} as const;

/**
 * For tests that must simulate tampering (e.g. an edited audit row): runs `tamper` inside one
 * transaction with the table's trigger disabled, so the trigger is back on for everyone else
 * the moment it commits or fails. ALTER TABLE takes an exclusive lock on the table, so keep
 * this out of production code paths.
 */
export async function withTriggerDisabled<T>(
  prisma: PrismaClient,
  table: keyof typeof APPEND_ONLY_TRIGGERS,
  tamper: (tx: Prisma.TransactionClient) => Promise<T>,
): Promise<T> {
  const trigger = APPEND_ONLY_TRIGGERS[table];
  return prisma.$transaction(async (tx) => {
    await tx.$executeRawUnsafe(`ALTER TABLE "${table}" DISABLE TRIGGER "${trigger}"`);
    const result = await tamper(tx);
    await tx.$executeRawUnsafe(`ALTER TABLE "${table}" ENABLE TRIGGER "${trigger}"`);
    return result;
  });
}
