import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { PrismaClient } from '../../../../prisma/generated/client/client.js';
import { MAX_ENROLLMENT_TTL_SECONDS, enrollmentTokenView } from '../../../auth/enrollment-tokens.js';
import type { AgentAuthority } from '../../../pki/agent-authority.js';
import { DEFAULT_REENROLL_TTL_SECONDS, type Reenrollment } from '../../../pki/re-enrollment.js';
import { ApiError, errorBodySchema } from '../../../http/api-error.js';
import { EnrollmentTokenView, MintedSecret } from '../enrollment-tokens/token-schemas.js';
import { IdParam, NoQuery, Nullable, Timestamp } from '../../../http/shared-schemas.js';

const CertificateView = Type.Object({
  serial: Type.String(),
  fingerprint: Type.String(),
  notBefore: Timestamp,
  notAfter: Timestamp,
  revokedAt: Nullable(Timestamp),
  state: Type.Union([Type.Literal('valid'), Type.Literal('expired'), Type.Literal('revoked')]),
});

export interface RouterIdentityOptions {
  reenrollment: Reenrollment;
  authority: AgentAuthority;
  db: PrismaClient;
  /** host:port agents dial (shown with a re-enroll token). */
  grpcAddress: () => string;
}

/** A router's identity (admin for changes): its client certificates, re-enrolling it, decommissioning it. */
export const routerIdentityPlugin: FastifyPluginAsyncTypebox<RouterIdentityOptions> = async (app, opts) => {
  const { reenrollment, authority, db } = opts;

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
