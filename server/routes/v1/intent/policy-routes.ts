import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ApiError, errorBodySchema } from '../../../http/api-error.js';
import { auditContext } from '../../../http/request-context.js';
import { INT32_MAX, Timestamp } from '../../../http/shared-schemas.js';
import { IntentDocumentSchemas, InvalidDocuments } from '../../../intent/intent-documents.js';
import { POLICY_KINDS, POLICY_PATHS, StaleVersion, type PolicyStore } from '../../../intent/policy-store.js';
import { PROFILE_NAME_PATTERN } from '../../../profiles/profile-store.js';
import { ManagedSchema } from './intent-schemas.js';

const NameParam = Type.Object({ name: Type.String({ pattern: PROFILE_NAME_PATTERN }) });

/**
 * /v1/rollout-policies, /v1/assignments and /v1/firmware-policies: each kind's resources one by
 * one, as the console and scripts change them. `managed` says which the files manage; a change
 * here to one of those is shown as drift by the next plan, and the next apply puts the files'
 * spec back. Saving an assignment starts no rollout: `wrtfleet apply` (POST /v1/apply) does.
 */
export const policyRoutes: FastifyPluginAsyncTypebox<{ policies: PolicyStore }> = async (app, { policies }) => {
  for (const kind of POLICY_KINDS) {
    const { path } = POLICY_PATHS[kind];
    const spec = IntentDocumentSchemas[kind].properties.spec;
    const View = Type.Object(
      {
        name: Type.String(),
        spec: Type.Any({ description: 'As stored: every default filled in' }),
        version: Type.Integer(),
        managed: ManagedSchema,
        updatedAt: Timestamp,
      },
      { title: `${kind}View` },
    );
    const notFound = (name: string) => new ApiError(404, 'not_found', `no ${kind} named ${name}`);

    app.get(
      `/v1/${path}`,
      {
        schema: {
          tags: ['intent'],
          summary: `List ${kind} resources by name`,
          response: { 200: Type.Object({ items: Type.Array(View) }) },
        },
      },
      async () => ({ items: await policies.list(kind) }),
    );

    app.get(
      `/v1/${path}/:name`,
      {
        schema: {
          tags: ['intent'],
          summary: `One ${kind}`,
          params: NameParam,
          response: { 200: View, 404: errorBodySchema },
        },
      },
      async (request) => {
        const found = await policies.get(kind, request.params.name);
        if (!found) throw notFound(request.params.name);
        return found;
      },
    );

    app.put(
      `/v1/${path}/:name`,
      {
        schema: {
          tags: ['intent'],
          summary: `Create a ${kind} or change it (idempotent when the spec is unchanged)`,
          description: 'Send `baseVersion` (the version you read) to change one that exists; otherwise 409.',
          params: NameParam,
          body: Type.Object(
            { spec, baseVersion: Type.Optional(Type.Integer({ minimum: 1, maximum: INT32_MAX })) },
            { additionalProperties: false },
          ),
          response: {
            200: Type.Object({ changed: Type.Boolean(), version: Type.Integer() }),
            400: errorBodySchema,
            409: errorBodySchema,
          },
        },
      },
      async (request) => {
        try {
          return await policies.save(
            kind,
            request.params.name,
            request.body.spec,
            request.body.baseVersion,
            auditContext(request),
          );
        } catch (err) {
          if (err instanceof InvalidDocuments)
            throw new ApiError(
              400,
              'invalid_request',
              err.message,
              err.errors.map((e) => ({ path: e.path, in: 'body', message: e.message })),
            );
          if (err instanceof StaleVersion)
            throw new ApiError(409, 'conflict', err.message, [
              { path: '/baseVersion', in: 'body', message: err.message },
            ]);
          throw err;
        }
      },
    );

    app.delete(
      `/v1/${path}/:name`,
      {
        schema: {
          tags: ['intent'],
          summary: `Remove a ${kind} (routers keep what they run)`,
          params: NameParam,
          response: { 204: Type.Null(), 404: errorBodySchema },
        },
      },
      async (request, reply) => {
        if (!(await policies.remove(kind, request.params.name, auditContext(request))))
          throw notFound(request.params.name);
        return reply.status(204).send(null);
      },
    );
  }
};
