import type { PrismaClient } from '../../prisma/generated/client/client.js';

/** A stored subject whose creating audit event is not in the history. */
export interface UnauditedSubject {
  kind: 'router' | 'profile_revision' | 'rollout' | 'api_token' | 'command_job';
  id: string;
  /** For a profile revision, "<profile>@<number>": what an operator looks it up by. */
  label?: string;
}

/** Subjects listed at most per kind; the count says how many there are in all. */
const LISTED_PER_KIND = 100;

/** The events that create a router: a first Hello, or an enrollment before it. */
const ROUTER_CREATED = ['router.registered', 'router.enrolled'];

/**
 * Finds routers, profile revisions, rollouts, API tokens and command jobs that have no creating event. The
 * hash chain only proves that the events it holds are intact; an event that was never
 * written, or whose row was deleted with the chain re-linked, shows up only here.
 */
export async function findUnauditedSubjects(
  db: PrismaClient,
): Promise<{ missing: UnauditedSubject[]; missingCount: number }> {
  const [routers, revisions, rollouts, tokens, commandJobs] = await Promise.all([
    db.$queryRaw<{ id: string; total: bigint }[]>`
      SELECT r.id, count(*) OVER () AS total FROM "Router" r
      WHERE NOT EXISTS (SELECT 1 FROM "AuditEvent" e
        WHERE e."targetType" = 'router' AND e."targetId" = r.id AND e.action = ANY(${ROUTER_CREATED}))
      ORDER BY r."createdAt", r.id LIMIT ${LISTED_PER_KIND}`,
    db.$queryRaw<{ id: string; label: string; total: bigint }[]>`
      SELECT v.id, p.name || '@' || v.number AS label, count(*) OVER () AS total
      FROM "ProfileRevision" v JOIN "Profile" p ON p.id = v."profileId"
      WHERE NOT EXISTS (SELECT 1 FROM "AuditEvent" e
        WHERE e."targetType" = 'profile' AND e."targetId" = p.name
          AND e.action IN ('profile.created', 'profile.revised')
          AND e.after->>'revision' = v.number::text)
      ORDER BY p.name, v.number LIMIT ${LISTED_PER_KIND}`,
    db.$queryRaw<{ id: string; total: bigint }[]>`
      SELECT r.id, count(*) OVER () AS total FROM "Rollout" r
      WHERE NOT EXISTS (SELECT 1 FROM "AuditEvent" e
        WHERE e."targetType" = 'rollout' AND e."targetId" = r.id AND e.action = 'rollout.created')
      ORDER BY r."createdAt", r.id LIMIT ${LISTED_PER_KIND}`,
    db.$queryRaw<{ id: string; total: bigint }[]>`
      SELECT t.id, count(*) OVER () AS total FROM "ApiToken" t
      WHERE NOT EXISTS (SELECT 1 FROM "AuditEvent" e
        WHERE e."targetType" = 'api_token' AND e."targetId" = t.id AND e.action = 'api_token.created')
      ORDER BY t."createdAt", t.id LIMIT ${LISTED_PER_KIND}`,
    db.$queryRaw<{ id: string; total: bigint }[]>`
      SELECT j.id, count(*) OVER () AS total FROM "CommandJob" j
      WHERE NOT EXISTS (SELECT 1 FROM "AuditEvent" e
        WHERE e."targetType" = 'command_job' AND e."targetId" = j.id AND e.action = 'command.created')
      ORDER BY j."createdAt", j.id LIMIT ${LISTED_PER_KIND}`,
  ]);
  const missing: UnauditedSubject[] = [
    ...routers.map((r) => ({ kind: 'router' as const, id: r.id })),
    ...revisions.map((r) => ({ kind: 'profile_revision' as const, id: r.id, label: r.label })),
    ...rollouts.map((r) => ({ kind: 'rollout' as const, id: r.id })),
    ...tokens.map((r) => ({ kind: 'api_token' as const, id: r.id })),
    ...commandJobs.map((r) => ({ kind: 'command_job' as const, id: r.id })),
  ];
  const missingCount = [routers, revisions, rollouts, tokens, commandJobs].reduce(
    (n, rows) => n + Number(rows[0]?.total ?? 0),
    0,
  );
  return { missing, missingCount };
}
