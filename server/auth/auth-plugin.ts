import { timingSafeEqual } from 'node:crypto';
import fastifyCookie from '@fastify/cookie';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { isApiPath, pathOf } from '../http/api-paths.js';
import { mayBeConsolePage } from '../console/console-plugin.js';
import { ApiError } from '../http/api-error.js';
import { grants, type Actor, type ApiTokens, type Scope } from './api-tokens.js';
import { FailureLimiter } from './failure-limiter.js';
import { SESSION_COOKIE, type OperatorSessions, type SessionInfo } from './operator-sessions.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated caller; set for every route that is not public. */
    actor: Actor;
    /** The console session the request came with; null for a bearer token. */
    operatorSession: SessionInfo | null;
  }
  interface FastifyContextConfig {
    /** Scope a route needs; default read for GET/HEAD, write otherwise. */
    scope?: Scope;
    /** No token needed (health, the OpenAPI document). */
    public?: boolean;
    /** The console's files (server/console/): public, with the console's CSP, except under an API path. */
    console?: boolean;
  }
}

export interface AuthPluginOptions {
  tokens: ApiTokens;
  /** Console sessions (the session cookie); absent: bearer tokens only. */
  sessions?: OperatorSessions;
  /** Failed authentications per client IP and minute before 429 (default 20). */
  authFailuresPerMinute?: number;
}

/** Swagger UI loads its scripts and styles from /docs/static; it needs inline styles and data: images. */
const DOCS_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";
/** API responses are data, never documents: nothing may load from or frame them. */
const API_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";
/**
 * The console: its own scripts and styles only (no inline script, no eval, no other origin),
 * calls to its own API, no plugins, never framed.
 */
export const CONSOLE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; manifest-src 'self'; worker-src 'none'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

const isDocs = (path: string) => path === '/docs' || path.startsWith('/docs/');

/**
 * A request for the console's files: its assets, or a GET no route matched outside the API's
 * paths (the not-found handler answers it with index.html, server/console/console-plugin.ts).
 */
const isConsole = (request: FastifyRequest, path: string) =>
  (request.routeOptions.config?.console === true || (request.is404 && mayBeConsolePage(request))) && !isApiPath(path);

const SAFE_METHODS = new Set(['GET', 'HEAD']);

/** Constant-time equality; lengths are compared as bytes, since a header may hold any Latin-1 text. */
function sameSecret(presented: unknown, expected: string): boolean {
  if (typeof presented !== 'string') return false;
  const given = Buffer.from(presented);
  const wanted = Buffer.from(expected);
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}

function neededScope(request: FastifyRequest): Scope {
  const configured = request.routeOptions.config?.scope;
  if (configured) return configured;
  return request.method === 'GET' || request.method === 'HEAD' ? 'read' : 'write';
}

/**
 * Authentication and scope checks for every route except those marked public: a bearer token
 * (automation, or pasted into the console), or else the console's session cookie. A write made
 * with the cookie must also carry the session's X-CSRF-Token, which a page of another origin
 * cannot read; a bearer token needs none (a browser never sends it on its own). Runs in
 * onRequest, before body parsing, so an anonymous caller cannot even make the controller parse
 * a large body.
 */
async function authPlugin(app: FastifyInstance, { tokens, sessions, authFailuresPerMinute = 20 }: AuthPluginOptions) {
  const limiter = new FailureLimiter(authFailuresPerMinute);
  app.decorateRequest('actor', null as unknown as Actor);
  app.decorateRequest('operatorSession', null);
  await app.register(fastifyCookie);

  // Security headers on every response, errors and 404s included.
  app.addHook('onSend', async (request, reply) => {
    const path = pathOf(request.url);
    const docs = isDocs(path);
    // A 404 or an error is not a console file, whatever path it answers.
    const consoleFile = reply.statusCode < 400 && isConsole(request, path);
    reply.header('x-content-type-options', 'nosniff');
    reply.header('x-frame-options', 'DENY');
    reply.header('referrer-policy', 'no-referrer');
    reply.header('cross-origin-opener-policy', 'same-origin');
    reply.header('cross-origin-resource-policy', 'same-origin');
    reply.header('content-security-policy', docs ? DOCS_CSP : consoleFile ? CONSOLE_CSP : API_CSP);
    // The console's files say how long they keep (hashed assets a year, index.html revalidated).
    if (consoleFile) {
      if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
      return;
    }
    // Responses carry fleet data and, once, freshly minted secrets: never cache them.
    if (!docs || !request.url.startsWith('/docs/static/')) reply.header('cache-control', 'no-store');
  });

  app.addHook('onRequest', async (request, reply) => {
    const path = pathOf(request.url);
    if (request.routeOptions.config?.public || isDocs(path) || isConsole(request, path)) return;
    const header = request.headers.authorization;
    const cookie = header === undefined && sessions ? request.cookies[SESSION_COOKIE] : undefined;
    const match = typeof header === 'string' ? /^Bearer\s+(\S+)$/i.exec(header) : null;
    let actor: Actor | null = null;
    let session: SessionInfo | null = null;
    if (cookie !== undefined && sessions) {
      const found = await sessions.authenticate(cookie);
      actor = found?.actor ?? null;
      session = found?.session ?? null;
    } else if (match) actor = await tokens.authenticate(match[1]!);
    if (!actor) {
      // A limited address gets 429 for every failure; a valid token from it still passes, so
      // a misconfigured script behind the same NAT cannot lock out the operators.
      const retryAfter = limiter.retryAfterSeconds(request.ip);
      if (retryAfter > 0) {
        reply.header('retry-after', String(retryAfter));
        throw new ApiError(
          429,
          'too_many_failures',
          `too many failed authentications from this address; retry in ${retryAfter} s`,
        );
      }
      limiter.recordFailure(request.ip);
      throw new ApiError(
        401,
        'unauthenticated',
        cookie !== undefined
          ? 'the session has ended (signed out, idle too long, expired or the account disabled); sign in again'
          : match
            ? 'the API token is unknown, revoked or expired'
            : 'this request needs an API token (Authorization: Bearer <token>) or a signed-in session',
      );
    }
    if (session && !SAFE_METHODS.has(request.method) && !sameSecret(request.headers['x-csrf-token'], session.csrfToken))
      throw new ApiError(
        403,
        'csrf_token_invalid',
        'a write made with the session cookie needs the header X-CSRF-Token: the csrfToken of GET /v1/session',
      );
    const needed = neededScope(request);
    if (!grants(actor.scopes, needed))
      throw new ApiError(
        403,
        'forbidden',
        `this request needs the "${needed}" scope; the ${actor.kind === 'account' ? 'account' : 'token'} has ${actor.scopes.join(', ') || 'none'}`,
      );
    request.actor = actor;
    request.operatorSession = session;
  });
}

export default fp(authPlugin, { name: 'wrtfleet-auth', dependencies: ['wrtfleet-errors'] });
