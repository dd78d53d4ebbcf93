import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { PrismaClient } from '../../../../prisma/generated/client/client.js';
import { decodeCursor, encodeCursor, InvalidCursor } from '../../../storage/keyset-cursor.js';
import { REVISION_STATES, revisionOutlook } from '../../../fleet/revision-outlook.js';
import { ApiError, errorBodySchema } from '../../../http/api-error.js';
import { APPLY_STATUSES } from '../../../fleet/router-filter.js';
import { IdParam, NoQuery, Nullable, Page, PageLimit, StringEnum, Timestamp } from '../../../http/shared-schemas.js';

/**
 * What happened on one router, for its page in the console and for scripts: the apply results
 * with their evidence, the last drift report, and the revisions it runs and should run. Read
 * only; the writes stay with the agent gateway (results, drift) and rollouts (desired).
 */

const RevisionRef = Type.Object({ profile: Type.String(), revision: Type.Integer() });

const ApplyResultView = Type.Object({
  id: Type.String(),
  status: StringEnum(APPLY_STATUSES, { title: 'ApplyStatus' }),
  revision: Nullable(RevisionRef),
  error: Nullable(Type.String()),
  evidence: Type.Any({
    description:
      'What the agent read back after the apply: datapath, attached programs, offload settings, trigger (wan-changed, reboot)',
  }),
  startedAt: Timestamp,
  finishedAt: Nullable(Timestamp),
});

const DriftDifference = Type.Object({ path: Type.String(), expected: Type.String(), actual: Type.String() });

const DriftReportView = Type.Object({
  at: Timestamp,
  eventId: Type.String({ description: 'The drift.reported audit event that holds the report' }),
  actor: Type.String(),
  revision: Nullable(RevisionRef),
  differences: Type.Array(DriftDifference, { description: 'Empty: the router runs exactly its applied plan' }),
});

const RevisionsView = Type.Object({
  applied: Nullable(RevisionRef),
  desired: Nullable(
    Type.Intersect([
      RevisionRef,
      Type.Object({ rolloutId: Nullable(Type.String({ description: 'The rollout that set it, when one did' })) }),
    ]),
  ),
  assignment: Nullable(
    Type.Object({ profile: Type.String(), pinnedRevision: Nullable(Type.Integer()), overrides: Type.Any() }),
  ),
  state: StringEnum(REVISION_STATES, {
    description:
      'in_step: runs what the controller wants; held_after_rollback: a rollback set what it runs and the controller now wants that; ' +
      'on_its_way / waiting_for_router: the desired revision is sent / is sent when it connects; failed: the desired revision failed here; ' +
      'nothing_to_run; decommissioned',
  }),
  next: Type.String({ description: 'What the router does next, and what would change it, in words' }),
  rollback: Nullable(
    Type.Object(
      {
        revision: RevisionRef,
        to: Nullable(RevisionRef),
        at: Timestamp,
        reason: Type.String(),
      },
      { description: 'The rollback that set what the router runs, while it holds (state held_after_rollback)' },
    ),
  ),
});

export interface RouterHistoryPluginOptions {
  db: PrismaClient;
}

type StoredDrift = {
  profile?: unknown;
  revision?: unknown;
  differences?: { path?: unknown; expected?: unknown; actual?: unknown }[];
};

/** A drift.reported event's `after` as the API shows it; an agent's empty profile is "nothing applied". */
function driftOf(after: unknown) {
  const stored = (after ?? {}) as StoredDrift;
  const revision =
    typeof stored.profile === 'string' && stored.profile !== '' && typeof stored.revision === 'number'
      ? { profile: stored.profile, revision: stored.revision }
      : null;
  const differences = (Array.isArray(stored.differences) ? stored.differences : []).map((d) => ({
    path: String(d.path ?? ''),
    expected: String(d.expected ?? ''),
    actual: String(d.actual ?? ''),
  }));
  return { revision, differences };
}

export const routerHistoryPlugin: FastifyPluginAsyncTypebox<RouterHistoryPluginOptions> = async (app, { db }) => {
  const mustExist = async (id: string) => {
    const router = await db.router.findUnique({
      where: { id },
      select: {
        id: true,
        status: true,
        decommissionedAt: true,
        desiredRolloutId: true,
        appliedRevision: { select: { number: true, profile: { select: { name: true } } } },
        desiredRevision: { select: { number: true, profile: { select: { name: true } } } },
        assignment: { select: { pinnedRevision: true, overrides: true, profile: { select: { name: true } } } },
      },
    });
    if (!router) throw new ApiError(404, 'not_found', `no router with id ${id}`);
    return router;
  };

  app.get(
    '/v1/routers/:id/apply-results',
    {
      schema: {
        tags: ['routers'],
        summary: "A router's apply results with their evidence, newest first, with keyset pagination",
        params: IdParam,
        querystring: Type.Object(
          {
            limit: PageLimit(200, 20),
            cursor: Type.Optional(Type.String({ maxLength: 512, description: 'nextCursor of the previous page' })),
          },
          { additionalProperties: false },
        ),
        response: { 200: Page(ApplyResultView), 400: errorBodySchema, 404: errorBodySchema },
      },
    },
    async (request) => {
      const { limit, cursor } = request.query;
      let after;
      try {
        after = cursor ? decodeCursor(cursor) : undefined;
      } catch (err) {
        if (!(err instanceof InvalidCursor)) throw err;
        throw new ApiError(400, 'invalid_request', `invalid querystring parameter: cursor ${err.message}`, [
          { path: '/cursor', in: 'querystring', message: err.message },
        ]);
      }
      const router = await mustExist(request.params.id);
      const rows = await db.applyResult.findMany({
        where: {
          routerId: router.id,
          ...(after
            ? { OR: [{ startedAt: { lt: after.createdAt } }, { startedAt: after.createdAt, id: { lt: after.id } }] }
            : {}),
        },
        orderBy: [{ startedAt: 'desc' }, { id: 'desc' }],
        take: limit + 1,
        include: { revision: { select: { number: true, profile: { select: { name: true } } } } },
      });
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      return {
        items: page.map((r) => ({
          id: r.id,
          status: r.status,
          revision: r.revision ? { profile: r.revision.profile.name, revision: r.revision.number } : null,
          error: r.error,
          evidence: r.evidence ?? null,
          startedAt: r.startedAt.toISOString(),
          finishedAt: r.finishedAt?.toISOString() ?? null,
        })),
        nextCursor: rows.length > limit && last ? encodeCursor(last.startedAt, last.id) : null,
      };
    },
  );

  app.get(
    '/v1/routers/:id/drift',
    {
      schema: {
        tags: ['routers'],
        summary: "The router's last drift report (from a drift check or the agent's timer), or null before the first",
        params: IdParam,
        querystring: NoQuery,
        response: {
          200: Type.Object({ report: Nullable(DriftReportView) }),
          400: errorBodySchema,
          404: errorBodySchema,
        },
      },
    },
    async (request) => {
      const router = await mustExist(request.params.id);
      // The report's only record is its audit event (RouterRegistry.recordDrift); the index on
      // (targetType, targetId, seq) finds the newest without scanning the router's history.
      const event = await db.auditEvent.findFirst({
        where: { targetType: 'router', targetId: router.id, action: 'drift.reported' },
        orderBy: { seq: 'desc' },
      });
      if (!event) return { report: null };
      return { report: { at: event.at.toISOString(), eventId: event.id, actor: event.actor, ...driftOf(event.after) } };
    },
  );

  app.get(
    '/v1/routers/:id/revisions',
    {
      schema: {
        tags: ['routers'],
        summary: 'The revision a router runs (applied), the one it should run (desired) and its assignment',
        params: IdParam,
        querystring: NoQuery,
        response: { 200: RevisionsView, 400: errorBodySchema, 404: errorBodySchema },
      },
    },
    async (request) => {
      const r = await mustExist(request.params.id);
      const applied = r.appliedRevision
        ? { profile: r.appliedRevision.profile.name, revision: r.appliedRevision.number }
        : null;
      const desired = r.desiredRevision
        ? { profile: r.desiredRevision.profile.name, revision: r.desiredRevision.number, rolloutId: r.desiredRolloutId }
        : null;
      const last = await db.applyResult.findFirst({
        where: { routerId: r.id },
        orderBy: [{ startedAt: 'desc' }, { id: 'desc' }],
        select: {
          status: true,
          error: true,
          startedAt: true,
          finishedAt: true,
          revision: { select: { number: true, profile: { select: { name: true } } } },
        },
      });
      const outlook = revisionOutlook({
        applied,
        desired,
        status: r.status,
        decommissionedAt: r.decommissionedAt,
        lastResult: last
          ? {
              status: last.status,
              revision: last.revision ? { profile: last.revision.profile.name, revision: last.revision.number } : null,
              error: last.error,
              at: last.finishedAt ?? last.startedAt,
            }
          : null,
      });
      return {
        ...outlook,
        applied,
        desired,
        assignment: r.assignment
          ? {
              profile: r.assignment.profile.name,
              pinnedRevision: r.assignment.pinnedRevision,
              overrides: r.assignment.overrides ?? null,
            }
          : null,
      };
    },
  );
};
