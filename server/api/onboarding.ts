import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { OnboardingService } from '../onboarding/onboarding-service.js';
import { canonicalPlacement, DEPRECATED_ON_ROUTER } from '../onboarding/placement.js';
import { TargetRefused } from '../onboarding/target-policy.js';
import { ApiError, errorBodySchema } from './errors.js';
import { AgentIdentity, Printable, SshLogin, Tag } from './shared-schemas.js';

export const OnboardingBody = Type.Object(
  {
    host: SshLogin.host,
    port: Type.Optional(SshLogin.port),
    user: Type.Optional(SshLogin.user),
    password: Type.Optional(SshLogin.password),
    privateKey: Type.Optional(SshLogin.privateKey),
    passphrase: Type.Optional(SshLogin.passphrase),
    hostKeyFingerprint: Type.Optional(
      Type.String({
        pattern: '^SHA256:[A-Za-z0-9+/]{43}=?$',
        description: 'Expected host key, as `ssh-keygen -lf` prints it; without it the first key seen is pinned',
      }),
    ),
    tags: Type.Optional(Type.Array(Tag, { maxItems: 32 })),
    placement: Type.Optional(
      Type.Union(
        [Type.Literal('auto'), Type.Literal('on_router'), Type.Literal('proxy'), Type.Literal(DEPRECATED_ON_ROUTER)],
        {
          description:
            'Where the agent runs: `auto` (on the router where Node.js 20+ runs, else the controller-hosted proxy), ' +
            '`on_router` or `proxy`. Deprecated: `on-router`, accepted for this release only and stored as `on_router`.',
        },
      ),
    ),
    install: Type.Optional(Type.Boolean({ description: 'Install missing packages (opkg/apk); otherwise report them' })),
    identity: Type.Optional(AgentIdentity),
    name: Type.Optional(Printable(128)),
  },
  { additionalProperties: false },
);

/**
 * `POST /v1/onboarding`: starts an onboarding job. The password or key is sealed
 * for the job and never stored in Job.input, returned, logged or audited (the route's body is
 * covered by the logger's redaction of `password`, `privateKey`, `passphrase`).
 */
export const onboardingPlugin: FastifyPluginAsyncTypebox<{ onboarding: OnboardingService }> = async (
  app,
  { onboarding },
) => {
  app.post(
    '/v1/onboarding',
    {
      config: { scope: 'write' },
      schema: {
        tags: ['routers'],
        summary: 'Onboard a router over SSH (a job: connect, facts, packages, placement, first Hello, first plan)',
        body: OnboardingBody,
        response: {
          202: Type.Object({ jobId: Type.String(), events: Type.String() }),
          400: errorBodySchema,
          401: errorBodySchema,
          403: errorBodySchema,
        },
      },
    },
    async (request, reply) => {
      const b = request.body;
      if (!b.password === !b.privateKey) {
        throw new ApiError(
          400,
          'invalid_request',
          'invalid body parameter: give exactly one of password or privateKey',
          [{ path: '/password', in: 'body', message: 'exactly one of password, privateKey' }],
        );
      }
      if (b.passphrase && !b.privateKey)
        throw new ApiError(400, 'invalid_request', 'invalid body parameter: passphrase goes with privateKey', [
          { path: '/passphrase', in: 'body', message: 'only with privateKey' },
        ]);
      if (
        b.privateKey &&
        !/^-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]+-----END [A-Z0-9 ]*PRIVATE KEY-----\s*$/.test(
          b.privateKey.trim(),
        )
      ) {
        throw new ApiError(
          400,
          'invalid_request',
          'invalid body parameter: privateKey must be a PEM or OpenSSH private key',
          [{ path: '/privateKey', in: 'body', message: 'not a PEM/OpenSSH private key' }],
        );
      }
      // Refused before any connection, whatever listens there: the job's errors would
      // otherwise tell an open port from a closed one on any host the controller reaches.
      await onboarding.targets.addresses(b.host).catch((err: unknown) => {
        if (!(err instanceof TargetRefused)) throw err;
        throw new ApiError(400, 'invalid_request', `invalid body parameter: ${err.message}`, [
          { path: '/host', in: 'body', message: err.message },
        ]);
      });
      const { id } = await onboarding.create(
        {
          host: b.host,
          port: b.port ?? 22,
          user: b.user ?? 'root',
          authType: b.password ? 'password' : 'privateKey',
          hostKeyFingerprint: b.hostKeyFingerprint,
          tags: b.tags ?? [],
          placement: canonicalPlacement(b.placement ?? 'auto'),
          install: b.install ?? false,
          identity: b.identity,
          name: b.name,
        },
        { password: b.password, privateKey: b.privateKey, passphrase: b.passphrase },
        request.actor.id,
        request.id,
      );
      return reply.status(202).send({ jobId: id, events: `/v1/jobs/${id}/events` });
    },
  );
};
