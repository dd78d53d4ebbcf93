import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { AlertRule, PrismaClient } from '../../prisma/generated/client/client.js';
import type { AlertsConfig } from './alerts-config.js';
import { conditionHolders, type ConditionContext, type ConditionHolder } from './alert-conditions.js';
import { groupKeyOf } from './alert-grouping.js';
import type { AlertKindName } from './alert-kinds.js';
import { notifyGroups } from './alert-notifications.js';
import { applySilences } from './alert-silences.js';
import { bulkInsert, type ColumnType } from '../storage/bulk-insert.js';

/** The columns a fired alert is inserted with (bulk-insert.ts); the rest take their defaults. */
const ALERT_COLUMNS: Record<string, ColumnType> = {
  id: 'text',
  ruleId: 'text',
  subjectKind: 'text',
  subjectId: 'text',
  subjectName: 'text',
  severity: '"AlertSeverity"',
  summary: 'text',
  groupKey: 'text',
  since: 'timestamptz',
  firedAt: 'timestamptz',
  openKey: 'text',
};

/** pg_try_advisory_xact_lock key: one evaluation at a time across every replica ("wrtfalrt"). */
export const ALERT_EVALUATION_LOCK = 0x77_72_74_66_61_6c_72_74n;
/** With nothing changed and nothing due, the state is looked at again this often anyway (rules, rollouts, certificates). */
const QUIET_EVALUATION_MS = 30_000;

export interface EvaluationOutcome {
  fired: number;
  resolved: number;
  notifications: number;
}

export interface AuditCheck {
  (db: PrismaClient): Promise<{ ok: boolean; reason?: string }>;
}

/**
 * Opens and resolves alerts from the state the controller keeps, then groups what changed into
 * notifications. Every replica ticks; a transaction-scoped advisory lock lets one evaluate at a
 * time, and alerts and notifications are written in that same transaction, so each is made
 * exactly once however many replicas share the fleet. A tick evaluates only when something can
 * have changed: the routers' change stamps (Router.stateChangedAt) moved, a held condition
 * reached its rule's `for` (one deadline for the whole fleet, not a timer per router), a group's
 * wait ended, something asked (a rule or silence edited), or QUIET_EVALUATION_MS passed.
 */
export class AlertEvaluator {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private asked = true;
  private readonly notified = new Set<() => void>();
  /** Evaluations this replica ran, and ticks it left to another replica holding the lock. */
  readonly counts = { evaluated: 0, lockedOut: 0 };

  constructor(
    private readonly db: PrismaClient,
    private readonly log: Logger,
    private readonly config: AlertsConfig,
    private readonly checkAudit: AuditCheck,
  ) {}

  /** Called after notifications were created (the delivery loop sends them at once). */
  onNotifications(listener: () => void): void {
    this.notified.add(listener);
  }

  /** The next tick evaluates whatever the stamps say (a rule, silence or acknowledgement changed). */
  requestSoon(): void {
    this.asked = true;
  }

  start(): void {
    this.timer = setInterval(() => void this.tick(), this.config.evaluateEveryMs);
    this.timer.unref();
    void this.tick();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  private async tick(): Promise<void> {
    if (this.running) return;
    const run = this.evaluate()
      .catch((err: unknown) => this.log.warn({ err }, 'alert evaluation failed'))
      .finally(() => (this.running = undefined));
    this.running = run;
    await run;
  }

  /** One evaluation; null when another replica holds the lock or nothing is due. */
  async evaluate(options: { force?: boolean } = {}): Promise<EvaluationOutcome | null> {
    const force = options.force || this.asked;
    this.asked = false;
    const auditVerdict = await this.auditVerdictIfDue();
    const outcome = await this.db.$transaction(
      async (tx) => {
        const [lock] = await tx.$queryRaw<{ locked: boolean }[]>`
          SELECT pg_try_advisory_xact_lock(${ALERT_EVALUATION_LOCK}) AS locked`;
        if (!lock?.locked) {
          this.counts.lockedOut += 1;
          return null;
        }
        this.counts.evaluated += 1;
        const [clock] = await tx.$queryRaw<{ now: Date }[]>`SELECT clock_timestamp() AS now`;
        const now = clock!.now;
        const mark = await tx.alertEvaluation.upsert({ where: { id: 1 }, create: { id: 1 }, update: {} });
        const [stamp] = await tx.$queryRaw<{ changed: Date | null }[]>`
          SELECT max("stateChangedAt") AS changed FROM "Router"`;
        const changed = stamp?.changed ?? null;
        let auditBroken = mark.auditBroken ? { since: mark.auditCheckedAt ?? now, reason: mark.auditBroken } : null;
        if (auditVerdict)
          auditBroken = auditVerdict.ok ? null : { since: now, reason: auditVerdict.reason ?? 'unknown' };
        const due =
          force ||
          auditVerdict !== undefined ||
          !mark.evaluatedAt ||
          (changed !== null && (!mark.routersSeenAt || changed > mark.routersSeenAt)) ||
          (mark.nextDueAt !== null && mark.nextDueAt <= now) ||
          now.getTime() - mark.evaluatedAt.getTime() >= QUIET_EVALUATION_MS;

        let fired = 0;
        let resolved = 0;
        let nextDueAt: Date | null = mark.nextDueAt;
        if (due) {
          nextDueAt = null;
          const rules = await tx.alertRule.findMany();
          const ctx: ConditionContext = { now, auditBroken };
          for (const rule of rules) {
            const result = await this.evaluateRule(tx, rule, ctx);
            fired += result.fired;
            resolved += result.resolved;
            if (result.nextDueAt && (!nextDueAt || result.nextDueAt < nextDueAt)) nextDueAt = result.nextDueAt;
          }
          await applySilences(tx, now);
        }
        const groups = await notifyGroups(tx, now);
        if (groups.nextDueAt && (!nextDueAt || groups.nextDueAt < nextDueAt)) nextDueAt = groups.nextDueAt;
        await tx.alertEvaluation.update({
          where: { id: 1 },
          data: {
            ...(due ? { evaluatedAt: now, routersSeenAt: changed } : {}),
            nextDueAt,
            ...(auditVerdict
              ? { auditCheckedAt: now, auditBroken: auditVerdict.ok ? null : (auditVerdict.reason ?? 'unknown') }
              : {}),
          },
        });
        return { fired, resolved, notifications: groups.notifications };
      },
      { maxWait: 10_000, timeout: 120_000 },
    );
    if (outcome && (outcome.fired || outcome.resolved || outcome.notifications))
      this.log.info(outcome, 'alerts evaluated');
    if (outcome?.notifications) for (const listener of this.notified) listener();
    return outcome;
  }

  private async evaluateRule(
    tx: Parameters<Parameters<PrismaClient['$transaction']>[0]>[0],
    rule: AlertRule,
    ctx: ConditionContext,
  ): Promise<{ fired: number; resolved: number; nextDueAt: Date | null }> {
    // Each replica opens and resolves its own (replica-health.ts).
    if (rule.kind === 'dependency_unreachable') return { fired: 0, resolved: 0, nextDueAt: null };
    const holders = rule.enabled ? await conditionHolders(tx, rule, ctx) : [];
    // Raw: thousands of rows, read each evaluation, at a fraction of Prisma's per-row cost.
    const open = await tx.$queryRaw<
      { id: string; subjectKind: string; subjectId: string; notifiedState: string | null }[]
    >`
      SELECT "id", "subjectKind", "subjectId", "notifiedState"::text AS "notifiedState"
        FROM "Alert" WHERE "ruleId" = ${rule.id} AND "state" = 'firing'`;
    const key = (kind: string, id: string) => `${kind}/${id}`;
    const holding = new Map<string, ConditionHolder>(holders.map((h) => [key(h.subjectKind, h.subjectId), h]));
    const openKeys = new Set(open.map((a) => key(a.subjectKind, a.subjectId)));

    // Resolved: open alerts whose condition no longer holds (or whose rule is disabled). One
    // never told firing has nothing to take back: it is marked told at once.
    const gone = open.filter((a) => !holding.has(key(a.subjectKind, a.subjectId)));
    const told = gone.filter((a) => a.notifiedState === 'firing').map((a) => a.id);
    const untold = gone.filter((a) => a.notifiedState !== 'firing').map((a) => a.id);
    if (told.length)
      await tx.alert.updateMany({
        where: { id: { in: told } },
        data: { state: 'resolved', resolvedAt: ctx.now, openKey: null },
      });
    if (untold.length)
      await tx.alert.updateMany({
        where: { id: { in: untold } },
        data: { state: 'resolved', resolvedAt: ctx.now, openKey: null, notifiedState: 'resolved' },
      });

    // Fired: held for the rule's `for` and not open yet. The rest set the next deadline.
    const forMs = rule.forSeconds * 1000;
    let nextDueAt: Date | null = null;
    const rows = [];
    for (const [k, h] of holding) {
      if (openKeys.has(k)) continue;
      const maturesAt = h.since.getTime() + forMs;
      if (maturesAt > ctx.now.getTime()) {
        if (!nextDueAt || maturesAt < nextDueAt.getTime()) nextDueAt = new Date(maturesAt);
        continue;
      }
      rows.push({
        id: randomUUID(),
        ruleId: rule.id,
        subjectKind: h.subjectKind,
        subjectId: h.subjectId,
        subjectName: h.subjectName,
        severity: rule.severity,
        summary: h.summary,
        groupKey: groupKeyOf(rule, h),
        since: h.since,
        firedAt: ctx.now,
        openKey: `${rule.id}/${k}`,
      });
    }
    // One INSERT with one JSON parameter (Prisma's createMany costs ~0.4 ms of CPU a row: 3,000
    // routers of a site going dark took 1.3 s). An open alert already there stays as it is.
    const created = await bulkInsert(tx, 'Alert', ALERT_COLUMNS, rows, { skipDuplicates: true, returning: ['id'] });
    if (created.length)
      this.log.debug({ rule: rule.name, kind: rule.kind as AlertKindName, fired: created.length }, 'alerts fired');
    return { fired: created.length, resolved: gone.length, nextDueAt };
  }

  private lastAuditCheck = 0;

  /** The audit chain is verified at most every rule's intervalSeconds (by the replica evaluating). */
  private async auditVerdictIfDue(): Promise<{ ok: boolean; reason?: string } | undefined> {
    const rule = await this.db.alertRule.findFirst({ where: { kind: 'audit_chain_broken', enabled: true } });
    if (!rule) return undefined;
    const everyMs = Number((rule.params as { intervalSeconds?: number }).intervalSeconds ?? 600) * 1000;
    const mark = await this.db.alertEvaluation.findUnique({ where: { id: 1 } });
    const last = Math.max(this.lastAuditCheck, mark?.auditCheckedAt?.getTime() ?? 0);
    if (Date.now() - last < everyMs) return undefined;
    this.lastAuditCheck = Date.now();
    return this.checkAudit(this.db);
  }
}
