import type { AlertRule, Prisma } from '../../prisma/generated/client/client.js';
import { selectorWhere, type Selector } from '../fleet/selector.js';
import type { AlertKindName } from './alert-kinds.js';

type Db = Prisma.TransactionClient;

/** A subject whose rule's condition holds now, and since when. */
export interface ConditionHolder {
  subjectKind: 'router' | 'rollout' | 'audit' | 'replica';
  subjectId: string;
  subjectName: string;
  since: Date;
  /** A router's tags, for grouping by one of them. */
  tags: string[];
  summary: string;
}

/** What the evaluator learnt outside the database's rows (the audit chain's last verdict). */
export interface ConditionContext {
  now: Date;
  auditBroken: { since: Date; reason: string } | null;
}

const DAY_MS = 86_400_000;

/** The rule's routers: its selector, or the whole live fleet without one. */
function ruleRouters(rule: AlertRule): Prisma.RouterWhereInput {
  return rule.selector ? selectorWhere(rule.selector as Selector) : { decommissionedAt: null };
}

function at(date: Date): string {
  return date.toISOString().replace(/\.\d+Z$/, 'Z');
}

/**
 * Every subject for which the rule's condition holds now, whether or not it has held for the
 * rule's `for` yet: one query per rule over the state the controller keeps (router rows, their
 * certificates, rollouts), so a flap that ended is simply absent from the next answer.
 */
export async function conditionHolders(db: Db, rule: AlertRule, ctx: ConditionContext): Promise<ConditionHolder[]> {
  const kind = rule.kind as AlertKindName;
  const select = { id: true, name: true, tags: true, lastSeenAt: true, stateChangedAt: true } as const;
  switch (kind) {
    case 'router_offline': {
      const rows = await pagedRouters(db, { AND: [ruleRouters(rule), { status: 'offline' }] }, select);
      return rows.map((r) => {
        const since = r.lastSeenAt ?? r.stateChangedAt;
        return router(r, since, `${r.name} offline, last heard from ${at(since)}`);
      });
    }
    case 'drift_detected': {
      const rows = await pagedRouters(db, { AND: [ruleRouters(rule), { drifted: true }] }, select);
      return rows.map((r) => router(r, r.stateChangedAt, `${r.name} drifted from its plan`));
    }
    case 'apply_failed': {
      const rows = await db.router.findMany({
        where: { AND: [ruleRouters(rule), { lastApplyStatus: { in: ['failed', 'rolled_back'] } }] },
        select: { ...select, lastApplyStatus: true },
      });
      return rows.map((r) =>
        router(
          r,
          r.stateChangedAt,
          `${r.name}: its last apply ${r.lastApplyStatus === 'failed' ? 'failed' : 'was rolled back'}`,
        ),
      );
    }
    case 'certificate_expiring': {
      const days = Number((rule.params as { days?: number }).days ?? 14);
      // A router's newest certificate decides: an agent that renewed is fine whatever its old one
      // says. Agents renew once two thirds of a certificate's life have passed, so a healthy one
      // always has a third left: it is expiring inside `days`, or past three quarters of a short
      // life (6 h of a day-long one: its renewal 2 h overdue), whichever comes first.
      const rows = await db.router.findMany({
        where: { AND: [ruleRouters(rule), { certificates: { some: { revokedAt: null } } }] },
        select: { ...select, certificates: { where: { revokedAt: null }, orderBy: { notAfter: 'desc' }, take: 1 } },
      });
      return rows.flatMap((r) => {
        const newest = r.certificates[0];
        if (!newest) return [];
        const life = newest.notAfter.getTime() - newest.notBefore.getTime();
        const warnMs = Math.min(days * DAY_MS, life / 4);
        if (newest.notAfter.getTime() - ctx.now.getTime() > warnMs) return [];
        const since = new Date(newest.notAfter.getTime() - warnMs);
        const verb = newest.notAfter <= ctx.now ? 'expired' : 'expires';
        return [router(r, since, `${r.name}: its agent certificate ${verb} ${at(newest.notAfter)}, not renewed`)];
      });
    }
    case 'rollout_paused': {
      const rows = await db.rollout.findMany({
        where: { state: 'paused' },
        select: {
          id: true,
          pauseReason: true,
          updatedAt: true,
          revision: { select: { number: true, profile: { select: { name: true } } } },
          firmwareImage: { select: { fileName: true } },
        },
      });
      return rows.map((r) => {
        const what = r.revision
          ? `${r.revision.profile.name} r${r.revision.number}`
          : (r.firmwareImage?.fileName ?? 'firmware');
        const name = `${what} (${r.id.slice(0, 8)})`;
        return {
          subjectKind: 'rollout' as const,
          subjectId: r.id,
          subjectName: name,
          since: r.updatedAt,
          tags: [],
          summary: `rollout of ${name} paused${r.pauseReason ? `: ${r.pauseReason}` : ''}`,
        };
      });
    }
    case 'audit_chain_broken':
      return ctx.auditBroken
        ? [
            {
              subjectKind: 'audit',
              subjectId: 'chain',
              subjectName: 'audit chain',
              since: ctx.auditBroken.since,
              tags: [],
              summary: `the audit chain failed verification: ${ctx.auditBroken.reason}`,
            },
          ]
        : [];
    case 'dependency_unreachable':
      // Reported by each replica itself (replica-health.ts): not a condition over shared state.
      return [];
  }
}

/** Rows converted per query: a site gone dark is read in pages, each a short turn of the event loop. */
const PAGE = 500;

/** The routers matching `where`, read a page at a time in id order, so the API's requests get turns between pages. */
async function pagedRouters<S extends Prisma.RouterSelect & { id: true }>(
  db: Db,
  where: Prisma.RouterWhereInput,
  select: S,
): Promise<Prisma.RouterGetPayload<{ select: S }>[]> {
  const all: Prisma.RouterGetPayload<{ select: S }>[] = [];
  let after: string | undefined;
  for (;;) {
    const page = (await db.router.findMany({
      where: after ? { AND: [where, { id: { gt: after } }] } : where,
      select,
      orderBy: { id: 'asc' },
      take: PAGE,
    })) as Prisma.RouterGetPayload<{ select: S }>[];
    all.push(...page);
    if (page.length < PAGE) return all;
    after = (page.at(-1) as { id: string }).id;
  }
}

function router(r: { id: string; name: string; tags: string[] }, since: Date, summary: string): ConditionHolder {
  return { subjectKind: 'router', subjectId: r.id, subjectName: r.name, since, tags: r.tags, summary };
}
