import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { PrismaClient } from '../../prisma/generated/client/client.js';
import type { AuditLog } from '../audit/audit-log.js';
import {
  DEFAULT_ENROLLMENT_TTL_SECONDS,
  MAX_ENROLLMENT_TTL_SECONDS,
  enrollmentTokenView,
  type EnrollmentTokens,
} from '../auth/enrollment-tokens.js';
import type { AgentAuthority } from '../pki/agent-authority.js';
import { normalizeSerial } from '../pki/ca.js';
import { DEFAULT_REENROLL_TTL_SECONDS, type Reenrollment } from '../pki/re-enrollment.js';
import { ApiError, errorBodySchema } from './errors.js';
import { auditContext } from './request-context.js';
import { IdParam, NoQuery, Nullable, Timestamp } from './shared-schemas.js';

// Unlike the shared Tag this also accepts '=' (PUT /v1/routers/:id/tags does not): one schema for both
// would change what one of the two routes accepts.
const EnrollmentTag = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9][A-Za-z0-9._:/=-]*$' });

const EnrollmentTokenView = Type.Object({
  id: Type.String(),
  routerName: Nullable(Type.String()),
  routerId: Nullable(Type.String({ description: 'Set on an admin re-enroll token: the router it may re-key' })),
  tags: Type.Array(Type.String()),
  state: Type.Union([Type.Literal('active'), Type.Literal('used'), Type.Literal('revoked'), Type.Literal('expired')]),
  expiresAt: Timestamp,
  usedAt: Nullable(Timestamp),
  usedByRouterId: Nullable(Type.String()),
  revokedAt: Nullable(Timestamp),
  createdBy: Type.String(),
  createdAt: Timestamp,
});

const CertificateView = Type.Object({
  serial: Type.String(),
  fingerprint: Type.String(),
  notBefore: Timestamp,
  notAfter: Timestamp,
  revokedAt: Nullable(Timestamp),
  state: Type.Union([Type.Literal('valid'), Type.Literal('expired'), Type.Literal('revoked')]),
});

export interface EnrollmentPluginOptions {
  enrollmentTokens: EnrollmentTokens;
  reenrollment: Reenrollment;
  authority: AgentAuthority;
  audit: AuditLog;
  db: PrismaClient;
  /** host:port agents dial (shown with a new enrollment token). */
  grpcAddress: () => string;
}

/**
 * Enrollment tokens (scope `enroll`), router certificates, and decommissioning (admin).
 * An enrollment token is single-use and expiring; its secret is in the creating response
 * only, together with the CA fingerprint the agent pins.
 */
export const enrollmentPlugin: FastifyPluginAsyncTypebox<EnrollmentPluginOptions> = async (app, opts) => {
  const { enrollmentTokens, reenrollment, authority, audit, db } = opts;

  const MintedSecret = Type.Object({
    token: Type.String({ description: 'The secret: shown only here' }),
    caFingerprint: Nullable(
      Type.String({ description: 'SHA-256 of the controller CA certificate; the agent pins it' }),
    ),
    grpcAddress: Type.String(),
  });

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

  app.get(
    '/v1/routers/:id/certificates',
    {
      schema: {
        tags: ['security'],
        summary: "A router's client certificates, newest first",
        params: IdParam,
        querystring: NoQuery,
        response: { 200: Type.Object({ items: Type.Array(CertificateView) }), 404: errorBodySchema },
      },
    },
    async (request) => {
      const router = await db.router.findUnique({ where: { id: request.params.id }, select: { id: true } });
      if (!router) throw new ApiError(404, 'not_found', `no router ${request.params.id}`);
      const rows = await db.agentCertificate.findMany({
        where: { routerId: router.id },
        orderBy: { notBefore: 'desc' },
        take: 100,
      });
      const now = new Date();
      return {
        items: rows.map((c) => ({
          serial: c.serial,
          fingerprint: c.fingerprint,
          notBefore: c.notBefore.toISOString(),
          notAfter: c.notAfter.toISOString(),
          revokedAt: c.revokedAt?.toISOString() ?? null,
          state: c.revokedAt ? ('revoked' as const) : c.notAfter <= now ? ('expired' as const) : ('valid' as const),
        })),
      };
    },
  );

  app.post(
    '/v1/routers/:id/re-enroll',
    {
      config: { scope: 'admin' },
      schema: {
        tags: ['security'],
        summary:
          'Let a router already in the fleet (or decommissioned) enroll again: a single-use token bound to its id; using it revokes its certificates',
        params: IdParam,
        // No body at all is fine: every field has a default.
        body: Type.Union([
          Type.Object(
            {
              expiresInSeconds: Type.Optional(
                Type.Integer({
                  minimum: 60,
                  maximum: MAX_ENROLLMENT_TTL_SECONDS,
                  default: DEFAULT_REENROLL_TTL_SECONDS,
                }),
              ),
            },
            { additionalProperties: false },
          ),
          Type.Null(),
        ]),
        response: {
          201: Type.Intersect([EnrollmentTokenView, MintedSecret, Type.Object({ identity: Type.String() })]),
          400: errorBodySchema,
          401: errorBodySchema,
          403: errorBodySchema,
          404: errorBodySchema,
        },
      },
    },
    async (request, reply) => {
      const ttl = request.body?.expiresInSeconds ?? DEFAULT_REENROLL_TTL_SECONDS;
      const minted = await reenrollment.mint(request.params.id, request.actor.id, ttl, request.id);
      if (!minted) throw new ApiError(404, 'not_found', `no router ${request.params.id}`);
      return reply.status(201).send({
        ...enrollmentTokenView(minted.record),
        token: minted.secret,
        caFingerprint: authority.caFingerprint,
        grpcAddress: opts.grpcAddress(),
        identity: minted.router.identity,
      });
    },
  );

  app.post(
    '/v1/certificates/:serial/revoke',
    {
      config: { scope: 'admin' },
      schema: {
        tags: ['security'],
        summary: 'Revoke one client certificate; a stream it authenticated closes within a second',
        params: Type.Object(
          { serial: Type.String({ minLength: 1, maxLength: 64, pattern: '^[0-9a-fA-F:]+$' }) },
          { additionalProperties: false },
        ),
        response: { 204: Type.Null(), 404: errorBodySchema, 401: errorBodySchema, 403: errorBodySchema },
      },
    },
    async (request, reply) => {
      const serial = normalizeSerial(request.params.serial);
      if (!(await authority.revokeCertificate(serial, request.actor.id, request.id))) {
        throw new ApiError(404, 'not_found', `no unrevoked certificate with serial ${serial}`);
      }
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/v1/routers/:id/decommission',
    {
      config: { scope: 'admin' },
      schema: {
        tags: ['security'],
        summary: 'Decommission a router: revoke its certificates, close its stream, refuse it from now on',
        params: IdParam,
        response: {
          200: Type.Object({
            id: Type.String(),
            identity: Type.String(),
            decommissionedAt: Timestamp,
            revokedCertificates: Type.Integer(),
          }),
          404: errorBodySchema,
          401: errorBodySchema,
          403: errorBodySchema,
        },
      },
    },
    async (request) => {
      const result = await authority.decommission(request.params.id, request.actor.id, request.id);
      if (!result) throw new ApiError(404, 'not_found', `no router ${request.params.id}`);
      return { ...result, decommissionedAt: result.decommissionedAt.toISOString() };
    },
  );
};
