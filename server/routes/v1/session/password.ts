import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { OperatorAccounts } from '../../../auth/operator-accounts.js';
import { ApiError, errorBodySchema } from '../../../http/api-error.js';
import type { PasswordGuard } from '../../../auth/password-guard.js';
import { auditContext } from '../../../http/request-context.js';
import { NewPassword, Printable } from '../../../http/shared-schemas.js';
import { changed } from '../accounts/account-change.js';

const refused = { 400: errorBodySchema, 401: errorBodySchema, 403: errorBodySchema };

export interface PasswordPluginOptions {
  accounts: OperatorAccounts;
  /** The limits on failed password checks, shared with sign-in: a wrong current password counts as a failed sign-in. */
  guard: PasswordGuard;
}

/** PUT /v1/session/password: the signed-in account changes its own password. */
export const sessionPasswordPlugin: FastifyPluginAsyncTypebox<PasswordPluginOptions> = async (
  app,
  { accounts, guard },
) => {
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
