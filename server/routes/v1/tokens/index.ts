import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { SCOPES, type ApiTokens, type Scope } from '../../../auth/api-tokens.js';
import { ApiError, errorBodySchema } from '../../../http/api-error.js';
import { auditContext } from '../../../http/request-context.js';
import { IdParam, NoQuery, Nullable, Printable, StringEnum, Timestamp } from '../../../http/shared-schemas.js';

const MAX_TTL_SECONDS = 5 * 365 * 86_400;

const TokenView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  owner: Type.String(),
  prefix: Type.String({ description: 'First characters of the secret, to tell tokens apart' }),
  scopes: Type.Array(Type.String()),
  state: Type.Union([Type.Literal('active'), Type.Literal('expired'), Type.Literal('revoked')]),
  expiresAt: Nullable(Timestamp),
  revokedAt: Nullable(Timestamp),
  lastUsedAt: Nullable(Timestamp),
  createdBy: Type.String(),
  createdAt: Timestamp,
});

export interface TokensPluginOptions {
  tokens: ApiTokens;
}

/**
 * API tokens (admin only): create (the secret is in this one response and nowhere else),
 * list (never the secret or its hash), revoke. Every change is audited with the caller as
 * the actor.
 */
export const tokensPlugin: FastifyPluginAsyncTypebox<TokensPluginOptions> = async (app, { tokens }) => {
  app.post(
    '/v1/tokens',
    {
      config: { scope: 'admin' },
      schema: {
        tags: ['security'],
        summary: 'Create an API token; the secret is returned once',
        body: Type.Object(
          {
            name: Printable(100),
            owner: Type.Optional(
              Type.String({
                minLength: 1,
                maxLength: 100,
                pattern: '^[A-Za-z0-9][A-Za-z0-9._@:-]*$',
                description: 'Who the audit history names; default: the caller',
              }),
            ),
            scopes: Type.Array(StringEnum(SCOPES, { title: 'Scope' }), {
              minItems: 1,
              maxItems: SCOPES.length,
              uniqueItems: true,
            }),
            expiresInSeconds: Type.Optional(Type.Integer({ minimum: 60, maximum: MAX_TTL_SECONDS })),
          },
          { additionalProperties: false },
        ),
        response: {
          201: Type.Intersect([
            TokenView,
            Type.Object({ token: Type.String({ description: 'The secret: shown only here' }) }),
          ]),
          400: errorBodySchema,
          401: errorBodySchema,
          403: errorBodySchema,
        },
      },
    },
    async (request, reply) => {
      const body = request.body;
      const { secret, record } = await tokens.create({
        name: body.name,
        owner: body.owner ?? request.actor.owner,
        scopes: body.scopes as Scope[],
        expiresAt: body.expiresInSeconds ? new Date(Date.now() + body.expiresInSeconds * 1000) : null,
        createdBy: request.actor.id,
        requestId: request.id,
      });
      const view = (await tokens.get(record.id))!;
      return reply.status(201).send({ ...view, token: secret });
    },
  );

  app.get(
    '/v1/tokens',
    {
      config: { scope: 'admin' },
      schema: {
        tags: ['security'],
        summary: 'List API tokens (never their secrets)',
        querystring: NoQuery,
        response: { 200: Type.Object({ items: Type.Array(TokenView) }), 401: errorBodySchema, 403: errorBodySchema },
      },
    },
    async () => ({ items: await tokens.list() }),
  );

  app.delete(
    '/v1/tokens/:id',
    {
      config: { scope: 'admin' },
      schema: {
        tags: ['security'],
        summary: 'Revoke an API token (takes effect on its next request)',
        description:
          'Idempotent: revoking a token that is already revoked answers 204 again and changes and audits ' +
          'nothing, so a retried revocation never fails. 404 only for an id that names no token.',
        params: IdParam,
        response: {
          204: Type.Null({ description: 'The token is revoked (now, or already before)' }),
          404: { ...errorBodySchema, description: 'No API token has this id' },
          401: errorBodySchema,
          403: errorBodySchema,
        },
      },
    },
    async (request, reply) => {
      const before = await tokens.get(request.params.id);
      if (!before) throw new ApiError(404, 'not_found', `no API token ${request.params.id}`);
      await tokens.revoke(before.id, auditContext(request));
      return reply.status(204).send(null);
    },
  );
};
