/**
 * What the audit history keeps of a command's per-router outcomes: the count per state and the
 * router ids per state, at most MAX_IDS_PER_STATE each, so an event about 10,000 routers stays
 * a few KiB and still names the routers an operator looks for first (the failures).
 */
import type { Prisma } from '../../prisma/generated/client/client.js';
import { TARGET_STATES, type CommandTargetState } from './command-kinds.js';
import { targetCounts } from './command-view.js';

export const MAX_IDS_PER_STATE = 100;

export interface OutcomeSummary {
  counts: Record<CommandTargetState, number>;
  /** Router ids per state (states with none left out), the first MAX_IDS_PER_STATE by id. */
  routers: Partial<Record<CommandTargetState, string[]>>;
}

export async function outcomeSummary(tx: Prisma.TransactionClient, commandId: string): Promise<OutcomeSummary> {
  const counts = await targetCounts(tx, commandId);
  const routers: OutcomeSummary['routers'] = {};
  for (const state of TARGET_STATES) {
    if (counts[state] === 0) continue;
    const rows = await tx.commandTarget.findMany({
      where: { commandId, state },
      orderBy: { routerId: 'asc' },
      take: MAX_IDS_PER_STATE,
      select: { routerId: true },
    });
    routers[state] = rows.map((r) => r.routerId);
  }
  return { counts, routers };
}
