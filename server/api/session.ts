import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Actor, Scope } from '../auth/api-tokens.js';
import { errorBodySchema } from './errors.js';
import { NoQuery, Nullable, Timestamp } from './shared-schemas.js';

/** An operator's role: the scope it maps onto (admin ⊃ write ⊃ read). */
export const ROLES = ['read', 'write', 'admin'] as const;
export type Role = (typeof ROLES)[number];

export const RoleSchema = Type.Union([Type.Literal('read'), Type.Literal('write'), Type.Literal('admin')]);

/** The role a set of scopes amounts to, for a caller without an account (an API token). */
export function roleOfScopes(scopes: readonly Scope[]): Role | null {
  if (scopes.includes('admin')) return 'admin';
  if (scopes.includes('write')) return 'write';
  if (scopes.includes('read')) return 'read';
  return null;
}

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
}

function viewOf(actor: Actor, fleetName: string) {
  return {
    kind: 'token' as const,
    actor: actor.id,
    name: actor.owner,
    role: roleOfScopes(actor.scopes),
    scopes: actor.scopes,
    csrfToken: null,
    idleExpiresAt: null,
    absoluteExpiresAt: null,
    fleetName,
  };
}

/** Who am I: the caller's identity, role and scopes, as the console needs them. */
export const sessionPlugin: FastifyPluginAsyncTypebox<SessionPluginOptions> = async (app, { fleetName }) => {
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
    async (request) => viewOf(request.actor, fleetName),
  );
};
