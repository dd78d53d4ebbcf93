import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { PrismaClient } from '../../../../prisma/generated/client/client.js';
import type { AuditLog } from '../../../audit/audit-log.js';
import type { RouterCredentials } from '../../../secrets/router-credentials.js';
import { ApiError, errorBodySchema } from '../../../http/api-error.js';
import { auditContext } from '../../../http/request-context.js';
import { AgentIdentity, IdParam, Nullable, SshLogin, Timestamp } from '../../../http/shared-schemas.js';

const CredentialView = Type.Object({
  routerId: Type.String(),
  host: Type.String(),
  port: Type.Integer(),
  username: Type.String(),
  authType: Type.Union([Type.Literal('password'), Type.Literal('privateKey')]),
  hasSecret: Type.Boolean({ description: 'The secret itself is never returned' }),
  hasPassphrase: Type.Boolean(),
  hostKeyFingerprint: Nullable(Type.String()),
  proxyIdentity: Nullable(Type.String()),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export interface CredentialsPluginOptions {
  credentials: RouterCredentials;
  audit: AuditLog;
  db: PrismaClient;
}

/**
 * SSH credentials for proxy-managed routers. Writing needs admin: a root password or key
 * gives more power over a router than any profile. Reads describe the credential (host,
 * user, whether a secret is set) and never return the secret; audit events never hold it.
 */
export const credentialsPlugin: FastifyPluginAsyncTypebox<CredentialsPluginOptions> = async (
  app,
  { credentials, audit, db },
) => {
  const routerOr404 = async (id: string) => {
    const router = await db.router.findUnique({ where: { id }, select: { id: true } });
    if (!router) throw new ApiError(404, 'not_found', `no router ${id}`);
    return router.id;
  };

  app.put(
    '/v1/routers/:id/credential',
    {
      config: { scope: 'admin' },
      schema: {
        tags: ['security'],
        summary: 'Store the SSH credential a proxy agent uses for this router (encrypted at rest, never returned)',
        params: IdParam,
        body: Type.Object(
          {
            host: SshLogin.host,
            port: Type.Optional(SshLogin.port),
            username: SshLogin.user,
            authType: Type.Union([Type.Literal('password'), Type.Literal('privateKey')]),
            password: Type.Optional(SshLogin.password),
            privateKey: Type.Optional(SshLogin.privateKey),
            passphrase: Type.Optional(SshLogin.passphrase),
            hostKeyFingerprint: Type.Optional(
              Type.String({ minLength: 1, maxLength: 128, pattern: '^SHA256:[A-Za-z0-9+/=]+$' }),
            ),
            proxyIdentity: Type.Optional(AgentIdentity),
          },
          { additionalProperties: false },
        ),
        response: {
          200: CredentialView,
          400: errorBodySchema,
          404: errorBodySchema,
          401: errorBodySchema,
          403: errorBodySchema,
        },
      },
    },
    async (request) => {
      const routerId = await routerOr404(request.params.id);
      const body = request.body;
      if (body.authType === 'password' && (!body.password || body.privateKey || body.passphrase)) {
        throw new ApiError(
          400,
          'invalid_request',
          'invalid body parameter: authType "password" needs password and no privateKey/passphrase',
          [{ path: '/password', in: 'body', message: 'required for authType password' }],
        );
      }
      if (body.authType === 'privateKey' && (!body.privateKey || body.password)) {
        throw new ApiError(
          400,
          'invalid_request',
          'invalid body parameter: authType "privateKey" needs privateKey and no password',
          [{ path: '/privateKey', in: 'body', message: 'required for authType privateKey' }],
        );
      }
      if (
        body.privateKey &&
        !/^-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]+-----END [A-Z0-9 ]*PRIVATE KEY-----\s*$/.test(
          body.privateKey.trim(),
        )
      ) {
        throw new ApiError(
          400,
          'invalid_request',
          'invalid body parameter: privateKey must be a PEM or OpenSSH private key',
          [{ path: '/privateKey', in: 'body', message: 'not a PEM/OpenSSH private key' }],
        );
      }
      // The credential and its event commit together. The event names what changed, never the
      // secret (not even a hash of it).
      return audit.record(async (tx) => {
        const before = await credentials.describe(routerId, tx);
        const view = await credentials.put(routerId, body, tx);
        const { createdAt: _c, updatedAt: _u, ...safe } = view;
        return {
          result: view,
          event: {
            ...auditContext(request),
            action: 'router.credential_set',
            targetType: 'router',
            targetId: routerId,
            before,
            after: safe,
          },
        };
      });
    },
  );

  app.get(
    '/v1/routers/:id/credential',
    {
      schema: {
        tags: ['security'],
        summary: "Describe a router's SSH credential (never the secret)",
        params: IdParam,
        response: { 200: CredentialView, 404: errorBodySchema },
      },
    },
    async (request) => {
      const routerId = await routerOr404(request.params.id);
      const view = await credentials.describe(routerId);
      if (!view) throw new ApiError(404, 'not_found', `router ${routerId} has no stored credential`);
      return view;
    },
  );

  app.delete(
    '/v1/routers/:id/credential',
    {
      config: { scope: 'admin' },
      schema: {
        tags: ['security'],
        summary: "Delete a router's SSH credential",
        params: IdParam,
        response: { 204: Type.Null(), 404: errorBodySchema },
      },
    },
    async (request, reply) => {
      const routerId = await routerOr404(request.params.id);
      const removed = await audit.record(async (tx) => {
        if (!(await credentials.remove(routerId, tx))) return { result: false, event: null };
        return {
          result: true,
          event: {
            ...auditContext(request),
            action: 'router.credential_deleted',
            targetType: 'router',
            targetId: routerId,
          },
        };
      });
      if (!removed) throw new ApiError(404, 'not_found', `router ${routerId} has no stored credential`);
      return reply.status(204).send(null);
    },
  );
};
