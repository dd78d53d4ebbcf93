import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { AuditLog } from '../../../audit/audit-log.js';
import type { Actor } from '../../../auth/api-tokens.js';
import type { OperatorAccounts } from '../../../auth/operator-accounts.js';
import { RoleSchema, roleOfScopes, scopesOfRole } from '../../../auth/operator-roles.js';
import { SESSION_COOKIE, type OperatorSessions, type SessionInfo } from '../../../auth/operator-sessions.js';
import { ApiError, errorBodySchema } from '../../../http/api-error.js';
import { UNKNOWN_ACCOUNT, type PasswordGuard } from '../../../auth/password-guard.js';
import { AccountName, NoQuery, Nullable, Printable, Timestamp } from '../../../http/shared-schemas.js';

export const SessionView = Type.Object({
  kind: Type.Union([Type.Literal('account'), Type.Literal('token')], {
    description: 'account: an operator signed in with name and password; token: an API token',
  }),
  actor: Type.String({ description: 'Who the audit history names: account:<name> or token:<owner>' }),
  name: Type.String({ description: 'The account name, or the token owner' }),
  role: Nullable(RoleSchema),
  scopes: Type.Array(Type.String()),
  csrfToken: Nullable(
    Type.String({
      description: 'Send as X-CSRF-Token with every write made with the session cookie; null for bearer tokens',
    }),
  ),
  idleExpiresAt: Nullable(Timestamp),
  absoluteExpiresAt: Nullable(Timestamp),
  fleetName: Type.String(),
});

export interface SessionPluginOptions {
  /** The name the console shows in its header. */
  fleetName: string;
  accounts: OperatorAccounts;
  sessions: OperatorSessions;
  audit: AuditLog;
  /** Mark the cookie Secure even on plain HTTP (the controller behind a TLS-terminating proxy). */
  cookieSecure?: boolean;
  /** The limits on failed password checks, shared with the password change. */
  guard: PasswordGuard;
}

function viewOf(actor: Actor, session: SessionInfo | null, fleetName: string) {
  return {
    kind: actor.kind,
    actor: actor.id,
    name: actor.owner,
    role: session?.role ?? roleOfScopes(actor.scopes),
    scopes: actor.scopes,
    csrfToken: session?.csrfToken ?? null,
    idleExpiresAt: session?.idleExpiresAt.toISOString() ?? null,
    absoluteExpiresAt: session?.absoluteExpiresAt.toISOString() ?? null,
    fleetName,
  };
}

/**
 * Signing in to the console and who am I. POST /v1/session trades a name and password for a
 * session cookie (HttpOnly, SameSite=Strict, Secure over TLS); DELETE ends it. Failed sign-ins
 * are limited per address and per account name, and audited (PasswordGuard).
 */
export const sessionPlugin: FastifyPluginAsyncTypebox<SessionPluginOptions> = async (app, opts) => {
  const { fleetName, accounts, sessions, audit, guard } = opts;

  const cookieOptions = (request: FastifyRequest) => ({
    httpOnly: true,
    sameSite: 'strict' as const,
    secure: opts.cookieSecure === true || request.protocol === 'https',
    path: '/',
  });

  app.get(
    '/v1/session',
    {
      config: { scope: 'read' },
      schema: {
        tags: ['session'],
        summary: 'Who am I: the caller, its role and scopes',
        querystring: NoQuery,
        response: { 200: SessionView, 401: errorBodySchema },
      },
    },
    async (request) => viewOf(request.actor, request.operatorSession, fleetName),
  );

  app.post(
    '/v1/session',
    {
      config: { public: true },
      schema: {
        tags: ['session'],
        summary: 'Sign in with an account name and password; sets the session cookie',
        description:
          'Answers the session (with its csrfToken, to send as X-CSRF-Token on every write) and sets the ' +
          'HttpOnly cookie wrtfleet_session. A wrong name or password, or a disabled account, is 401 alike; ' +
          'too many failures from one address or for one name are 429 with Retry-After, and too many ' +
          'password checks waiting at once 503 with Retry-After.',
        security: [],
        body: Type.Object({ name: AccountName, password: Printable(1024) }, { additionalProperties: false }),
        response: {
          200: SessionView,
          400: errorBodySchema,
          401: errorBodySchema,
          429: errorBodySchema,
          503: errorBodySchema,
        },
      },
    },
    async (request, reply) => {
      const { name, password } = request.body;
      // The address is who acted: an unknown caller has no other name. The password is never
      // recorded, nor a name that is no account's, nor the name of a refusal (never looked up).
      const caller = `address:${request.ip}`;
      const checked = await guard.run(
        {
          reply,
          address: request.ip,
          name,
          requestId: request.id,
          what: 'sign-ins',
          limited: { actor: caller, action: 'session.sign_in_limited', targetType: 'account', targetId: null },
        },
        () => accounts.verify(name, password),
        (result) =>
          result.ok
            ? null
            : {
                actor: caller,
                action: 'session.sign_in_failed',
                targetType: 'account',
                targetId: result.reason === 'unknown_name' ? UNKNOWN_ACCOUNT : name,
              },
      );
      if (!checked.ok)
        throw new ApiError(401, 'sign_in_failed', 'the name or the password is wrong, or the account is disabled');
      const { account } = checked;
      const { id, session } = await audit.record(async (tx) => {
        const started = await sessions.start(account.name, tx);
        return {
          result: started,
          event: {
            actor: `account:${account.name}`,
            action: 'session.signed_in',
            targetType: 'account',
            targetId: account.name,
            after: { address: request.ip, absoluteExpiresAt: started.session.absoluteExpiresAt.toISOString() },
            requestId: request.id,
          },
        };
      });
      reply.setCookie(SESSION_COOKIE, id, cookieOptions(request));
      const actor: Actor = {
        kind: 'account',
        id: `account:${account.name}`,
        owner: account.name,
        tokenId: null,
        scopes: scopesOfRole(account.role),
      };
      return viewOf(actor, session, fleetName);
    },
  );

  app.delete(
    '/v1/session',
    {
      config: { scope: 'read' },
      schema: {
        tags: ['session'],
        summary: 'Sign out: ends the session and clears its cookie',
        description:
          'With a bearer token there is no session to end: 204 and nothing changes (revoke tokens with DELETE /v1/tokens/:id).',
        querystring: NoQuery,
        response: { 204: Type.Null(), 401: errorBodySchema, 403: errorBodySchema },
      },
    },
    async (request, reply) => {
      const session = request.operatorSession;
      if (session) {
        await audit.record(async (tx) => {
          const ended = await sessions.end(session.idHash, tx);
          return {
            result: ended,
            event: ended
              ? {
                  actor: request.actor.id,
                  action: 'session.signed_out',
                  targetType: 'account',
                  targetId: request.actor.owner,
                  requestId: request.id,
                }
              : null,
          };
        });
        reply.clearCookie(SESSION_COOKIE, cookieOptions(request));
      }
      return reply.status(204).send(null);
    },
  );
};
