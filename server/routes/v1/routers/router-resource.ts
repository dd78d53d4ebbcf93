import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Prisma, type PrismaClient } from '../../../../prisma/generated/client/client.js';
import { validateProfileSpec } from '../../../../core/profile-spec.js';
import type { AuditLog } from '../../../audit/audit-log.js';
import { jsonDiff } from '../../../audit/json-diff.js';
import { EffectiveProfileError, overlay, type PlanPreview } from '../../../fleet/plan-preview.js';
import { InvalidCursor, type RouterDirectory } from '../../../fleet/router-directory.js';
import { SORTS } from '../../../fleet/router-sort.js';
import { DATAPATH_MODES, OFFLOAD_MODES } from '../../../fleet/router-abilities.js';
import { APPLY_STATUSES, CONNECTION_STATUSES } from '../../../fleet/router-filter.js';
import { routerFilterFields, routerFilterOf } from './filter-query.js';
import { PROFILE_NAME_PATTERN } from '../../../profiles/profile-store.js';
import { ApiError, errorBodySchema } from '../../../http/api-error.js';
import { auditContext } from '../../../http/request-context.js';
import {
  IdParam,
  Nullable,
  Page,
  PageLimit,
  PlanPreviewView,
  RevisionNumber,
  StringEnum,
  Tag,
  Timestamp,
} from '../../../http/shared-schemas.js';

/** One capability as the listing shows it; `capabilities` of a single router has the reasons. */
const CapabilityFlag = Type.Object({
  predicted: Nullable(Type.Boolean({ description: 'Predicted from the facts (null: not said)' })),
  probed: Nullable(Type.Boolean({ description: 'Found by the on-router probe (null: not probed)' })),
});

const RouterSummary = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    identity: Type.String(),
    status: StringEnum(CONNECTION_STATUSES, { title: 'ConnectionStatus' }),
    lastSeenAt: Nullable(Timestamp),
    connectedAt: Nullable(Timestamp),
    agentVersion: Nullable(Type.String()),
    placement: Type.String(),
    soc: Nullable(Type.String()),
    arch: Nullable(Type.String()),
    endian: Nullable(Type.String()),
    kernel: Nullable(Type.String()),
    openwrt: Nullable(
      Type.Object({
        release: Type.String({ description: 'The OpenWrt release: "23.05.3", "SNAPSHOT"' }),
        target: Nullable(Type.String()),
        version: Type.String({ deprecated: true, description: 'Old spelling of `release`; removed in 0.3' }),
      }),
    ),
    model: Nullable(Type.String()),
    tags: Type.Array(Type.String()),
    appliedRevision: Nullable(Type.Object({ profile: Type.String(), revision: Type.Integer() })),
    desiredRevision: Nullable(
      Type.Object(
        { profile: Type.String(), revision: Type.Integer() },
        { description: 'The revision a rollout wants here; pending until it is the applied one' },
      ),
    ),
    lastApplyStatus: Nullable(StringEnum(APPLY_STATUSES, { title: 'ApplyStatus' })),
    drifted: Nullable(Type.Boolean({ description: 'Whether the last drift report found differences' })),
    hardwareOffload: CapabilityFlag,
    softwareOffload: CapabilityFlag,
    ebpf: CapabilityFlag,
    tcx: CapabilityFlag,
    datapath: Nullable(
      StringEnum(
        DATAPATH_MODES.filter((m) => m !== 'unknown'),
        {
          description: 'The datapath it runs, as its agent last reported it (null: never reported)',
        },
      ),
    ),
    offload: Nullable(
      StringEnum(
        OFFLOAD_MODES.filter((m) => m !== 'unknown'),
        {
          description: 'The flow offload it runs, as its agent last reported it (null: never reported)',
        },
      ),
    ),
    decommissionedAt: Nullable(Timestamp),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'RouterSummary' },
);

const RouterDetail = Type.Intersect([
  Type.Omit(RouterSummary, []),
  Type.Object({
    facts: Type.Any({
      description: 'Fact sheet the agent collected (SoC, CPU, kernel, OpenWrt release, devices, unknowns with reasons)',
    }),
    capabilities: Type.Any({
      description: '{ predicted, probed }: each of hardwareOffload, softwareOffload, ebpf, tcx with a reason',
    }),
    liveState: Type.Any({ description: 'Datapath and offload state last reported by the agent' }),
  }),
]);

export interface RoutersPluginOptions {
  directory: RouterDirectory;
  previews: PlanPreview;
  db: PrismaClient;
  audit: AuditLog;
}

/** GET /v1/routers and GET /v1/routers/{id}: the fleet as operators and scripts see it. */
export const routersPlugin: FastifyPluginAsyncTypebox<RoutersPluginOptions> = async (
  app,
  { directory, previews, db, audit },
) => {
  const mustExist = async (id: string) => {
    const router = await db.router.findUnique({ where: { id } });
    if (!router) throw new ApiError(404, 'not_found', `no router with id ${id}`);
    return router;
  };

  app.put(
    '/v1/routers/:id/tags',
    {
      schema: {
        tags: ['routers'],
        summary: "Replace a router's tags (groups are tags, e.g. group:canary)",
        params: IdParam,
        body: Type.Object(
          { tags: Type.Array(Tag, { maxItems: 64, uniqueItems: true }) },
          { additionalProperties: false },
        ),
        response: { 200: Type.Object({ id: Type.String(), tags: Type.Array(Type.String()) }), 404: errorBodySchema },
      },
    },
    async (request) => {
      const before = await mustExist(request.params.id);
      const tags = [...request.body.tags].sort();
      await audit.record(async (tx) => {
        await tx.router.update({ where: { id: before.id }, data: { tags } });
        return {
          result: undefined,
          event: {
            ...auditContext(request),
            action: 'router.tags.set',
            targetType: 'router',
            targetId: before.id,
            before: { tags: before.tags },
            after: { tags },
            diff: jsonDiff({ tags: before.tags }, { tags }),
          },
        };
      });
      return { id: before.id, tags };
    },
  );

  app.put(
    '/v1/routers/:id/assignment',
    {
      schema: {
        tags: ['routers'],
        summary: 'Assign a profile to a router, optionally pinned to a revision, with per-router overrides',
        description:
          'Overrides are a partial profile spec laid over the revision (e.g. {"l3Rewrite":{"ttl":{"value":128}}}); the result must be a valid spec.',
        params: IdParam,
        body: Type.Object(
          {
            profile: Type.String({ pattern: PROFILE_NAME_PATTERN }),
            pinnedRevision: Type.Optional(Nullable(RevisionNumber)),
            overrides: Type.Optional(Nullable(Type.Object({}, { additionalProperties: true }))),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            routerId: Type.String(),
            profile: Type.String(),
            pinnedRevision: Nullable(Type.Integer()),
            overrides: Type.Any(),
          }),
          400: errorBodySchema,
          404: errorBodySchema,
        },
      },
    },
    async (request) => {
      const router = await mustExist(request.params.id);
      const { profile: profileName, pinnedRevision = null, overrides = null } = request.body;
      const profile = await db.profile.findUnique({ where: { name: profileName } });
      if (!profile)
        throw new ApiError(400, 'invalid_request', `no profile named ${profileName}`, [
          { path: '/profile', in: 'body', message: 'unknown profile' },
        ]);
      const number = pinnedRevision ?? profile.latestRevision;
      const revision = await db.profileRevision.findUnique({
        where: { profileId_number: { profileId: profile.id, number } },
      });
      if (!revision)
        throw new ApiError(400, 'invalid_request', `profile ${profileName} has no revision ${number}`, [
          { path: '/pinnedRevision', in: 'body', message: 'unknown revision' },
        ]);
      if (overrides) {
        const check = validateProfileSpec(overlay(revision.spec, overrides));
        if (!check.ok) {
          throw new ApiError(
            400,
            'invalid_request',
            `the overrides make the profile invalid: ${check.errors.map((e) => `${e.path} ${e.message}`).join('; ')}`,
            check.errors.map((e) => ({ path: `/overrides${e.path}`, in: 'body', message: e.message })),
          );
        }
      }
      const after = { profile: profileName, pinnedRevision, overrides };
      // The assignment and its event commit together; `before` is read in the same transaction.
      await audit.record(async (tx) => {
        const before = await tx.assignment.findUnique({ where: { routerId: router.id }, include: { profile: true } });
        const data = { profileId: profile.id, pinnedRevision, overrides: overrides ?? undefined };
        await tx.assignment.upsert({
          where: { routerId: router.id },
          create: { routerId: router.id, ...data },
          update: { ...data, overrides: overrides ?? Prisma.JsonNull },
        });
        const beforeView = before
          ? { profile: before.profile.name, pinnedRevision: before.pinnedRevision, overrides: before.overrides }
          : null;
        return {
          result: undefined,
          event: {
            ...auditContext(request),
            action: 'router.assignment.set',
            targetType: 'router',
            targetId: router.id,
            before: beforeView,
            after,
            diff: jsonDiff(beforeView ?? {}, after),
          },
        };
      });
      return { routerId: router.id, ...after };
    },
  );

  app.get(
    '/v1/routers/:id/plan',
    {
      schema: {
        tags: ['routers'],
        summary: 'Preview the plan a router would get (a dry run: nothing is sent)',
        description:
          "Without parameters: the router's assignment (with its overrides). With `profile` (and `revision`): that profile instead.",
        params: IdParam,
        querystring: Type.Object(
          {
            profile: Type.Optional(Type.String({ pattern: PROFILE_NAME_PATTERN })),
            revision: Type.Optional(RevisionNumber),
          },
          { additionalProperties: false },
        ),
        response: { 200: PlanPreviewView, 400: errorBodySchema, 404: errorBodySchema },
      },
    },
    async (request) => {
      const { profile, revision } = request.query;
      if (revision !== undefined && !profile)
        throw new ApiError(400, 'invalid_request', 'invalid querystring parameter: revision needs profile', [
          { path: '/revision', in: 'querystring', message: 'needs profile' },
        ]);
      try {
        const preview = await previews.forRouter(request.params.id, profile ? { profile, revision } : undefined);
        if (!preview) throw new ApiError(404, 'not_found', `no router with id ${request.params.id}`);
        return preview;
      } catch (err) {
        if (err instanceof EffectiveProfileError) throw new ApiError(400, 'invalid_request', err.message);
        throw err;
      }
    },
  );

  app.get(
    '/v1/routers',
    {
      schema: {
        tags: ['routers'],
        summary: 'List routers, filtered and sorted, with keyset pagination',
        description:
          'By name unless `sort` says otherwise, in natural order (digit runs compare as numbers: r2 before r10; ' +
          'letters case-insensitively); `-name` for descending, `created` oldest first, and so on. A cursor ' +
          'belongs to the sort it was made for. Filters combine with AND. Decommissioned routers are left out ' +
          'unless `decommissioned` is include or only.',
        querystring: Type.Object(
          {
            limit: PageLimit(500, 50),
            cursor: Type.Optional(Type.String({ maxLength: 1200, description: 'nextCursor of the previous page' })),
            sort: Type.Optional(StringEnum(SORTS, { title: 'RouterSort' })),
            ...routerFilterFields,
          },
          { additionalProperties: false },
        ),
        response: {
          200: Page(RouterSummary),
          400: errorBodySchema,
        },
      },
    },
    async (request, reply) => {
      const { limit, cursor, sort, ...filter } = request.query;
      try {
        // The body comes from the database already in the response schema's shape (see listJson).
        return reply
          .type('application/json; charset=utf-8')
          .send((await directory.listJson(routerFilterOf(filter, 'querystring'), { limit, cursor, sort })) as never);
      } catch (err) {
        if (err instanceof InvalidCursor) {
          throw new ApiError(400, 'invalid_request', `invalid querystring parameter: cursor ${err.message}`, [
            { path: '/cursor', in: 'querystring', message: err.message },
          ]);
        }
        throw err;
      }
    },
  );

  app.get(
    '/v1/routers/:id',
    {
      schema: {
        tags: ['routers'],
        summary: 'One router with its facts, capabilities, connection status and applied revision',
        params: IdParam,
        response: { 200: RouterDetail, 400: errorBodySchema, 404: errorBodySchema },
      },
    },
    async (request) => {
      const router = await directory.get(request.params.id);
      if (!router) throw new ApiError(404, 'not_found', `no router with id ${request.params.id}`);
      return router;
    },
  );
};
