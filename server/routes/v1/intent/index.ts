import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { PrismaClient } from '../../../../prisma/generated/client/client.js';
import type { AuditLog } from '../../../audit/audit-log.js';
import { ApiError, errorBodySchema } from '../../../http/api-error.js';
import { auditContext } from '../../../http/request-context.js';
import { Printable } from '../../../http/shared-schemas.js';
import { applyIntent, StalePlan } from '../../../intent/intent-apply.js';
import { intentJsonSchema, InvalidDocuments, validateDocuments } from '../../../intent/intent-documents.js';
import { exportIntent } from '../../../intent/intent-export.js';
import { planIntent } from '../../../intent/intent-plan.js';
import type { RolloutStore } from '../../../rollouts/rollout-create.js';
import { DocumentsSchema, IntentKindSchema, IntentPlanSchema } from './intent-schemas.js';
import { policyRoutes } from './policy-routes.js';
import { PolicyStore } from '../../../intent/policy-store.js';

export interface IntentPluginOptions {
  db: PrismaClient;
  audit: AuditLog;
  rollouts: RolloutStore;
}

/** A document error as the API's 400: one detail per problem, each naming its document. */
function invalid(err: InvalidDocuments): ApiError {
  return new ApiError(
    400,
    'invalid_documents',
    err.message,
    err.errors.map((e) => ({ path: e.path, in: 'body', message: e.message })),
  );
}

async function guarded<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof InvalidDocuments) throw invalid(err);
    if (err instanceof StalePlan)
      throw new ApiError(
        409,
        'stale_plan',
        err.message,
        err.differences.map((d) => ({ path: '/expectState', in: 'body', message: d })),
      );
    throw err;
  }
}

/**
 * The fleet as code over HTTP: POST /v1/plan says what a directory of documents would change,
 * POST /v1/apply changes it (all or nothing), GET /v1/export gives today's intent as documents.
 * The CLI's `plan`, `apply` and `export` are these three calls and nothing more.
 */
export const intentPlugin: FastifyPluginAsyncTypebox<IntentPluginOptions> = async (app, { db, audit, rollouts }) => {
  await app.register(policyRoutes, { policies: new PolicyStore(db, audit) });
  const planBody = {
    documents: DocumentsSchema,
    prune: Type.Optional(
      Type.Boolean({ default: false, description: 'Remove what the files managed and no longer name' }),
    ),
  };

  app.post(
    '/v1/plan',
    {
      config: { scope: 'read' },
      schema: {
        tags: ['intent'],
        summary: 'What applying these documents would change, and which routers each change reaches',
        description:
          'Read-only. Each resource with its action and spec diff; each Assignment and FirmwarePolicy with the ' +
          'routers it selects and what the apply would do to each, with the plan preview’s reasons. `changes` 0: ' +
          'nothing to apply. Keep `state` to apply exactly this plan later (`expectState`).',
        body: Type.Object(planBody, { additionalProperties: false }),
        response: { 200: IntentPlanSchema, 400: errorBodySchema },
      },
    },
    async (request) =>
      guarded(async () => {
        const documents = validateDocuments(request.body.documents);
        return (await planIntent(db, documents, request.body.prune ?? false)).plan;
      }),
  );

  app.post(
    '/v1/apply',
    {
      schema: {
        tags: ['intent'],
        summary: 'Apply these documents: the plan’s changes and rollouts, in one transaction',
        description:
          'Writes what POST /v1/plan shows for the same documents, marks every resource they name as managed from ' +
          'files, and starts a rollout (through the named RolloutPolicy) for each Assignment or FirmwarePolicy with ' +
          'routers to move. With `expectState` (a saved plan’s `state`) it is refused with 409 `stale_plan` if any ' +
          'resource moved since, naming which; nothing is written then, nor when any document is refused. Applying ' +
          'the same documents again changes nothing.',
        body: Type.Object(
          {
            ...planBody,
            source: Type.Optional(
              Type.String({
                ...Printable(200),
                description: 'The commit or label the files came from, recorded in the audit with every change',
              }),
            ),
            expectState: Type.Optional(Type.Record(Type.String(), Type.Integer())),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            plan: IntentPlanSchema,
            rollouts: Type.Array(
              Type.Object({
                id: Type.String(),
                kind: IntentKindSchema,
                name: Type.String(),
                routers: Type.Integer(),
                startAt: Type.String({ format: 'date-time' }),
              }),
            ),
          }),
          400: errorBodySchema,
          409: errorBodySchema,
        },
      },
    },
    async (request) =>
      guarded(async () => {
        const documents = validateDocuments(request.body.documents);
        return applyIntent(
          { db, audit, rollouts },
          {
            documents,
            prune: request.body.prune ?? false,
            source: request.body.source ?? null,
            expectState: request.body.expectState,
          },
          auditContext(request),
        );
      }),
  );

  app.get(
    '/v1/export',
    {
      schema: {
        tags: ['intent'],
        summary: 'Today’s fleet intent as documents (profiles, rollout policies, assignments, firmware policies)',
        response: {
          200: Type.Object({
            documents: Type.Array(
              Type.Object({
                apiVersion: Type.String(),
                kind: IntentKindSchema,
                metadata: Type.Object({ name: Type.String() }),
                spec: Type.Any(),
              }),
            ),
          }),
        },
      },
    },
    async () => ({ documents: await exportIntent(db) }),
  );

  app.get(
    '/v1/intent/schema',
    {
      config: { public: true },
      schema: {
        tags: ['intent'],
        summary: 'The JSON Schema of a fleet document, for editors and CI linters',
        response: { 200: Type.Any() },
      },
    },
    async () => intentJsonSchema(),
  );
};
