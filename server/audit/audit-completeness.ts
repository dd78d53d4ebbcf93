import { Type, type Static } from '@sinclair/typebox';
import type { PrismaClient } from '../../prisma/generated/client/client.js';
import { ONBOARDING_JOB_KIND } from '../onboarding/onboarding-service.js';

/** What can lack its event: the API's schema and the type below are this one list. */
export const UnauditedKind = Type.Union([
  Type.Literal('router'),
  Type.Literal('profile_revision'),
  Type.Literal('rollout'),
  Type.Literal('api_token'),
  Type.Literal('certificate'),
  Type.Literal('onboarding_job'),
  Type.Literal('command_job'),
  Type.Literal('account'),
]);

/** A stored subject, or a stored change of one, whose audit event is not in the history. */
export interface UnauditedSubject {
  kind: Static<typeof UnauditedKind>;
  id: string;
  /** For a profile revision, "<profile>@<number>": what an operator looks it up by. */
  label?: string;
  /** The action of the event it lacks ("a or b" when either would do). */
  missingEvent: string;
}

/** Subjects listed at most per check; the count says how many there are in all. */
const LISTED_PER_KIND = 100;

/** The events that create a router: a first Hello, or an enrollment before it. */
const ROUTER_CREATED = ['router.registered', 'router.enrolled'];
/** The events that issue a certificate, each naming its serial. */
const CERTIFICATE_ISSUED = ['router.enrolled', 'router.reenrolled', 'router.certificate_renewed'];

type Row = { id: string; label?: string; total: bigint };

/**
 * Finds what the store holds without the audit event that brought it about: routers, profile
 * revisions, rollouts, API tokens, operator accounts and onboarding jobs without their creating event,
 * certificates without the event that issued them, and the changes whose event commits with
 * them: a decommissioned router without `router.decommissioned`, a revoked token without
 * `api_token.revoked`, a completed or cancelled rollout without its closing event. The hash
 * chain only proves that the events it holds are intact; an event that was never written, or
 * whose row was deleted with the chain re-linked, shows up only here.
 */
export async function findUnauditedSubjects(
  db: PrismaClient,
): Promise<{ missing: UnauditedSubject[]; missingCount: number }> {
  const checks: { kind: UnauditedSubject['kind']; missingEvent: (row: Row) => string; rows: Promise<Row[]> }[] = [
    {
      kind: 'router',
      missingEvent: () => ROUTER_CREATED.join(' or '),
      rows: db.$queryRaw<Row[]>`
        SELECT r.id, count(*) OVER () AS total FROM "Router" r
        WHERE NOT EXISTS (SELECT 1 FROM "AuditEvent" e
          WHERE e."targetType" = 'router' AND e."targetId" = r.id AND e.action = ANY(${ROUTER_CREATED}))
        ORDER BY r."createdAt", r.id LIMIT ${LISTED_PER_KIND}`,
    },
    {
      kind: 'router',
      missingEvent: () => 'router.decommissioned',
      rows: db.$queryRaw<Row[]>`
        SELECT r.id, count(*) OVER () AS total FROM "Router" r
        WHERE r."decommissionedAt" IS NOT NULL AND NOT EXISTS (SELECT 1 FROM "AuditEvent" e
          WHERE e."targetType" = 'router' AND e."targetId" = r.id AND e.action = 'router.decommissioned')
        ORDER BY r."decommissionedAt", r.id LIMIT ${LISTED_PER_KIND}`,
    },
    {
      kind: 'certificate',
      missingEvent: () => CERTIFICATE_ISSUED.join(' or '),
      rows: db.$queryRaw<Row[]>`
        SELECT c.serial AS id, count(*) OVER () AS total FROM "AgentCertificate" c
        WHERE NOT EXISTS (SELECT 1 FROM "AuditEvent" e
          WHERE e."targetType" = 'router' AND e."targetId" = c."routerId" AND e.action = ANY(${CERTIFICATE_ISSUED})
            AND e.after->>'certificateSerial' = c.serial)
        ORDER BY c."createdAt", c.serial LIMIT ${LISTED_PER_KIND}`,
    },
    {
      kind: 'profile_revision',
      missingEvent: (row) => (row.label?.endsWith('@1') ? 'profile.created' : 'profile.revised'),
      rows: db.$queryRaw<Row[]>`
        SELECT v.id, p.name || '@' || v.number AS label, count(*) OVER () AS total
        FROM "ProfileRevision" v JOIN "Profile" p ON p.id = v."profileId"
        WHERE NOT EXISTS (SELECT 1 FROM "AuditEvent" e
          WHERE e."targetType" = 'profile' AND e."targetId" = p.name
            AND e.action IN ('profile.created', 'profile.revised')
            AND e.after->>'revision' = v.number::text)
        ORDER BY p.name, v.number LIMIT ${LISTED_PER_KIND}`,
    },
    {
      kind: 'rollout',
      missingEvent: () => 'rollout.created',
      rows: db.$queryRaw<Row[]>`
        SELECT r.id, count(*) OVER () AS total FROM "Rollout" r
        WHERE NOT EXISTS (SELECT 1 FROM "AuditEvent" e
          WHERE e."targetType" = 'rollout' AND e."targetId" = r.id AND e.action = 'rollout.created')
        ORDER BY r."createdAt", r.id LIMIT ${LISTED_PER_KIND}`,
    },
    {
      kind: 'rollout',
      missingEvent: (row) => `rollout.${row.label}`,
      rows: db.$queryRaw<Row[]>`
        SELECT r.id, r.state::text AS label, count(*) OVER () AS total FROM "Rollout" r
        WHERE r.state IN ('completed', 'cancelled') AND NOT EXISTS (SELECT 1 FROM "AuditEvent" e
          WHERE e."targetType" = 'rollout' AND e."targetId" = r.id
            -- Rollouts cancelled before 0.2 carry the old spelling of the event, rollout.aborted.
            AND (e.action = 'rollout.' || r.state::text OR (r.state = 'cancelled' AND e.action = 'rollout.aborted')))
        ORDER BY r."createdAt", r.id LIMIT ${LISTED_PER_KIND}`,
    },
    {
      kind: 'api_token',
      missingEvent: () => 'api_token.created',
      rows: db.$queryRaw<Row[]>`
        SELECT t.id, count(*) OVER () AS total FROM "ApiToken" t
        WHERE NOT EXISTS (SELECT 1 FROM "AuditEvent" e
          WHERE e."targetType" = 'api_token' AND e."targetId" = t.id AND e.action = 'api_token.created')
        ORDER BY t."createdAt", t.id LIMIT ${LISTED_PER_KIND}`,
    },
    {
      kind: 'api_token',
      missingEvent: () => 'api_token.revoked',
      rows: db.$queryRaw<Row[]>`
        SELECT t.id, count(*) OVER () AS total FROM "ApiToken" t
        WHERE t."revokedAt" IS NOT NULL AND NOT EXISTS (SELECT 1 FROM "AuditEvent" e
          WHERE e."targetType" = 'api_token' AND e."targetId" = t.id AND e.action = 'api_token.revoked')
        ORDER BY t."revokedAt", t.id LIMIT ${LISTED_PER_KIND}`,
    },
    {
      kind: 'account',
      missingEvent: () => 'account.created',
      rows: db.$queryRaw<Row[]>`
        SELECT a.name AS id, count(*) OVER () AS total FROM "OperatorAccount" a
        WHERE NOT EXISTS (SELECT 1 FROM "AuditEvent" e
          WHERE e."targetType" = 'account' AND e."targetId" = a.name AND e.action = 'account.created')
        ORDER BY a."createdAt", a.name LIMIT ${LISTED_PER_KIND}`,
    },
    {
      kind: 'onboarding_job',
      missingEvent: () => 'onboarding.requested',
      rows: db.$queryRaw<Row[]>`
        SELECT j.id, count(*) OVER () AS total FROM "Job" j
        WHERE j.kind = ${ONBOARDING_JOB_KIND} AND NOT EXISTS (SELECT 1 FROM "AuditEvent" e
          WHERE e."targetType" = 'job' AND e."targetId" = j.id AND e.action = 'onboarding.requested')
        ORDER BY j."createdAt", j.id LIMIT ${LISTED_PER_KIND}`,
    },
  ];
  const results = await Promise.all(checks.map((c) => c.rows));
  const missing: UnauditedSubject[] = checks.flatMap((check, i) =>
    results[i]!.map((row) => ({
      kind: check.kind,
      id: row.id,
      ...(check.kind === 'profile_revision' && row.label ? { label: row.label } : {}),
      missingEvent: check.missingEvent(row),
    })),
  );
  const missingCount = results.reduce((n, rows) => n + Number(rows[0]?.total ?? 0), 0);
  return { missing, missingCount };
}
