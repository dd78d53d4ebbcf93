import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { PrismaClient } from '../../../../prisma/generated/client/client.js';
import {
  auditEventsPage,
  auditTargetNames,
  targetKey,
  type AuditEventRow,
  type AuditFilter,
} from '../../../audit/audit-query.js';
import { verifyAudit } from '../../../audit/audit-verify.js';
import { UnauditedKind } from '../../../audit/audit-completeness.js';
import { ApiError, errorBodySchema } from '../../../http/api-error.js';
import { ndjsonErrorLine, streamResponse } from '../../../http/streamed-response.js';
import { INT64_MAX, Nullable, Page, PageLimit, StringEnum, Timestamp } from '../../../http/shared-schemas.js';

const Filters = {
  router: Type.Optional(
    Type.String({
      maxLength: 64,
      description:
        "Router id: the router's own events, and those of the commands and rollouts that targeted it " +
        '(their `command.*` and `rollout.*` events, which keep their own target), so who acted on the router, ' +
        'and why, is in its history',
    }),
  ),
  profile: Type.Optional(Type.String({ maxLength: 64, description: 'Profile name' })),
  rollout: Type.Optional(Type.String({ maxLength: 64, description: 'Rollout id' })),
  command: Type.Optional(Type.String({ maxLength: 64, description: 'Command id' })),
  actor: Type.Optional(Type.String({ maxLength: 200, description: 'e.g. token:admin, agent:<identity>, system' })),
  action: Type.Optional(Type.String({ maxLength: 100 })),
  from: Type.Optional(Timestamp),
  to: Type.Optional(Timestamp),
};

type FilterQuery = {
  router?: string;
  profile?: string;
  rollout?: string;
  command?: string;
  actor?: string;
  action?: string;
  from?: string;
  to?: string;
};

function filterOf(q: FilterQuery): AuditFilter {
  const { from, to, ...rest } = q;
  return { ...rest, ...(from ? { from: new Date(from) } : {}), ...(to ? { to: new Date(to) } : {}) };
}

export function auditEventView(e: AuditEventRow) {
  return {
    seq: e.seq.toString(),
    id: e.id,
    at: e.at.toISOString(),
    actor: e.actor,
    action: e.action,
    targetType: e.targetType,
    targetId: e.targetId,
    before: e.before,
    after: e.after,
    diff: e.diff,
    requestId: e.requestId,
    prevHash: e.prevHash,
    hash: e.hash,
  };
}

const EventView = Type.Object({
  seq: Type.String(),
  id: Type.String(),
  at: Type.String(),
  actor: Type.String(),
  action: Type.String(),
  targetType: Type.String(),
  targetId: Nullable(Type.String()),
  before: Type.Any(),
  after: Type.Any(),
  diff: Type.Any(),
  requestId: Nullable(Type.String()),
  prevHash: Type.String(),
  hash: Type.String(),
});

const PageEventView = Type.Object({
  ...EventView.properties,
  targetName: Nullable(
    Type.String({
      description:
        "The target's display name, read with the page (names change; the event keeps the id): a router's name, " +
        'a rollout\'s profile@revision, a command\'s kind ("rollback on lyon-1" for one router), an onboarding ' +
        "job's host, a token's name, a profile's or account's own name; null when there is none",
    }),
  ),
});

export interface AuditPluginOptions {
  db: PrismaClient;
  /** The longest an export may stream (server/config.ts). */
  streamMaxSeconds: number;
}

/** The audit history: query, export as JSON lines, verify the hash chain. */
export const auditPlugin: FastifyPluginAsyncTypebox<AuditPluginOptions> = async (app, { db, streamMaxSeconds }) => {
  app.get(
    '/v1/audit',
    {
      schema: {
        tags: ['audit'],
        summary:
          'Audit events, oldest (or newest) first, filtered by router, profile, rollout, command, actor, action and time range',
        querystring: Type.Object(
          {
            ...Filters,
            limit: PageLimit(1000, 100),
            cursor: Type.Optional(Type.String({ pattern: '^[0-9]{1,19}$' })),
            order: Type.Optional(
              StringEnum(['asc', 'desc'] as const, {
                description: 'asc (default): oldest first; desc: newest first, as a timeline reads',
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Page(PageEventView),
          400: errorBodySchema,
        },
      },
    },
    async (request) => {
      const { limit, cursor, order = 'asc', ...filters } = request.query;
      // The pattern bounds the digits; the value must also fit the bigint sequence column.
      if (cursor && BigInt(cursor) > INT64_MAX)
        throw new ApiError(400, 'invalid_request', 'invalid querystring parameter: cursor is past the last event', [
          { path: '/cursor', in: 'querystring', message: 'is past the last event' },
        ]);
      // The cursor is the last event of the previous page: the next one continues past it either way.
      const rows = await auditEventsPage(db, {
        filter: filterOf(filters),
        order,
        after: cursor ? BigInt(cursor) : undefined,
        limit: limit + 1,
      });
      const page = rows.slice(0, limit);
      const names = await auditTargetNames(db, page);
      const items = page.map((e) => ({
        ...auditEventView(e),
        targetName: e.targetId ? (names.get(targetKey(e.targetType, e.targetId)) ?? null) : null,
      }));
      return { items, nextCursor: rows.length > limit ? items[items.length - 1]!.seq : null };
    },
  );

  app.get(
    '/v1/audit/export',
    {
      schema: {
        tags: ['audit'],
        summary: 'Every matching event as JSON lines (application/x-ndjson), streamed',
        description:
          'The events as stored (no `targetName`), oldest first, with the filters of `GET /v1/audit`. ' +
          'A bad filter is a 400 before the first line. An export that fails midway, or runs past the ' +
          'stream time limit, ends with one last line in the error shape ({"error", "message", "requestId"}).',
        querystring: Type.Object(Filters, { additionalProperties: false }),
        produces: ['application/x-ndjson'],
        response: { 400: errorBodySchema },
      },
    },
    async (request, reply) => {
      const filter = filterOf(request.query);
      const page = (after: bigint | undefined) => auditEventsPage(db, { filter, order: 'asc', after, limit: 2000 });
      await streamResponse(request, reply, {
        headers: {
          'content-type': 'application/x-ndjson',
          'content-disposition': 'attachment; filename="wrtfleet-audit.jsonl"',
          'cache-control': 'no-store',
        },
        errorMarker: ndjsonErrorLine,
        maxSeconds: streamMaxSeconds,
        async produce(out) {
          let after: bigint | undefined;
          while (out.open) {
            const rows = await page(after);
            if (rows.length === 0) break;
            await out.write(rows.map((r) => JSON.stringify(auditEventView(r))).join('\n') + '\n');
            after = rows[rows.length - 1]!.seq;
          }
        },
      });
    },
  );

  app.get(
    '/v1/audit/verify',
    {
      schema: {
        tags: ['audit'],
        summary:
          'Check the whole hash chain (names the first broken link) and that the history holds the event of everything stored that needs one (lists what lacks it)',
        description:
          'Completeness: every router, profile revision, rollout, API token, onboarding job and command has its creating event, ' +
          'every certificate the event that issued it, every decommissioned router `router.decommissioned`, every ' +
          'revoked API token `api_token.revoked`, every completed or cancelled rollout `rollout.completed` or `rollout.cancelled` (`rollout.aborted` before 0.2).',
        response: {
          200: Type.Object({
            ok: Type.Boolean(),
            checked: Type.Integer(),
            firstBroken: Type.Optional(Type.Object({ seq: Type.String(), id: Type.String(), reason: Type.String() })),
            missing: Type.Array(
              Type.Object({
                kind: UnauditedKind,
                id: Type.String({
                  description: 'The subject: a router, revision, rollout, token or job id; a certificate serial',
                }),
                label: Type.Optional(Type.String({ description: 'For a profile revision: <profile>@<number>' })),
                missingEvent: Type.String({
                  description: 'The action of the event it lacks ("a or b": either would do)',
                }),
              }),
              { description: 'What lacks its event, up to 100 per check' },
            ),
            missingCount: Type.Integer({ description: 'How many lack their event in all, listed or not' }),
          }),
        },
      },
    },
    async () => verifyAudit(db),
  );
};
