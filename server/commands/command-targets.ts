/**
 * Which routers a command targets, and which of them the controller can refuse up front
 * from what it knows: a decommissioned router named by id, a re-apply with nothing applied, a
 * rollback with no earlier applied revision to go back to. The agent refuses the rest itself
 * (its own state decides, e.g. a rollback already taken).
 */
import type { PrismaClient } from '../../prisma/generated/client/client.js';
import { selectorWhere, type Selector } from '../fleet/selector.js';
import type { CommandKind } from './command-kinds.js';

export interface ResolvedTarget {
  routerId: string;
  state: 'queued' | 'refused';
  reason: string | null;
}

/** Refusals an API caller sees (a 409 for one router, a `refused` target in a selection). */
export const REFUSALS = {
  decommissioned: 'decommissioned: the controller no longer manages this router',
  nothingApplied: 'nothing applied: no revision to re-apply',
  nothingToRollBack: 'nothing applied: nothing to roll back',
  noEarlierRevision: 'no earlier applied revision to roll back to',
} as const;

export async function resolveTargets(
  db: PrismaClient,
  kind: CommandKind,
  selector: Selector,
): Promise<ResolvedTarget[]> {
  const routers = await db.router.findMany({
    where: selectorWhere(selector),
    select: { id: true, appliedRevisionId: true },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
  });
  // A selector never matches decommissioned routers; one named by id is reported, not dropped.
  const decommissioned = selector.ids
    ? await db.router.findMany({
        where: { id: { in: selector.ids }, decommissionedAt: { not: null } },
        select: { id: true },
        orderBy: { id: 'asc' },
      })
    : [];
  const earlier = kind === 'rollback' ? await routersWithEarlierRevision(db, routers) : new Set<string>();
  const targets: ResolvedTarget[] = routers.map((r) => {
    const reason =
      kind === 'reapply' && !r.appliedRevisionId
        ? REFUSALS.nothingApplied
        : kind === 'rollback' && !r.appliedRevisionId
          ? REFUSALS.nothingToRollBack
          : kind === 'rollback' && !earlier.has(r.id)
            ? REFUSALS.noEarlierRevision
            : null;
    return { routerId: r.id, state: reason ? 'refused' : 'queued', reason };
  });
  for (const d of decommissioned) targets.push({ routerId: d.id, state: 'refused', reason: REFUSALS.decommissioned });
  return targets;
}

/** Rows per lookup: well under PostgreSQL's bind-parameter limit. */
const LOOKUP_CHUNK = 5000;

/** Routers the controller saw apply a revision other than the one they run now. */
async function routersWithEarlierRevision(
  db: PrismaClient,
  routers: { id: string; appliedRevisionId: string | null }[],
): Promise<Set<string>> {
  const current = new Map(routers.map((r) => [r.id, r.appliedRevisionId]));
  const found = new Set<string>();
  const ids = routers.filter((r) => r.appliedRevisionId).map((r) => r.id);
  for (let i = 0; i < ids.length; i += LOOKUP_CHUNK) {
    const applied = await db.applyResult.findMany({
      where: { routerId: { in: ids.slice(i, i + LOOKUP_CHUNK) }, status: 'applied', revisionId: { not: null } },
      distinct: ['routerId', 'revisionId'],
      select: { routerId: true, revisionId: true },
    });
    for (const a of applied) if (a.revisionId !== current.get(a.routerId)) found.add(a.routerId);
  }
  return found;
}
