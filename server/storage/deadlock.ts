/**
 * Whether a statement failed because PostgreSQL chose it as a deadlock's victim (40P01, or
 * Prisma's P2034 for a transaction): nothing was written, and running it again is safe.
 */
export function isDeadlock(err: unknown): boolean {
  const e = err as { code?: string; meta?: unknown; message?: string };
  return (
    e.code === 'P2034' || JSON.stringify(e.meta ?? {}).includes('40P01') || /deadlock detected/.test(e.message ?? '')
  );
}
