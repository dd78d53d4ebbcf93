import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { OperatorAccounts } from '../../../auth/operator-accounts.js';
import { RoleSchema } from '../../../auth/operator-roles.js';
import { ApiError, errorBodySchema } from '../../../http/api-error.js';
import { changed } from './account-change.js';
import { auditContext } from '../../../http/request-context.js';
import { AccountName, NewPassword, NoQuery, Nullable, Timestamp } from '../../../http/shared-schemas.js';

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
}

/** An admin may not lock themselves out: their own account cannot be disabled, demoted or deleted by them. */
function refuseOwn(request: FastifyRequest, name: string, what: string) {
  if (request.actor.kind === 'account' && request.actor.owner === name)
    throw new ApiError(409, 'own_account', `you cannot ${what} your own account; another admin can`);
}

/**
 * Operator accounts (admin only): list, create (with a password the admin sets), change role,
 * disable or enable, reset the password, delete (an account changes its own at /v1/session/password). Every
 * change is audited with the caller as actor; passwords are never returned or recorded.
 */
export const accountsPlugin: FastifyPluginAsyncTypebox<AccountsPluginOptions> = async (app, { accounts }) => {
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
};
