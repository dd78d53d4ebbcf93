import { Type, type TSchema } from '@fastify/type-provider-typebox';

/**
 * The TypeBox schemas more than one route group uses. One definition each, so a router id,
 * a tag or a page of results is validated and documented alike on every route that takes it.
 */

/** `:id` of a router, token, rollout, job or enrollment token. */
export const IdParam = Type.Object(
  { id: Type.String({ minLength: 1, maxLength: 64 }) },
  { additionalProperties: false },
);

/** A route without query parameters: any given is refused rather than ignored. */
export const NoQuery = Type.Object({}, { additionalProperties: false });

/**
 * One of a fixed set of snake_case values (a state, a kind), typed as that set. A `title` names
 * the set in the OpenAPI document: `npm run web:api` turns every titled set into the run-time
 * lists the console and the CLI use (web-admin/src/api/api-enums.generated.ts), so they never copy it.
 */
export const StringEnum = <T extends readonly string[]>(
  values: T,
  options: { title?: string; description?: string; deprecated?: boolean } = {},
) => Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });

/**
 * An input that also takes a value's old spellings for one release (docs/DOMAIN.md, Glossary):
 * the old ones are listed apart and marked deprecated in the OpenAPI document.
 */
export const StringEnumWithOld = <T extends readonly string[], O extends string>(
  values: T,
  old: Readonly<Record<O, T[number]>>,
  options: { description?: string } = {},
) =>
  Type.Union([
    StringEnum(values, options),
    StringEnum(Object.keys(old) as O[], {
      deprecated: true,
      description: `Old spellings, accepted until 0.3: ${Object.entries(old)
        .map(([was, is]) => `${was} (now ${String(is)})`)
        .join(', ')}`,
    }),
  ]);

/** The schema, or null: how a response says "not set" or "not known". */
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** An instant in ISO 8601 form, e.g. 2025-01-31T12:00:00.000Z. */
export const Timestamp = Type.String({ format: 'date-time' });

/** The largest value of a PostgreSQL integer column (revision numbers are stored as int4). */
export const INT32_MAX = 2_147_483_647;

/** The largest value of a PostgreSQL bigint column (the audit sequence). */
export const INT64_MAX = 9_223_372_036_854_775_807n;

/** A profile revision number as a request names it. */
export const RevisionNumber = Type.Integer({ minimum: 1, maximum: INT32_MAX });

/** Text a person chose (a name, a password): at least one character, no control characters. */
export const Printable = (maxLength: number) =>
  Type.String({ minLength: 1, maxLength, pattern: '^[^\\u0000-\\u001f\\u007f]+$' });

/** A router tag as set by operators (groups are tags, e.g. group:canary). */
export const Tag = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9][A-Za-z0-9._:/-]*$' });

/** Page size of a keyset-paginated listing. */
export const PageLimit = (maximum: number, defaultSize: number) =>
  Type.Integer({ minimum: 1, maximum, default: defaultSize });

/** One page of a keyset-paginated listing; nextCursor is null on the last page. */
export const Page = <T extends TSchema>(item: T) =>
  Type.Object({ items: Type.Array(item), nextCursor: Nullable(Type.String()) });

/** The SSH login of a router, as onboarding and stored router credentials take it. */
export const SshLogin = {
  host: Type.String({ minLength: 1, maxLength: 253, pattern: '^[A-Za-z0-9.:_\\[\\]-]+$' }),
  port: Type.Integer({ minimum: 1, maximum: 65535 }),
  user: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9._-]+$' }),
  password: Printable(1024),
  privateKey: Type.String({ minLength: 1, maxLength: 16 * 1024 }),
  passphrase: Printable(1024),
};

/** The identity an agent goes by (a router's, or a proxy agent's), as its client certificate binds it. */
export const AgentIdentity = Type.String({
  minLength: 1,
  maxLength: 128,
  pattern: '^[A-Za-z0-9][A-Za-z0-9._:,@/+-]*$',
});

/** The plan preview's answer: what the router would run, and what would change on it. */
export const PlanPreviewView = Type.Object({
  routerId: Type.String(),
  name: Type.String(),
  effective: Nullable(Type.Object({ profile: Type.String(), revision: Type.Integer(), overrides: Type.Any() })),
  applied: Nullable(
    Type.Object({
      profile: Type.String(),
      revision: Type.Integer(),
      planHash: Nullable(Type.String()),
    }),
  ),
  plan: Type.Any({ description: 'resolvePlan output: datapath, offload, conflicts, decisions with reasons, planHash' }),
  changes: Type.Array(
    Type.Object({
      path: Type.String(),
      op: Type.String(),
      before: Type.Optional(Type.Any()),
      after: Type.Optional(Type.Any()),
    }),
  ),
});

/** An operator account's name: what it signs in with and the audit history shows as account:<name>. */
export const AccountName = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: '^[A-Za-z0-9][A-Za-z0-9._@-]*$',
  description: 'Letters, digits and . _ @ -, starting with a letter or digit',
});

/** A password an account is given: at least 12 characters (server/auth/password-hash.ts). */
export const NewPassword = Type.String({
  minLength: 12,
  maxLength: 1024,
  pattern: '^[^\\u0000-\\u001f\\u007f]+$',
  description: 'At least 12 characters, no control characters',
});
