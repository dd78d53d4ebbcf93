import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { ApiError } from '../api/errors.js';
import { grants, type Actor, type ApiTokens, type Scope } from './api-tokens.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated caller; set for every route that is not public. */
    actor: Actor;
  }
  interface FastifyContextConfig {
    /** Scope a route needs; default read for GET/HEAD, write otherwise. */
    scope?: Scope;
    /** No token needed (health, the OpenAPI document). */
    public?: boolean;
  }
}

export interface AuthPluginOptions {
  tokens: ApiTokens;
}

function neededScope(request: FastifyRequest): Scope {
  const configured = request.routeOptions.config?.scope;
  if (configured) return configured;
  return request.method === 'GET' || request.method === 'HEAD' ? 'read' : 'write';
}

/**
 * Bearer-token authentication and scope checks for every route except those marked
 * public. Runs in onRequest, before body parsing, so an anonymous caller cannot even make
 * the controller parse a large body.
 */
async function authPlugin(app: FastifyInstance, { tokens }: AuthPluginOptions) {
  app.decorateRequest('actor', null as unknown as Actor);
  app.addHook('onRequest', async (request) => {
    const path = request.url.split('?')[0] ?? '';
    if (request.routeOptions.config?.public || path === '/docs' || path.startsWith('/docs/')) return;
    const header = request.headers.authorization;
    const match = typeof header === 'string' ? /^Bearer\s+(\S+)$/i.exec(header) : null;
    if (!match) throw new ApiError(401, 'unauthenticated', 'this request needs an API token: Authorization: Bearer <token>');
    const actor = await tokens.authenticate(match[1]!);
    if (!actor) throw new ApiError(401, 'unauthenticated', 'the API token is unknown, revoked or expired');
    const needed = neededScope(request);
    if (!grants(actor.scopes, needed)) throw new ApiError(403, 'forbidden', `this request needs the "${needed}" scope; the token has ${actor.scopes.join(', ') || 'none'}`);
    request.actor = actor;
  });
}

export default fp(authPlugin, { name: 'wrtfleet-auth', dependencies: ['wrtfleet-errors'] });
