import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { PrismaClient } from '../../../../prisma/generated/client/client.js';
import type { AuditLog } from '../../../audit/audit-log.js';
import { MAX_MATCHING_IDS, type RouterDirectory } from '../../../fleet/router-directory.js';
import { RouterChangeFeed } from '../../../fleet/router-change-feed.js';
import { PROFILE_NAME_PATTERN } from '../../../profiles/profile-store.js';
import { BulkRouterActions, BULK_ACTIONS } from '../../../fleet/bulk-router-actions.js';
import { ApiError, errorBodySchema } from '../../../http/api-error.js';
import { auditContext } from '../../../http/request-context.js';
import { RouterFilterQuery, routerFilterOf } from './filter-query.js';
import { Nullable, RevisionNumber, StringEnum, Tag } from '../../../http/shared-schemas.js';
import { SSE_HEADERS, sseErrorEvent, streamResponse } from '../../../http/streamed-response.js';

const RouterCountsSchema = Type.Object({
  total: Type.Integer(),
  online: Type.Integer(),
  offline: Type.Integer(),
  neverSeen: Type.Integer(),
  drifted: Type.Integer({ description: 'The last drift report found differences' }),
  failed: Type.Integer({ description: 'The newest apply result failed or was rolled back' }),
  pending: Type.Integer({ description: 'A desired revision not applied yet' }),
});

/** How often the change feed looks at the database, and so the longest a change waits. */
const CHANGE_POLL_MS = 1000;
const KEEPALIVE_EVERY = 15;

export interface FleetTablePluginOptions {
  directory: RouterDirectory;
  db: PrismaClient;
  audit: AuditLog;
  streamMaxSeconds: number;
}

/**
 * What the console's fleet table needs beyond the listing: counts over a filter, the ids of
 * "all that match" (to start a command or rollout on them), a live feed of changed routers,
 * and bulk tag / untag / assign on ids or on a filter.
 */
export const fleetTablePlugin: FastifyPluginAsyncTypebox<FleetTablePluginOptions> = async (
  app,
  { directory, db, audit, streamMaxSeconds },
) => {
  const bulk = new BulkRouterActions(db, audit);

  app.get(
    '/v1/routers/counts',
    {
      schema: {
        tags: ['routers'],
        summary: 'How many routers match a filter: total, online, offline, never seen, drifted, failed, pending',
        description: 'Decommissioned routers are not counted unless the filter asks for them (`decommissioned`).',
        querystring: RouterFilterQuery,
        response: { 200: RouterCountsSchema, 400: errorBodySchema },
      },
    },
    async (request) => directory.counts(routerFilterOf(request.query, 'querystring')),
  );

  app.get(
    '/v1/routers/ids',
    {
      schema: {
        tags: ['routers'],
        summary: `The ids of the routers that match a filter (at most ${MAX_MATCHING_IDS}), for a selector`,
        description:
          '`total` says how many match; when it exceeds the ids returned the selection is too large to act on.',
        querystring: RouterFilterQuery,
        response: {
          200: Type.Object({ ids: Type.Array(Type.String()), total: Type.Integer() }),
          400: errorBodySchema,
        },
      },
    },
    async (request) => directory.matchingIds(routerFilterOf(request.query, 'querystring')),
  );

  app.get(
    '/v1/routers/events',
    {
      schema: {
        tags: ['routers'],
        summary: 'Which routers changed (status, revisions, apply result, drift, tags), as server-sent events',
        description:
          '`event: ready` once the feed runs, then `event: changed` with `{ ids, truncated }` at most once a second ' +
          '(changes coalesced; `truncated` means more changed than listed: read the table again). Read from the ' +
          'database, so changes through any replica show. Ends with `event: error` at the time limit; reconnect.',
        produces: ['text/event-stream'],
      },
    },
    async (request, reply) => {
      const feed = new RouterChangeFeed(directory, await directory.now());
      await feed.prime();
      await streamResponse(request, reply, {
        headers: SSE_HEADERS,
        errorMarker: sseErrorEvent,
        maxSeconds: streamMaxSeconds,
        async produce(out) {
          await out.write(`retry: 2000\nevent: ready\ndata: {}\n\n`);
          let idle = 0;
          while (out.open) {
            await out.pause(CHANGE_POLL_MS);
            if (!out.open) break;
            const change = await feed.next();
            if (change.ids.length || change.truncated) {
              idle = 0;
              await out.write(`event: changed\ndata: ${JSON.stringify(change)}\n\n`);
            } else if (++idle % KEEPALIVE_EVERY === 0) await out.write(': keepalive\n\n');
          }
        },
      });
    },
  );

  app.post(
    '/v1/routers/bulk',
    {
      schema: {
        tags: ['routers'],
        summary: 'Tag, untag or assign a profile to many routers: by ids, or all that match a filter',
        description:
          `Give exactly one of \`ids\` or \`filter\` (the listing's filter; {} is every router not ` +
          `decommissioned), at most ` +
          `${MAX_MATCHING_IDS} routers. Each changed router is its own audit event. \`assign\` sets the profile ` +
          '(optionally pinned) without overrides, as PUT /v1/routers/{id}/assignment does without them.',
        body: Type.Object(
          {
            action: StringEnum(BULK_ACTIONS),
            ids: Type.Optional(
              Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
                minItems: 1,
                maxItems: MAX_MATCHING_IDS,
                uniqueItems: true,
              }),
            ),
            filter: Type.Optional(RouterFilterQuery),
            tags: Type.Optional(Type.Array(Tag, { minItems: 1, maxItems: 16, uniqueItems: true })),
            profile: Type.Optional(Type.String({ pattern: PROFILE_NAME_PATTERN })),
            pinnedRevision: Type.Optional(Nullable(RevisionNumber)),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            action: StringEnum(BULK_ACTIONS),
            matched: Type.Integer({ description: 'Routers the ids or filter named' }),
            changed: Type.Integer({ description: 'Routers changed (each audited)' }),
          }),
          400: errorBodySchema,
        },
      },
    },
    async (request) => {
      const { action, ids, filter, tags, profile, pinnedRevision } = request.body;
      const field = (path: string, message: string) =>
        new ApiError(400, 'invalid_request', `invalid body: ${path.slice(1)} ${message}`, [
          { path, in: 'body', message },
        ]);
      if ((ids === undefined) === (filter === undefined)) throw field('/ids', 'give exactly one of ids or filter');
      if ((action === 'tag' || action === 'untag') && !tags) throw field('/tags', `is required to ${action}`);
      if (action === 'assign' && !profile) throw field('/profile', 'is required to assign');
      if (action !== 'assign' && (profile !== undefined || pinnedRevision !== undefined))
        throw field(profile !== undefined ? '/profile' : '/pinnedRevision', `has no meaning for ${action}`);
      if (action === 'assign' && tags) throw field('/tags', 'has no meaning for assign');

      let targets: string[];
      if (filter) {
        const matching = await directory.matchingIds(routerFilterOf(filter, 'body', '/filter'), MAX_MATCHING_IDS + 1);
        if (matching.total > MAX_MATCHING_IDS)
          throw field('/filter', `matches ${matching.total} routers; at most ${MAX_MATCHING_IDS} at once`);
        targets = matching.ids;
      } else {
        const found = await db.router.findMany({ where: { id: { in: ids } }, select: { id: true } });
        const known = new Set(found.map((r) => r.id));
        const unknown = ids!.filter((id) => !known.has(id));
        if (unknown.length)
          throw field('/ids', `names ${unknown.length} unknown router(s), e.g. ${unknown.slice(0, 3).join(', ')}`);
        targets = ids!;
      }
      const context = auditContext(request);
      let changed: number;
      if (action === 'assign') {
        const revision = await bulk.resolveRevision(profile!, pinnedRevision ?? null);
        if (revision === 'no_profile') throw field('/profile', `names no profile (${profile})`);
        if (revision === 'no_revision') throw field('/pinnedRevision', `is not a revision of ${profile}`);
        changed = await bulk.assign(targets, revision, context);
      } else {
        changed = await bulk.retag(targets, action, tags!, context);
      }
      return { action, matched: targets.length, changed };
    },
  );
};
