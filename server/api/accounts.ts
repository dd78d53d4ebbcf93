import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { AccountChange, OperatorAccounts } from '../auth/operator-accounts.js';
import { RoleSchema } from '../auth/operator-roles.js';
import { ApiError, errorBodySchema } from './errors.js';
import type { PasswordGuard } from './password-guard.js';
import { auditContext } from './request-context.js';
import { AccountName, NewPassword, NoQuery, Nullable, Printable, Timestamp } from './shared-schemas.js';

const AccountView = Type.Object({
  name: Type.String(),
  role: RoleSchema,
  disabled: Type.Boolean({ description: 'A disabled account cannot sign in; its sessions ended when it was disabled' }),
  createdBy: Type.String(),
  createdAt: Timestamp,
  lastSignInAt: Nullable(Timestamp),
});

const NameParam = Type.Object({ name: AccountName }, { additionalProperties: false });

const refused = { 400: errorBodySchema, 401: errorBodySchema, 403: errorBodySchema };

export interface AccountsPluginOptions {
  accounts: OperatorAccounts;
  /** The limits on failed password checks, shared with sign-in: a wrong current password counts as a failed sign-in. */
  guard: PasswordGuard;
}

/** The account of a change, or the API error its failure is. */
function changed(result: AccountChange, name: string) {
  if (result.ok) return result.account;
  if (result.reason === 'exists') throw new ApiError(409, 'conflict', `an account named "${name}" exists already`);
  if (result.reason === 'wrong_password') throw new ApiError(403, 'wrong_password', 'the current password is wrong');
  throw new ApiError(404, 'not_found', `no account named "${name}"`);
}

/** An admin may not lock themselves out: their own account cannot be disabled, demoted or deleted by them. */
function refuseOwn(request: FastifyRequest, name: string, what: string) {
  if (request.actor.kind === 'account' && request.actor.owner === name)
    throw new ApiError(409, 'own_account', `you cannot ${what} your own account; another admin can`);
}

/**
 * Operator accounts (admin only): list, create (with a password the admin sets), change role,
 * disable or enable, reset the password, delete; and an account's own password change. Every
 * change is audited with the caller as actor; passwords are never returned or recorded.
 */
export const accountsPlugin: FastifyPluginAsyncTypebox<AccountsPluginOptions> = async (app, { accounts, guard }) => {
  app.get(
    '/v1/accounts',
    {
      config: { scope: 'admin' },
      schema: {
        tags: ['security'],
        summary: 'List operator accounts',
        querystring: NoQuery,
        response: { 200: Type.Object({ items: Type.Array(AccountView) }), ...refused },
      },
    },
    async () => ({ items: await accounts.list() }),
  );

  app.post(
    '/v1/accounts',
    {
      config: { scope: 'admin' },
      schema: {
        tags: ['security'],
        summary: 'Create an operator account with a password the admin sets',
        body: Type.Object(
          { name: AccountName, role: RoleSchema, password: NewPassword },
          { additionalProperties: false },
        ),
        response: { 201: AccountView, 409: errorBodySchema, ...refused },
      },
    },
    async (request, reply) => {
      const { name, role, password } = request.body;
      const account = changed(await accounts.create({ name, role, password }, auditContext(request)), name);
      return reply.status(201).send(account);
    },
  );

  app.patch(
    '/v1/accounts/:name',
    {
      config: { scope: 'admin' },
      schema: {
        tags: ['security'],
        summary: "Change an account's role, or disable or enable it",
        description: 'Disabling an account, or changing its role, ends its sessions at once.',
        params: NameParam,
        body: Type.Object(
          { role: Type.Optional(RoleSchema), disabled: Type.Optional(Type.Boolean()) },
          { additionalProperties: false, minProperties: 1 },
        ),
        response: { 200: AccountView, 404: errorBodySchema, 409: errorBodySchema, ...refused },
      },
    },
    async (request) => {
      const { name } = request.params;
      if (request.body.disabled === true) refuseOwn(request, name, 'disable');
      if (request.body.role && request.body.role !== 'admin') refuseOwn(request, name, 'demote');
      return changed(await accounts.update(name, request.body, auditContext(request)), name);
    },
  );

  app.put(
    '/v1/accounts/:name/password',
    {
      config: { scope: 'admin' },
      schema: {
        tags: ['security'],
        summary: "Reset an account's password; its sessions end",
        params: NameParam,
        body: Type.Object({ password: NewPassword }, { additionalProperties: false }),
        response: { 204: Type.Null(), 404: errorBodySchema, ...refused },
      },
    },
    async (request, reply) => {
      const { name } = request.params;
      changed(await accounts.resetPassword(name, request.body.password, auditContext(request)), name);
      return reply.status(204).send(null);
    },
  );

  app.delete(
    '/v1/accounts/:name',
    {
      config: { scope: 'admin' },
      schema: {
        tags: ['security'],
        summary: 'Delete an account; its sessions end',
        params: NameParam,
        response: { 204: Type.Null(), 404: errorBodySchema, 409: errorBodySchema, ...refused },
      },
    },
    async (request, reply) => {
      const { name } = request.params;
      refuseOwn(request, name, 'delete');
      changed(await accounts.delete(name, auditContext(request)), name);
      return reply.status(204).send(null);
    },
  );

  app.put(
    '/v1/session/password',
    {
      config: { scope: 'read' },
      schema: {
        tags: ['session'],
        summary: "Change the signed-in account's own password (needs the current one)",
        description:
          "The account's other sessions end; this one stays signed in. A wrong current password is 403 and " +
          'counts as a failed sign-in of the account and of the address: past their limits the change is 429 ' +
          'with Retry-After, and 503 with Retry-After when too many password checks wait at once.',
        body: Type.Object(
          { currentPassword: Printable(1024), newPassword: NewPassword },
          { additionalProperties: false },
        ),
        response: { 204: Type.Null(), ...refused, 429: errorBodySchema, 503: errorBodySchema },
      },
    },
    async (request, reply) => {
      const { actor, operatorSession } = request;
      if (actor.kind !== 'account')
        throw new ApiError(400, 'not_an_account', 'an API token has no password; sign in with an account');
      const name = actor.owner;
      // A stolen session cookie must not make this a way around the sign-in limits.
      const audited = { actor: actor.id, targetType: 'account', targetId: name, context: { address: request.ip } };
      const result = await guard.run(
        {
          reply,
          address: request.ip,
          name,
          requestId: request.id,
          what: 'password checks',
          limited: { ...audited, action: 'account.password_change_limited' },
        },
        () =>
          accounts.changeOwnPassword(name, request.body.currentPassword, request.body.newPassword, {
            ...auditContext(request),
            keepSessionHash: operatorSession?.idHash,
          }),
        (r) =>
          !r.ok && r.reason === 'wrong_password' ? { ...audited, action: 'account.password_change_failed' } : null,
      );
      changed(result, name);
      return reply.status(204).send(null);
    },
  );
};
