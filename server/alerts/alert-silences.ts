import type { AlertSilence, Prisma, PrismaClient } from '../../prisma/generated/client/client.js';
import type { AuditLog } from '../audit/audit-log.js';
import { canonicalSelector, selectorWhere, type Selector } from '../fleet/selector.js';

type Db = Prisma.TransactionClient;

export interface SilenceInput {
  rule?: string;
  selector?: Selector;
  comment: string;
  startsAt?: Date;
  endsAt: Date;
}

export class SilenceRefused extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

/** Silences: made and expired by operators (audited), matched against firing alerts by the evaluator. */
export class AlertSilences {
  constructor(
    private readonly db: PrismaClient,
    private readonly audit: AuditLog,
  ) {}

  async create(input: SilenceInput, ctx: { actor: string; requestId?: string }): Promise<AlertSilence> {
    const startsAt = input.startsAt ?? new Date();
    if (input.endsAt <= startsAt) throw new SilenceRefused('endsAt', 'endsAt must be after startsAt');
    if (input.endsAt.getTime() <= Date.now()) throw new SilenceRefused('endsAt', 'endsAt must be in the future');
    const selector = input.selector ? canonicalSelector(input.selector) : undefined;
    if (selector) selectorWhere(selector); // throws InvalidSelector naming what is wrong
    if (input.rule && !(await this.db.alertRule.findUnique({ where: { name: input.rule } })))
      throw new SilenceRefused('rule', `no alert rule is named "${input.rule}"`);
    return this.audit.record(async (tx) => {
      const silence = await tx.alertSilence.create({
        data: {
          ruleName: input.rule ?? null,
          selector: selector ?? undefined,
          comment: input.comment,
          startsAt,
          endsAt: input.endsAt,
          createdBy: ctx.actor,
        },
      });
      return {
        result: silence,
        event: {
          actor: ctx.actor,
          action: 'alert.silence_created',
          targetType: 'alert_silence',
          targetId: silence.id,
          after: {
            rule: silence.ruleName,
            selector: silence.selector,
            comment: silence.comment,
            startsAt,
            endsAt: input.endsAt,
          },
          requestId: ctx.requestId ?? null,
        },
      };
    });
  }

  /** Ends a silence now; false when there is none or it has ended already. */
  async expire(id: string, ctx: { actor: string; requestId?: string }): Promise<boolean> {
    return this.audit.record(async (tx) => {
      const now = new Date();
      const { count } = await tx.alertSilence.updateMany({ where: { id, endsAt: { gt: now } }, data: { endsAt: now } });
      return {
        result: count === 1,
        event:
          count === 1
            ? {
                actor: ctx.actor,
                action: 'alert.silence_expired',
                targetType: 'alert_silence',
                targetId: id,
                requestId: ctx.requestId ?? null,
              }
            : null,
      };
    });
  }

  list(options: { includeEnded: boolean }): Promise<AlertSilence[]> {
    return this.db.alertSilence.findMany({
      where: options.includeEnded ? {} : { endsAt: { gt: new Date() } },
      orderBy: [{ endsAt: 'desc' }, { id: 'asc' }],
      take: 500,
    });
  }
}

/**
 * Marks each firing alert with the silence holding it back (or none): a silence names a rule,
 * routers by selector, or both, and holds back exactly the alerts it names while it lasts.
 */
export async function applySilences(tx: Db, now: Date): Promise<void> {
  const active = await tx.alertSilence.findMany({
    where: { startsAt: { lte: now }, endsAt: { gt: now } },
    orderBy: { createdAt: 'asc' },
  });
  await tx.alert.updateMany({
    where: { state: 'firing', silenceId: { not: null, notIn: active.map((s) => s.id) } },
    data: { silenceId: null },
  });
  for (const silence of active) {
    const where: Prisma.AlertWhereInput = { state: 'firing', silenceId: null };
    if (silence.ruleName) where.rule = { name: silence.ruleName };
    if (silence.selector) {
      const routers = await tx.router.findMany({
        where: selectorWhere(silence.selector as Selector),
        select: { id: true },
      });
      where.subjectKind = 'router';
      where.subjectId = { in: routers.map((r) => r.id) };
    }
    await tx.alert.updateMany({ where, data: { silenceId: silence.id } });
  }
}
