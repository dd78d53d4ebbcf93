import { Type, type Static } from '@fastify/type-provider-typebox';
import { Prisma, type AlertRule, type PrismaClient } from '../../prisma/generated/client/client.js';
import type { AuditLog } from '../audit/audit-log.js';
import { StringEnum } from '../http/shared-schemas.js';
import { canonicalSelector, selectorWhere, SelectorSchema, type Selector } from '../fleet/selector.js';
import {
  ALERT_KINDS,
  ALERT_SEVERITIES,
  isRouterKind,
  type AlertKindName,
  type AlertSeverityName,
} from './alert-kinds.js';

export const AlertSeveritySchema = StringEnum(ALERT_SEVERITIES, {
  title: 'AlertSeverity',
  description: 'info, warning or critical',
});
export const AlertKindSchema = StringEnum(ALERT_KINDS, { title: 'AlertKind', description: 'What the rule watches' });

export const RULE_NAME_PATTERN = '^[a-z0-9][a-z0-9-]{0,62}$';

const RuleFields = {
  severity: AlertSeveritySchema,
  selector: Type.Union([SelectorSchema, Type.Null()], {
    description: 'Which routers the rule covers (router kinds only); null: every router',
  }),
  forSeconds: Type.Integer({
    minimum: 0,
    maximum: 7 * 86_400,
    description: 'How long the condition must hold before the alert fires; a flap inside it fires nothing',
  }),
  params: Type.Object(
    {
      days: Type.Optional(
        Type.Integer({ minimum: 1, maximum: 365, description: 'certificate_expiring: within how many days' }),
      ),
      intervalSeconds: Type.Optional(
        Type.Integer({
          minimum: 60,
          maximum: 86_400,
          description: 'audit_chain_broken: how often the chain is verified',
        }),
      ),
    },
    { additionalProperties: false },
  ),
  groupBy: Type.Union([Type.String({ pattern: '^[A-Za-z0-9_.-]{1,32}$' }), Type.Null()], {
    description:
      'Router kinds: group alerts by the tag with this prefix ("site" groups site:ams apart from site:fra); null: one group',
  }),
  groupWaitSeconds: Type.Integer({
    minimum: 0,
    maximum: 3600,
    description: "A group's first notification waits this long after its first alert for the ones that follow",
  }),
  groupIntervalSeconds: Type.Integer({
    minimum: 10,
    maximum: 86_400,
    description: "A group's later changes are sent at most this often",
  }),
  enabled: Type.Boolean(),
};

export const AlertRuleInputSchema = Type.Object(
  {
    name: Type.String({ pattern: RULE_NAME_PATTERN, description: 'Lower-case letters, digits and dashes' }),
    kind: AlertKindSchema,
    severity: RuleFields.severity,
    selector: Type.Optional(RuleFields.selector),
    forSeconds: Type.Optional(RuleFields.forSeconds),
    params: Type.Optional(RuleFields.params),
    groupBy: Type.Optional(RuleFields.groupBy),
    groupWaitSeconds: Type.Optional(RuleFields.groupWaitSeconds),
    groupIntervalSeconds: Type.Optional(RuleFields.groupIntervalSeconds),
    enabled: Type.Optional(RuleFields.enabled),
  },
  { additionalProperties: false },
);
export type AlertRuleInput = Static<typeof AlertRuleInputSchema>;

export const AlertRulePatchSchema = Type.Partial(Type.Object(RuleFields, { additionalProperties: false }), {
  additionalProperties: false,
  minProperties: 1,
});
export type AlertRulePatch = Static<typeof AlertRulePatchSchema>;

export interface AlertRuleView {
  name: string;
  kind: AlertKindName;
  severity: AlertSeverityName;
  selector: Selector | null;
  forSeconds: number;
  params: { days?: number; intervalSeconds?: number };
  groupBy: string | null;
  groupWaitSeconds: number;
  groupIntervalSeconds: number;
  enabled: boolean;
  firing: number;
  updatedAt: string;
}

export class RuleRefused extends Error {
  constructor(
    readonly status: 404 | 409 | 400,
    readonly field: string | null,
    message: string,
  ) {
    super(message);
  }
}

/** Alert rules: the shipped defaults and the admins' own, every change audited. */
export class AlertRules {
  constructor(
    private readonly db: PrismaClient,
    private readonly audit: AuditLog,
  ) {}

  async list(): Promise<AlertRuleView[]> {
    const [rules, counts] = await Promise.all([
      this.db.alertRule.findMany({ orderBy: { name: 'asc' } }),
      this.db.alert.groupBy({ by: ['ruleId'], where: { state: 'firing' }, _count: { _all: true } }),
    ]);
    const firing = new Map(counts.map((c) => [c.ruleId, c._count._all]));
    return rules.map((r) => view(r, firing.get(r.id) ?? 0));
  }

  async get(name: string): Promise<AlertRuleView | null> {
    const rule = await this.db.alertRule.findUnique({ where: { name } });
    if (!rule) return null;
    return view(rule, await this.db.alert.count({ where: { ruleId: rule.id, state: 'firing' } }));
  }

  async create(input: AlertRuleInput, ctx: { actor: string; requestId?: string }): Promise<AlertRuleView> {
    const data = checked(input.kind, { ...input });
    const created = await this.audit.record(async (tx) => {
      if (await tx.alertRule.findUnique({ where: { name: input.name } }))
        throw new RuleRefused(409, 'name', `an alert rule named "${input.name}" exists`);
      const rule = await tx.alertRule.create({
        data: {
          name: input.name,
          kind: input.kind,
          severity: input.severity,
          selector: data.selector ?? undefined,
          forSeconds: input.forSeconds ?? 0,
          params: input.params ?? {},
          groupBy: data.groupBy ?? null,
          groupWaitSeconds: input.groupWaitSeconds ?? 60,
          groupIntervalSeconds: input.groupIntervalSeconds ?? 300,
          enabled: input.enabled ?? true,
        },
      });
      return {
        result: rule,
        event: {
          actor: ctx.actor,
          action: 'alert.rule_created',
          targetType: 'alert_rule',
          targetId: rule.name,
          after: view(rule, 0),
          requestId: ctx.requestId ?? null,
        },
      };
    });
    return view(created, 0);
  }

  async update(
    name: string,
    patch: AlertRulePatch,
    ctx: { actor: string; requestId?: string },
  ): Promise<AlertRuleView> {
    await this.audit.record(async (tx) => {
      const before = await tx.alertRule.findUnique({ where: { name } });
      if (!before) throw new RuleRefused(404, null, `no alert rule is named "${name}"`);
      const data = checked(before.kind as AlertKindName, { ...patch });
      const after = await tx.alertRule.update({
        where: { id: before.id },
        data: {
          ...patch,
          selector: patch.selector === undefined ? undefined : (data.selector ?? Prisma.DbNull),
        },
      });
      return {
        result: null,
        event: {
          actor: ctx.actor,
          action: 'alert.rule_changed',
          targetType: 'alert_rule',
          targetId: name,
          before: view(before, 0),
          after: view(after, 0),
          requestId: ctx.requestId ?? null,
        },
      };
    });
    return (await this.get(name))!;
  }

  /** Removes a rule and its alerts' history (their notifications already sent stay in the delivery log). */
  async remove(name: string, ctx: { actor: string; requestId?: string }): Promise<boolean> {
    return this.audit.record(async (tx) => {
      const rule = await tx.alertRule.findUnique({ where: { name } });
      if (!rule) return { result: false, event: null };
      await tx.alertRule.delete({ where: { id: rule.id } });
      await tx.alertGroup.deleteMany({ where: { ruleId: rule.id } });
      return {
        result: true,
        event: {
          actor: ctx.actor,
          action: 'alert.rule_removed',
          targetType: 'alert_rule',
          targetId: name,
          before: view(rule, 0),
          requestId: ctx.requestId ?? null,
        },
      };
    });
  }
}

/** Checks what the schema cannot: router-only fields on router kinds, a selector that names something. */
function checked(
  kind: AlertKindName,
  fields: { selector?: Selector | null; groupBy?: string | null; params?: { days?: number; intervalSeconds?: number } },
): { selector: Selector | null | undefined; groupBy: string | null | undefined } {
  const router = isRouterKind(kind);
  if (!router && fields.selector)
    throw new RuleRefused(400, 'selector', `${kind} rules are not about routers: no selector`);
  if (!router && fields.groupBy)
    throw new RuleRefused(400, 'groupBy', `${kind} rules are not about routers: no groupBy`);
  if (fields.params?.days !== undefined && kind !== 'certificate_expiring')
    throw new RuleRefused(400, 'params/days', 'params.days is for certificate_expiring rules');
  if (fields.params?.intervalSeconds !== undefined && kind !== 'audit_chain_broken')
    throw new RuleRefused(400, 'params/intervalSeconds', 'params.intervalSeconds is for audit_chain_broken rules');
  let selector = fields.selector;
  if (selector) {
    selector = canonicalSelector(selector);
    selectorWhere(selector); // throws InvalidSelector naming what is wrong
  }
  return { selector, groupBy: fields.groupBy };
}

function view(rule: AlertRule, firing: number): AlertRuleView {
  return {
    name: rule.name,
    kind: rule.kind as AlertKindName,
    severity: rule.severity as AlertSeverityName,
    selector: (rule.selector as Selector | null) ?? null,
    forSeconds: rule.forSeconds,
    params: rule.params as AlertRuleView['params'],
    groupBy: rule.groupBy,
    groupWaitSeconds: rule.groupWaitSeconds,
    groupIntervalSeconds: rule.groupIntervalSeconds,
    enabled: rule.enabled,
    firing,
    updatedAt: rule.updatedAt.toISOString(),
  };
}
