/**
 * How the timeline names an event's subject: its type, then its display name from the API
 * (a router's name, a rollout's profile@revision, ...), whole, or its id when it has none; and
 * the page it has, if any. Pure, unit-tested in test/web-admin/logic/audit-target.unit.test.ts.
 */

export interface AuditTarget {
  /** e.g. "router lyon-1", "profile ttl64-office-hours", "command_job rollback on lyon-1". */
  label: string;
  /** The console page of the subject, or null. */
  path: string | null;
  /** The id, shown on hover when the label names it otherwise. */
  title: string | undefined;
}

const PAGES: Record<string, (id: string) => string> = {
  router: (id) => `/routers/${encodeURIComponent(id)}`,
  rollout: (id) => `/rollouts/${encodeURIComponent(id)}`,
  command_job: (id) => `/commands/${encodeURIComponent(id)}`,
  job: (id) => `/onboarding?${new URLSearchParams({ jobs: id }).toString()}`,
};

export function auditTargetOf(event: {
  targetType: string;
  targetId: string | null;
  targetName?: string | null;
}): AuditTarget {
  if (!event.targetId) return { label: event.targetType, path: null, title: undefined };
  const name = event.targetName ?? event.targetId;
  return {
    label: `${event.targetType} ${name}`,
    path: PAGES[event.targetType]?.(event.targetId) ?? null,
    title: name === event.targetId ? undefined : event.targetId,
  };
}
