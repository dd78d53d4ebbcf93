/**
 * A command as the API and the CLI read it: the command, its per-state counts, and its
 * targets. Read from the database each time, so it is the same whichever replica answers.
 */
import type { Prisma, PrismaClient } from '../../prisma/generated/client/client.js';
import type { DiagnosticSectionText } from '../../core/diagnostic-bundle.js';
import { OUTCOME_STATES, TARGET_STATES, type CommandTargetState } from './command-kinds.js';

type Db = PrismaClient | Prisma.TransactionClient;

export async function targetCounts(db: Db, commandId: string): Promise<Record<CommandTargetState, number>> {
  const groups = await db.commandTarget.groupBy({ by: ['state'], where: { commandId }, _count: { _all: true } });
  const counts = Object.fromEntries(TARGET_STATES.map((s) => [s, 0])) as Record<CommandTargetState, number>;
  for (const g of groups) counts[g.state as CommandTargetState] = g._count._all;
  return counts;
}

export async function commandView(db: Db, commandId: string) {
  const job = await db.command.findUnique({ where: { id: commandId } });
  if (!job) return null;
  const counts = await targetCounts(db, commandId);
  const total = TARGET_STATES.reduce((n, s) => n + counts[s], 0);
  // An offline router may still get the command until the command ends; then offline is its outcome.
  const finished = OUTCOME_STATES.reduce((n, s) => n + counts[s], 0) + (job.state === 'running' ? 0 : counts.offline);
  return {
    id: job.id,
    kind: job.kind,
    selector: job.selector,
    state: job.state,
    timeoutSeconds: job.timeoutSeconds,
    maxInFlight: job.maxInFlight,
    deadline: job.deadline.toISOString(),
    total,
    finished,
    counts,
    createdBy: job.createdBy,
    createdAt: job.createdAt.toISOString(),
    finishedAt: job.finishedAt?.toISOString() ?? null,
    cancelledBy: job.cancelledBy,
  };
}

export type CommandView = NonNullable<Awaited<ReturnType<typeof commandView>>>;

/** One router's part of a command; `sections` only when asked for (a diagnostic bundle is up to 256 KiB). */
export function targetView(
  t: {
    routerId: string;
    state: string;
    reason: string | null;
    output: string | null;
    sections?: Prisma.JsonValue | null;
    sentAt: Date | null;
    finishedAt: Date | null;
    updatedAt: Date;
    router: { name: string };
  },
  withSections: boolean,
) {
  return {
    routerId: t.routerId,
    name: t.router.name,
    state: t.state as CommandTargetState,
    reason: t.reason,
    output: t.output,
    ...(withSections ? { sections: (t.sections as DiagnosticSectionText[] | null) ?? null } : {}),
    sentAt: t.sentAt?.toISOString() ?? null,
    finishedAt: t.finishedAt?.toISOString() ?? null,
    updatedAt: t.updatedAt.toISOString(),
  };
}

export type CommandTargetView = ReturnType<typeof targetView>;
