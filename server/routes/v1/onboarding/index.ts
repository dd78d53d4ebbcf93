import { Type, type FastifyPluginAsyncTypebox, type Static } from '@fastify/type-provider-typebox';
import { Ajv } from 'ajv';
import {
  InventoryError,
  inventoryFormat,
  readInventory,
  type InventoryEntry,
} from '../../../../core/onboarding/inventory.js';
import type { OnboardingInput, OnboardingSecret, OnboardingService } from '../../../onboarding/onboarding-service.js';
import { canonicalPlacement, DEPRECATED_ON_ROUTER } from '../../../../core/onboarding/placement.js';
import { TargetRefused } from '../../../onboarding/target-policy.js';
import { ApiError, errorBodySchema } from '../../../http/api-error.js';
import { AgentIdentity, Printable, SshLogin, Tag } from '../../../http/shared-schemas.js';

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

type Credential = { password?: string; privateKey?: string; passphrase?: string };

/** Exactly one of password or key, a passphrase only with a key, a key that looks like one. */
function checkCredential(b: Credential): void {
  if (!b.password === !b.privateKey) {
    throw new ApiError(400, 'invalid_request', 'invalid body parameter: give exactly one of password or privateKey', [
      { path: '/password', in: 'body', message: 'exactly one of password, privateKey' },
    ]);
  }
  if (b.passphrase && !b.privateKey)
    throw new ApiError(400, 'invalid_request', 'invalid body parameter: passphrase goes with privateKey', [
      { path: '/passphrase', in: 'body', message: 'only with privateKey' },
    ]);
  if (
    b.privateKey &&
    !/^-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]+-----END [A-Z0-9 ]*PRIVATE KEY-----\s*$/.test(b.privateKey.trim())
  ) {
    throw new ApiError(
      400,
      'invalid_request',
      'invalid body parameter: privateKey must be a PEM or OpenSSH private key',
      [{ path: '/privateKey', in: 'body', message: 'not a PEM/OpenSSH private key' }],
    );
  }
}

type Body = Omit<Static<typeof OnboardingBody>, 'password' | 'privateKey' | 'passphrase'>;

function jobInput(b: Body, credential: Credential): OnboardingInput {
  return {
    host: b.host,
    port: b.port ?? 22,
    user: b.user ?? 'root',
    authType: credential.password ? 'password' : 'privateKey',
    hostKeyFingerprint: b.hostKeyFingerprint,
    tags: b.tags ?? [],
    placement: canonicalPlacement(b.placement ?? 'auto'),
    install: b.install ?? false,
    identity: b.identity,
    name: b.name,
  };
}

function secretOf(credential: Credential): OnboardingSecret {
  return { password: credential.password, privateKey: credential.privateKey, passphrase: credential.passphrase };
}

/** An inventory row as the single-router body would carry it (secrets aside), to check with the same schema. */
function rowBody(e: InventoryEntry): Body {
  return {
    host: e.host,
    ...(e.port !== undefined ? { port: e.port } : {}),
    ...(e.user ? { user: e.user } : {}),
    ...(e.fingerprint ? { hostKeyFingerprint: e.fingerprint } : {}),
    ...(e.tags.length ? { tags: e.tags } : {}),
    ...(e.placement ? { placement: e.placement } : {}),
    ...(e.install ? { install: true } : {}),
    ...(e.identity ? { identity: e.identity } : {}),
    ...(e.name ? { name: e.name } : {}),
  };
}

/** The single-router body's own schema, to check each inventory row exactly as POST /v1/onboarding would. */
const checkRowBody = new Ajv({ allErrors: false, strict: false }).compile(OnboardingBody);

/** The most routers one upload may start: each is a job with its own SSH session. */
export const INVENTORY_MAX_ROUTERS = 500;

export const InventoryBody = Type.Object(
  {
    filename: Type.String({
      minLength: 1,
      maxLength: 255,
      description: "The file's name; its extension says the format: .csv, .yaml or .yml",
    }),
    text: Type.String({
      minLength: 1,
      maxLength: 1_000_000,
      description: 'The inventory file, as `wrtfleet onboard --inventory` reads it',
    }),
    password: Type.Optional(SshLogin.password),
    privateKey: Type.Optional(SshLogin.privateKey),
    passphrase: Type.Optional(SshLogin.passphrase),
  },
  { additionalProperties: false },
);

/**
 * `POST /v1/onboarding`: starts an onboarding job. The password or key is sealed
 * for the job and never stored in Job.input, returned, logged or audited (the route's body is
 * covered by the logger's redaction of `password`, `privateKey`, `passphrase`).
 * `POST /v1/onboarding/inventory`: the same for every router of an inventory file, all or
 * none: one bad row refuses the upload, naming every bad row, and starts no job.
 */
export const onboardingPlugin: FastifyPluginAsyncTypebox<{ onboarding: OnboardingService }> = async (
  app,
  { onboarding },
) => {
  /** The host is refused before any connection, whatever listens there: the job's errors would otherwise tell an open port from a closed one on any host the controller reaches. */
  const hostRefusal = (host: string): Promise<string | null> =>
    onboarding.targets.addresses(host).then(
      () => null,
      (err: unknown) => {
        if (err instanceof TargetRefused) return err.message;
        throw err;
      },
    );

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
      checkCredential(b);
      const refused = await hostRefusal(b.host);
      if (refused)
        throw new ApiError(400, 'invalid_request', `invalid body parameter: ${refused}`, [
          { path: '/host', in: 'body', message: refused },
        ]);
      const { id } = await onboarding.create(jobInput(b, b), secretOf(b), request.actor.id, request.id);
      return reply.status(202).send({ jobId: id, events: `/v1/jobs/${id}/events` });
    },
  );

  app.post(
    '/v1/onboarding/inventory',
    {
      config: { scope: 'write' },
      bodyLimit: 2 * 1024 * 1024,
      schema: {
        tags: ['routers'],
        summary: 'Onboard every router of an inventory file (CSV or YAML), all or none',
        description:
          'The file is the one `wrtfleet onboard --inventory` reads, except that its `passwordFile`/`keyFile` columns are ' +
          'not read: the one password or key sent here is used for every router. A file that is not CSV or YAML, or any ' +
          `bad row, refuses the upload with every bad row named in \`details\`, and no job starts. At most ${INVENTORY_MAX_ROUTERS} routers.`,
        body: InventoryBody,
        response: {
          202: Type.Object({
            jobs: Type.Array(
              Type.Object({ row: Type.String(), host: Type.String(), jobId: Type.String(), events: Type.String() }),
            ),
          }),
          400: errorBodySchema,
          401: errorBodySchema,
          403: errorBodySchema,
        },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const format = inventoryFormat(b.filename);
      if (!format)
        throw new ApiError(
          400,
          'invalid_request',
          `${b.filename} is not an inventory: upload a .csv, .yaml or .yml file`,
          [{ path: '/filename', in: 'body', message: 'not .csv, .yaml or .yml' }],
        );
      checkCredential(b);
      let reading;
      try {
        reading = readInventory(b.filename, b.text, { format, secrets: 'upload' });
      } catch (err) {
        if (!(err instanceof InventoryError)) throw err;
        throw new ApiError(400, 'invalid_request', `${err.message}; nothing was started`, [
          { path: '/text', in: 'body', message: err.message },
        ]);
      }
      const problems = [...reading.problems];
      const count = reading.entries.length + reading.problems.length;
      if (count > INVENTORY_MAX_ROUTERS)
        throw new ApiError(
          400,
          'invalid_request',
          `${b.filename}: ${count} routers, at most ${INVENTORY_MAX_ROUTERS} per upload; nothing was started`,
          [{ path: '/text', in: 'body', message: `at most ${INVENTORY_MAX_ROUTERS} routers` }],
        );
      const rows: { row: string; body: Body }[] = [];
      for (const { row, entry: e } of reading.entries) {
        const body = rowBody(e);
        if (!checkRowBody(body)) {
          const first = checkRowBody.errors?.[0];
          const segments = first?.instancePath.split('/').slice(1) ?? [];
          const value = segments.reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k], body);
          const field = segments.join('.') || 'row';
          const shown = typeof value === 'string' || typeof value === 'number' ? ` ${JSON.stringify(value)}` : '';
          problems.push({ row, message: `${row} (${e.host}): ${field}${shown} ${first?.message ?? 'is invalid'}` });
          continue;
        }
        const refused = await hostRefusal(e.host);
        if (refused) problems.push({ row, message: `${row} (${e.host}): ${refused}` });
        else rows.push({ row, body });
      }
      if (problems.length) {
        problems.sort((x, y) => x.row.localeCompare(y.row, 'en', { numeric: true }));
        throw new ApiError(
          400,
          'invalid_request',
          `${problems.length} bad ${problems.length === 1 ? 'row' : 'rows'} in ${b.filename}: ${problems.map((p) => p.row).join(', ')}; nothing was started`,
          problems.map((p) => ({ path: '/text', in: 'body', message: p.message })),
        );
      }
      const jobs = [];
      for (const { row, body } of rows) {
        const { id } = await onboarding.create(jobInput(body, b), secretOf(b), request.actor.id, request.id);
        jobs.push({ row, host: body.host, jobId: id, events: `/v1/jobs/${id}/events` });
      }
      return reply.status(202).send({ jobs });
    },
  );
};
