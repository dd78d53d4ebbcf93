import { AlertKind, AlertSeverity } from '../../prisma/generated/client/enums.js';
import { prismaEnumValues } from '../storage/prisma-enums.js';

export const ALERT_KINDS = prismaEnumValues(AlertKind);
export const ALERT_SEVERITIES = prismaEnumValues(AlertSeverity);
export type AlertKindName = (typeof ALERT_KINDS)[number];
export type AlertSeverityName = (typeof ALERT_SEVERITIES)[number];

/** What a kind's alerts are about, and how a notification names them. */
interface KindWords {
  /** The alert's subject: a router, a rollout, the controller's audit chain, a replica. */
  subject: 'router' | 'rollout' | 'audit' | 'replica';
  /** "offline": "300 routers offline: site:ams". */
  firing: string;
  /** "back online": "12 routers back online: site:ams". */
  resolved: string;
}

export const KIND_WORDS: Record<AlertKindName, KindWords> = {
  router_offline: { subject: 'router', firing: 'offline', resolved: 'back online' },
  drift_detected: { subject: 'router', firing: 'drifted from their plan', resolved: 'back in line with their plan' },
  apply_failed: { subject: 'router', firing: 'failed to apply or rolled back', resolved: 'applied again' },
  certificate_expiring: { subject: 'router', firing: 'with an agent certificate expiring', resolved: 'renewed' },
  rollout_paused: { subject: 'rollout', firing: 'paused', resolved: 'running again or ended' },
  audit_chain_broken: { subject: 'audit', firing: 'failed verification', resolved: 'verifies again' },
  dependency_unreachable: {
    subject: 'replica',
    firing: 'cannot reach a dependency',
    resolved: 'reaches its dependencies again',
  },
};

/** Kinds whose alerts are about routers: they take a selector and group by a tag. */
export function isRouterKind(kind: AlertKindName): boolean {
  return KIND_WORDS[kind].subject === 'router';
}

const SEVERITY_RANK: Record<AlertSeverityName, number> = { info: 0, warning: 1, critical: 2 };

/** True when `severity` is at least `floor` (a channel's minSeverity). */
export function atLeast(severity: AlertSeverityName, floor: AlertSeverityName): boolean {
  return SEVERITY_RANK[severity] >= SEVERITY_RANK[floor];
}

/** "1 router", "300 routers". */
export function countOf(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
