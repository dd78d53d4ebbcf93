import type { Alert, AlertRule, AlertSilence, Prisma, PrismaClient } from '../../prisma/generated/client/client.js';
import type { AuditLog } from '../audit/audit-log.js';
import type { AlertKindName, AlertSeverityName } from './alert-kinds.js';

/** What an operator sees of an alert: firing, acknowledged (on it), silenced (held back), resolved. */
export const ALERT_STATUSES = ['firing', 'acknowledged', 'silenced', 'resolved'] as const;
export type AlertStatus = (typeof ALERT_STATUSES)[number];

type AlertRow = Alert & {
  rule: Pick<AlertRule, 'name' | 'kind'>;
  silence?: Pick<AlertSilence, 'id' | 'endsAt'> | null;
};

export interface AlertView {
  id: string;
  rule: { name: string; kind: AlertKindName };
  severity: AlertSeverityName;
  status: AlertStatus;
  subject: { kind: string; id: string; name: string };
  summary: string;
  group: string;
  since: string;
  firedAt: string;
  resolvedAt: string | null;
  acknowledged: { at: string; by: string; note: string | null } | null;
  silence: { id: string; endsAt: string } | null;
}

export interface AlertFilter {
  status?: AlertStatus | 'active';
  severity?: AlertSeverityName;
  rule?: string;
  router?: string;
  after?: { createdAt: Date; id: string };
  limit: number;
}

export class AlertNotFound extends Error {}
export class AlertResolved extends Error {}

export function statusOf(a: Pick<Alert, 'state' | 'silenceId' | 'acknowledgedAt'>): AlertStatus {
  if (a.state === 'resolved') return 'resolved';
  if (a.silenceId) return 'silenced';
  if (a.acknowledgedAt) return 'acknowledged';
  return 'firing';
}

function statusWhere(status: AlertFilter['status']): Prisma.AlertWhereInput {
  switch (status) {
    case undefined:
      return {};
    case 'active':
      return { state: 'firing' };
    case 'resolved':
      return { state: 'resolved' };
    case 'silenced':
      return { state: 'firing', silenceId: { not: null } };
    case 'acknowledged':
      return { state: 'firing', silenceId: null, acknowledgedAt: { not: null } };
    case 'firing':
      return { state: 'firing', silenceId: null, acknowledgedAt: null };
  }
}

/**
 * Unresolved alerts counted by status and severity, the status derived as `statusOf` derives it:
 * the console's badge (`AlertStore.summary`) and /metrics (`wrtfleet_alerts`) read this one query.
 */
export function unresolvedAlertCounts(
  db: Pick<PrismaClient, '$queryRaw'>,
): Promise<{ status: Exclude<AlertStatus, 'resolved'>; severity: AlertSeverityName; count: number }[]> {
  return db.$queryRaw`
    SELECT CASE WHEN "silenceId" IS NOT NULL THEN 'silenced'
                WHEN "acknowledgedAt" IS NOT NULL THEN 'acknowledged' ELSE 'firing' END AS status,
           "severity"::text AS severity, count(*)::int AS count
      FROM "Alert" WHERE "state" = 'firing' GROUP BY 1, 2`;
}

/** Alerts as the API reads them, and the one change an operator makes to one: acknowledging it. */
export class AlertStore {
  constructor(
    private readonly db: PrismaClient,
    private readonly audit: AuditLog,
  ) {}

  /** Newest first, keyset-paged on (firedAt, id). */
  async list(
    filter: AlertFilter,
  ): Promise<{ items: AlertView[]; last: { firedAt: Date; id: string } | null; more: boolean }> {
    const where: Prisma.AlertWhereInput = {
      ...statusWhere(filter.status),
      ...(filter.severity ? { severity: filter.severity } : {}),
      ...(filter.rule ? { rule: { name: filter.rule } } : {}),
      ...(filter.router ? { subjectKind: 'router', subjectId: filter.router } : {}),
      ...(filter.after
        ? {
            OR: [
              { firedAt: { lt: filter.after.createdAt } },
              { firedAt: filter.after.createdAt, id: { lt: filter.after.id } },
            ],
          }
        : {}),
    };
    const rows = await this.db.alert.findMany({
      where,
      orderBy: [{ firedAt: 'desc' }, { id: 'desc' }],
      take: filter.limit + 1,
      include: { rule: { select: { name: true, kind: true } } },
    });
    const page = rows.slice(0, filter.limit);
    const views = await this.views(page);
    const last = page.at(-1);
    return {
      items: views,
      last: last ? { firedAt: last.firedAt, id: last.id } : null,
      more: rows.length > filter.limit,
    };
  }

  async get(id: string): Promise<AlertView | null> {
    const row = await this.db.alert.findUnique({
      where: { id },
      include: { rule: { select: { name: true, kind: true } } },
    });
    return row ? ((await this.views([row]))[0] ?? null) : null;
  }

  /** Unresolved alerts by status and severity, for the console's badge. */
  async summary(): Promise<{
    firing: number;
    acknowledged: number;
    silenced: number;
    bySeverity: Record<AlertSeverityName, number>;
  }> {
    const rows = await unresolvedAlertCounts(this.db);
    const out = { firing: 0, acknowledged: 0, silenced: 0, bySeverity: { info: 0, warning: 0, critical: 0 } };
    for (const r of rows) {
      out[r.status] += r.count;
      if (r.status === 'firing') out.bySeverity[r.severity] += r.count;
    }
    return out;
  }

  /** Marks a firing alert as being looked after, with the operator's note (audited). */
  async acknowledge(id: string, note: string | null, ctx: { actor: string; requestId?: string }): Promise<AlertView> {
    await this.audit.record(async (tx) => {
      const row = await tx.alert.findUnique({ where: { id } });
      if (!row) throw new AlertNotFound(`no alert has id ${id}`);
      if (row.state === 'resolved') throw new AlertResolved(`alert ${id} resolved at ${row.resolvedAt?.toISOString()}`);
      const at = new Date();
      await tx.alert.update({ where: { id }, data: { acknowledgedAt: at, acknowledgedBy: ctx.actor, ackNote: note } });
      return {
        result: null,
        event: {
          actor: ctx.actor,
          action: 'alert.acknowledged',
          targetType: 'alert',
          targetId: id,
          before: row.acknowledgedAt ? { acknowledgedBy: row.acknowledgedBy, note: row.ackNote } : null,
          after: { subject: row.subjectName, summary: row.summary, note },
          requestId: ctx.requestId ?? null,
        },
      };
    });
    return (await this.get(id))!;
  }

  private async views(rows: AlertRow[]): Promise<AlertView[]> {
    const silenceIds = [...new Set(rows.map((r) => r.silenceId).filter((s): s is string => !!s))];
    const silences = new Map(
      (silenceIds.length
        ? await this.db.alertSilence.findMany({ where: { id: { in: silenceIds } }, select: { id: true, endsAt: true } })
        : []
      ).map((s) => [s.id, s]),
    );
    return rows.map((a) => {
      const silence = a.silenceId ? silences.get(a.silenceId) : undefined;
      return {
        id: a.id,
        rule: { name: a.rule.name, kind: a.rule.kind as AlertKindName },
        severity: a.severity as AlertSeverityName,
        status: statusOf(a),
        subject: { kind: a.subjectKind, id: a.subjectId, name: a.subjectName },
        summary: a.summary,
        group: a.groupKey,
        since: a.since.toISOString(),
        firedAt: a.firedAt.toISOString(),
        resolvedAt: a.resolvedAt?.toISOString() ?? null,
        acknowledged: a.acknowledgedAt
          ? { at: a.acknowledgedAt.toISOString(), by: a.acknowledgedBy ?? '', note: a.ackNote }
          : null,
        silence: a.state === 'firing' && silence ? { id: silence.id, endsAt: silence.endsAt.toISOString() } : null,
      };
    });
  }
}
