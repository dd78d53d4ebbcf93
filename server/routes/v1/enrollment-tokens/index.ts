import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AuditLog } from '../../../audit/audit-log.js';
import {
  DEFAULT_ENROLLMENT_TTL_SECONDS,
  MAX_ENROLLMENT_TTL_SECONDS,
  enrollmentTokenView,
  type EnrollmentTokens,
} from '../../../auth/enrollment-tokens.js';
import type { AgentAuthority } from '../../../pki/agent-authority.js';
import { ApiError, errorBodySchema } from '../../../http/api-error.js';
import { auditContext } from '../../../http/request-context.js';
import { IdParam, NoQuery } from '../../../http/shared-schemas.js';
import { EnrollmentTokenView, MintedSecret } from './token-schemas.js';

// Unlike the shared Tag this also accepts '=' (PUT /v1/routers/:id/tags does not): one schema for both
// would change what one of the two routes accepts.
const EnrollmentTag = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9][A-Za-z0-9._:/=-]*$' });

export interface EnrollmentPluginOptions {
  enrollmentTokens: EnrollmentTokens;
  authority: AgentAuthority;
  audit: AuditLog;
  /** host:port agents dial (shown with a new enrollment token). */
  grpcAddress: () => string;
}

/**
 * Enrollment tokens (scope `enroll`). An enrollment token is single-use and expiring; its secret is in the creating response
 * only, together with the CA fingerprint the agent pins.
 */
export const enrollmentPlugin: FastifyPluginAsyncTypebox<EnrollmentPluginOptions> = async (app, opts) => {
  const { enrollmentTokens, authority, audit } = opts;

  app.post(
    '/v1/enrollment-tokens',
    {
      config: { scope: 'enroll' },
      schema: {
        tags: ['security'],
        summary: 'Create a single-use enrollment token for one agent; the secret is returned once',
        body: Type.Object(
          {
            routerName: Type.Optional(
              Type.String({
                minLength: 1,
                maxLength: 128,
                pattern: '^[A-Za-z0-9][A-Za-z0-9._:,@/+ -]*$',
                description: 'The enrolled router gets exactly this name',
              }),
            ),
            tags: Type.Optional(Type.Array(EnrollmentTag, { maxItems: 32, uniqueItems: true })),
            expiresInSeconds: Type.Optional(
              Type.Integer({
                minimum: 60,
                maximum: MAX_ENROLLMENT_TTL_SECONDS,
                default: DEFAULT_ENROLLMENT_TTL_SECONDS,
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          201: Type.Intersect([EnrollmentTokenView, MintedSecret]),
          400: errorBodySchema,
          401: errorBodySchema,
          403: errorBodySchema,
        },
      },
    },
    async (request, reply) => {
      const body = request.body ?? {};
      // The token and its event commit together: no usable token exists that the history lacks.
      const { secret, view } = await audit.record(async (tx) => {
        const { secret, record } = await enrollmentTokens.create(
          {
            routerName: body.routerName ?? null,
            tags: body.tags ?? [],
            ttlSeconds: body.expiresInSeconds ?? DEFAULT_ENROLLMENT_TTL_SECONDS,
            createdBy: request.actor.id,
          },
          tx,
        );
        const view = enrollmentTokenView(record);
        return {
          result: { secret, view },
          event: {
            ...auditContext(request),
            action: 'enrollment_token.created',
            targetType: 'enrollment_token',
            targetId: record.id,
            after: view,
          },
        };
      });
      return reply
        .status(201)
        .send({ ...view, token: secret, caFingerprint: authority.caFingerprint, grpcAddress: opts.grpcAddress() });
    },
  );

  app.get(
    '/v1/enrollment-tokens',
    {
      config: { scope: 'enroll' },
      schema: {
        tags: ['security'],
        summary: 'List enrollment tokens (never their secrets), newest first',
        querystring: NoQuery,
        response: {
          200: Type.Object({ items: Type.Array(EnrollmentTokenView) }),
          401: errorBodySchema,
          403: errorBodySchema,
        },
      },
    },
    async () => ({ items: (await enrollmentTokens.list()).map((r) => enrollmentTokenView(r)) }),
  );

  app.delete(
    '/v1/enrollment-tokens/:id',
    {
      config: { scope: 'enroll' },
      schema: {
        tags: ['security'],
        summary: 'Revoke an unused enrollment token',
        params: IdParam,
        response: { 204: Type.Null(), 404: errorBodySchema, 401: errorBodySchema, 403: errorBodySchema },
      },
    },
    async (request, reply) => {
      const row = await enrollmentTokens.get(request.params.id);
      if (!row) throw new ApiError(404, 'not_found', `no enrollment token ${request.params.id}`);
      await audit.record(async (tx) => {
        if (!(await enrollmentTokens.revoke(row.id, tx))) return { result: false, event: null };
        return {
          result: true,
          event: {
            ...auditContext(request),
            action: 'enrollment_token.revoked',
            targetType: 'enrollment_token',
            targetId: row.id,
          },
        };
      });
      return reply.status(204).send(null);
    },
  );
};
