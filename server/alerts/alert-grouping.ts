import type { AlertRule } from '../../prisma/generated/client/client.js';
import type { ConditionHolder } from './alert-conditions.js';
import { isRouterKind, type AlertKindName } from './alert-kinds.js';

/** The group of router alerts without the rule's grouping tag, or of a rule that does not group by one. */
export const WHOLE_FLEET_GROUP = 'fleet';

/**
 * Which notification group an alert joins: a router's tag with the rule's prefix ("site" →
 * "site:ams"), so one site losing power is one message; "site:none" for routers without such a
 * tag. Alerts about other subjects (a rollout, the audit chain, a replica) are each their own group.
 */
export function groupKeyOf(rule: Pick<AlertRule, 'kind' | 'groupBy'>, holder: ConditionHolder): string {
  if (!isRouterKind(rule.kind as AlertKindName)) return `${holder.subjectKind}:${holder.subjectName}`;
  if (!rule.groupBy) return WHOLE_FLEET_GROUP;
  const prefix = `${rule.groupBy}:`;
  return holder.tags.find((t) => t.startsWith(prefix)) ?? `${prefix}none`;
}
