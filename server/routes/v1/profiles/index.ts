import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ProfileSpecSchema } from '../../../../core/profile-spec.js';
import {
  InvalidProfile,
  PROFILE_NAME_PATTERN,
  StaleRevision,
  type ProfileStore,
} from '../../../profiles/profile-store.js';
import { ApiError, errorBodySchema } from '../../../http/api-error.js';
import { auditContext } from '../../../http/request-context.js';
import { ManagedSchema } from '../intent/intent-schemas.js';
import { INT32_MAX, Page, PageLimit, RevisionNumber, Timestamp } from '../../../http/shared-schemas.js';

const NameParam = Type.Object({ name: Type.String({ pattern: PROFILE_NAME_PATTERN }) });

/**
 * A revision stores its spec with every default filled in at write (ProfileStore.save keeps
 * what validateProfileSpec returns), so what the API shows is what routers apply: no
 * `effectiveSpec` beside it, and no default changed later can change an old revision.
 */
const STORED_SPEC_DESCRIPTION =
  "The revision's spec as stored, and as routers apply it before any per-router overrides: every field present. Each field the saving request left out holds the profile spec schema's `default` of the time it was saved (a spec that only turns on `l3Rewrite.ttl` is stored with `ipid`, `tcpts` and `tcpwin.enabled` on as well), so a later change of a default never changes what a revision means.";

const StoredSpec = Type.Any({ description: STORED_SPEC_DESCRIPTION });

const RevisionView = Type.Object({
  profile: Type.String(),
  revision: Type.Integer(),
  spec: StoredSpec,
  createdBy: Type.String(),
  createdAt: Timestamp,
});

function revisionView(r: { number: number; spec: unknown; createdBy: string; createdAt: Date }, profile: string) {
  return { profile, revision: r.number, spec: r.spec, createdBy: r.createdBy, createdAt: r.createdAt.toISOString() };
}

export interface ProfilesPluginOptions {
  profiles: ProfileStore;
}

/** Profiles with immutable, numbered revisions; edits are optimistic (stale base -> 409). */
export const profilesPlugin: FastifyPluginAsyncTypebox<ProfilesPluginOptions> = async (app, { profiles }) => {
  app.get(
    '/v1/profiles',
    {
      schema: {
        tags: ['profiles'],
        summary: 'List profiles by name',
        querystring: Type.Object(
          {
            limit: PageLimit(500, 50),
            cursor: Type.Optional(Type.String({ maxLength: 64 })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Page(
            Type.Object({
              name: Type.String(),
              latestRevision: Type.Integer(),
              createdAt: Type.String(),
              updatedAt: Type.String(),
              managed: ManagedSchema,
            }),
          ),
        },
      },
    },
    async (request) => {
      const page = await profiles.list(request.query.limit, request.query.cursor);
      const managed = await profiles.managedMarks(page.items.map((p) => p.name));
      return {
        items: page.items.map((p) => ({
          name: p.name,
          latestRevision: p.latestRevision,
          createdAt: p.createdAt.toISOString(),
          updatedAt: p.updatedAt.toISOString(),
          managed: managed.get(p.name) ?? null,
        })),
        nextCursor: page.nextCursor,
      };
    },
  );

  app.put(
    '/v1/profiles/:name',
    {
      schema: {
        tags: ['profiles'],
        summary: 'Create a profile or add a revision (idempotent when the spec is unchanged)',
        description:
          "Send `baseRevision`: the revision your change starts from (0 or absent to create). If someone added a revision since, the answer is 409 and nothing is written. The spec is stored with every default filled in, not as sent: a field left out takes its `default` from the spec schema below, and the answer's `spec` is what was stored. A spec equal to the latest revision once defaults are filled in writes nothing and answers 200 with `changed: false`.",
        params: NameParam,
        body: Type.Object(
          { spec: ProfileSpecSchema, baseRevision: Type.Optional(Type.Integer({ minimum: 0, maximum: INT32_MAX })) },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            name: Type.String(),
            revision: Type.Integer(),
            changed: Type.Boolean(),
            created: Type.Boolean(),
            spec: StoredSpec,
          }),
          201: Type.Object({
            name: Type.String(),
            revision: Type.Integer(),
            changed: Type.Boolean(),
            created: Type.Boolean(),
            spec: StoredSpec,
          }),
          400: errorBodySchema,
          409: errorBodySchema,
        },
      },
    },
    async (request, reply) => {
      try {
        const result = await profiles.save(
          request.params.name,
          request.body.spec,
          request.body.baseRevision,
          auditContext(request),
        );
        return reply.status(result.changed ? 201 : 200).send(result);
      } catch (err) {
        if (err instanceof InvalidProfile) {
          throw new ApiError(
            400,
            'invalid_request',
            err.message,
            err.errors.map((e) => ({ path: `/spec${e.path}`, in: 'body', message: e.message })),
          );
        }
        if (err instanceof StaleRevision) {
          throw new ApiError(409, 'conflict', err.message, [
            { path: '/baseRevision', in: 'body', message: `latest revision is ${err.latest}` },
          ]);
        }
        throw err;
      }
    },
  );

  app.get(
    '/v1/profiles/:name',
    {
      schema: {
        tags: ['profiles'],
        summary: 'The latest revision of a profile',
        params: NameParam,
        response: {
          200: Type.Object({ ...RevisionView.properties, managed: ManagedSchema }),
          404: errorBodySchema,
        },
      },
    },
    async (request) => {
      const r = await profiles.revision(request.params.name);
      if (!r) throw new ApiError(404, 'not_found', `no profile named ${request.params.name}`);
      const managed = await profiles.managedMarks([request.params.name]);
      return { ...revisionView(r, request.params.name), managed: managed.get(request.params.name) ?? null };
    },
  );

  app.get(
    '/v1/profiles/:name/revisions',
    {
      schema: {
        tags: ['profiles'],
        summary: 'Revisions of a profile, newest first',
        params: NameParam,
        querystring: Type.Object(
          {
            limit: PageLimit(500, 50),
            cursor: Type.Optional(Type.String({ pattern: '^[0-9]{1,9}$' })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Page(RevisionView),
          404: errorBodySchema,
        },
      },
    },
    async (request) => {
      const page = await profiles.revisions(
        request.params.name,
        request.query.limit,
        request.query.cursor ? Number(request.query.cursor) : undefined,
      );
      if (!page) throw new ApiError(404, 'not_found', `no profile named ${request.params.name}`);
      return { items: page.items.map((r) => revisionView(r, request.params.name)), nextCursor: page.nextCursor };
    },
  );

  app.get(
    '/v1/profiles/:name/revisions/:revision',
    {
      schema: {
        tags: ['profiles'],
        summary: 'One revision of a profile',
        params: Type.Object({
          name: Type.String({ pattern: PROFILE_NAME_PATTERN }),
          revision: RevisionNumber,
        }),
        response: { 200: RevisionView, 404: errorBodySchema },
      },
    },
    async (request) => {
      const r = await profiles.revision(request.params.name, request.params.revision);
      if (!r)
        throw new ApiError(
          404,
          'not_found',
          `profile ${request.params.name} has no revision ${request.params.revision}`,
        );
      return revisionView(r, request.params.name);
    },
  );
};
