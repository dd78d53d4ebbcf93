import { planHashInput, resolvePlan, type Plan } from '../../core/plan.js';
import { validateProfileSpec } from '../../core/profile-spec.js';
import type { Prisma, PrismaClient } from '../../prisma/generated/client/client.js';
import { jsonDiff } from '../audit/json-diff.js';
import { effectiveSpec, planRouterOf } from '../fleet/plan-preview.js';

/** What a revision would do on one router: refused (and why), or a change or not against what it runs. */
export interface PlanVerdict {
  routerId: string;
  /** Why the plan is refused on this router; null when it is satisfiable. */
  refused: string | null;
  /** The plan differs from the one of the revision the router runs (false when refused). */
  changing: boolean;
}

export interface VerdictSummary {
  satisfiable: number;
  refused: number;
  /** Of the satisfiable routers: those whose plan would change, and those it would not. */
  changing: number;
  unchanged: number;
}

/** Routers read per query: their fact sheets and capabilities are a few KiB each. */
const PAGE = 500;

/**
 * The plan preview's verdict for every router a selector matched, as `PlanPreview.forRouter`
 * reaches it (the same effective spec, `resolvePlan` and diff against the applied revision's
 * plan) but a page of routers per query: the rollout form's counts and a rollout that leaves
 * the refused routers out must agree router for router, whatever the fleet's size.
 */
export async function planVerdicts(
  db: PrismaClient,
  revision: { id: string; profileId: string; spec: unknown; number: number },
  where: Prisma.RouterWhereInput,
  profileName: string,
): Promise<PlanVerdict[]> {
  const verdicts: PlanVerdict[] = [];
  // The applied revisions' plans differ per router (facts), but their specs repeat: validated once.
  const appliedSpecs = new Map<string, ReturnType<typeof validateProfileSpec>>();
  let cursor: { createdAt: Date; id: string } | undefined;
  for (;;) {
    const routers = await db.router.findMany({
      where: cursor
        ? {
            AND: [
              where,
              {
                OR: [{ createdAt: { gt: cursor.createdAt } }, { createdAt: cursor.createdAt, id: { gt: cursor.id } }],
              },
            ],
          }
        : where,
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      take: PAGE,
      select: {
        id: true,
        createdAt: true,
        facts: true,
        capabilities: true,
        soc: true,
        kernel: true,
        arch: true,
        endian: true,
        appliedRevisionId: true,
        appliedRevision: { select: { spec: true } },
        assignment: { select: { profileId: true, overrides: true } },
      },
    });
    for (const router of routers) {
      const effective = effectiveSpec(revision, router.assignment);
      if ('error' in effective) {
        verdicts.push({
          routerId: router.id,
          refused: `the router's overrides make profile ${profileName} r${revision.number} invalid: ${effective.error}`,
          changing: false,
        });
        continue;
      }
      const planRouter = planRouterOf(router);
      const plan = resolvePlan(effective.spec, planRouter);
      if (!plan.satisfiable) {
        verdicts.push({ routerId: router.id, refused: refusalText(plan), changing: false });
        continue;
      }
      let appliedPlan: Plan | null = null;
      if (router.appliedRevisionId && router.appliedRevision) {
        let valid = appliedSpecs.get(router.appliedRevisionId);
        if (!valid)
          appliedSpecs.set(router.appliedRevisionId, (valid = validateProfileSpec(router.appliedRevision.spec)));
        if (valid.ok) appliedPlan = resolvePlan(valid.spec, planRouter);
      }
      const changes = jsonDiff(appliedPlan ? planHashInput(appliedPlan) : {}, planHashInput(plan));
      verdicts.push({ routerId: router.id, refused: null, changing: changes.length > 0 });
    }
    if (routers.length < PAGE) return verdicts;
    const last = routers[routers.length - 1]!;
    cursor = { createdAt: last.createdAt, id: last.id };
  }
}

export function summarize(verdicts: readonly PlanVerdict[]): VerdictSummary {
  const summary: VerdictSummary = { satisfiable: 0, refused: 0, changing: 0, unchanged: 0 };
  for (const v of verdicts) {
    if (v.refused !== null) summary.refused += 1;
    else {
      summary.satisfiable += 1;
      summary[v.changing ? 'changing' : 'unchanged'] += 1;
    }
  }
  return summary;
}

/** The plan's refusals in one line, as a skipped target's reason. */
function refusalText(plan: Plan): string {
  return plan.refusals.map((r) => r.reason).join('; ') || 'the plan is not satisfiable';
}
