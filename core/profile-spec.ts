/**
 * The profile spec: the body of one immutable profile revision, and the
 * input of `resolvePlan` (core/plan.ts).
 *
 * ONE schema serves three readers: the server validates request bodies with it (Fastify +
 * @fastify/type-provider-typebox, so it is plain JSON Schema, no TypeBox-only kinds), the
 * OpenAPI document shows it, and `validateProfileSpec` checks it here with the same schema.
 *
 * Input vs stored form: every field is optional on input and has a default; what a revision
 * stores is the OUTPUT of `validateProfileSpec` (every field present), so a later change of a
 * default never changes what an old revision means. Unknown fields are rejected at every level
 * (`additionalProperties: false`) because a typo such as `tll` must not silently become "TTL
 * rewriting off".
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { Value, ValueErrorType, type ValueError } from '@sinclair/typebox/value';

/** Bump when the meaning of a field changes; a v2 spec becomes a union on this field. */
export const PROFILE_SPEC_VERSION = 1 as const;

export const EBPF_MODES = ['on', 'auto', 'off'] as const;
export type EbpfMode = (typeof EBPF_MODES)[number];

export const FLOW_OFFLOAD_MODES = ['off', 'software', 'hardware', 'auto'] as const;
export type FlowOffloadMode = (typeof FLOW_OFFLOAD_MODES)[number];

export const CONFLICT_POLICIES = ['prefer-rewrite', 'prefer-offload'] as const;
export type ConflictPolicy = (typeof CONFLICT_POLICIES)[number];

export const DRIFT_POLICIES = ['report', 'reapply'] as const;
export type DriftPolicy = (typeof DRIFT_POLICIES)[number];

export const TTL_MIN = 1;
export const TTL_MAX = 255;
export const TCP_WINDOW_MIN = 1;
export const TCP_WINDOW_MAX = 65535;
export const COMMIT_CONFIRM_MIN_SECONDS = 10;
export const COMMIT_CONFIRM_MAX_SECONDS = 3600;
export const DRIFT_INTERVAL_MIN_SECONDS = 30;
export const DRIFT_INTERVAL_MAX_SECONDS = 86_400;

/** A string enum as JSON Schema `anyOf` of `const`s, which TypeBox checks and ajv understands. */
function stringEnum<const T extends readonly string[]>(
  values: T,
  options: { default: T[number]; description: string },
) {
  // Unsafe keeps the Union kind (its symbol is copied) so TypeBox still checks it, and narrows Static to T[number].
  return Type.Unsafe<T[number]>(
    Type.Union(
      values.map((v) => Type.Literal(v)),
      options,
    ),
  );
}

/** A closed object whose absence means "all defaults" (the `default: {}` lets Value.Default descend into it). */
function section<P extends Parameters<typeof Type.Object>[0]>(properties: P, description: string) {
  return Type.Optional(Type.Object(properties, { additionalProperties: false, default: {}, description }));
}

export const ProfileSpecSchema = Type.Object(
  {
    schemaVersion: Type.Optional(
      Type.Literal(PROFILE_SPEC_VERSION, {
        default: PROFILE_SPEC_VERSION,
        description: 'Version of this spec format.',
      }),
    ),
    l3Rewrite: section(
      {
        ttl: section(
          {
            enabled: Type.Optional(
              Type.Boolean({ default: true, description: 'Rewrite the IPv4 TTL of every packet (set_ip_ttl).' }),
            ),
            value: Type.Optional(
              Type.Integer({
                minimum: TTL_MIN,
                maximum: TTL_MAX,
                default: 64,
                description: 'Target TTL: 64 looks like Linux/macOS/Android, 128 like Windows.',
              }),
            ),
          },
          'IPv4 TTL rewriting.',
        ),
        ipv6HopLimit: Type.Optional(
          Type.Boolean({
            default: false,
            description:
              'Also rewrite the IPv6 hop limit to ttl.value (set_ip_ttl handles both). Needs ttl.enabled. Off by default: the reference leaves IPv6 untouched.',
          }),
        ),
        ipid: Type.Optional(
          Type.Boolean({ default: true, description: 'Zero the IPv4 ID of every packet (set_ip_id_zero).' }),
        ),
        tcpts: Type.Optional(
          Type.Boolean({
            default: true,
            description: 'Overwrite the TCP timestamp option of first SYNs with NOPs (clear_tcp_syn_ts).',
          }),
        ),
        tcpwin: section(
          {
            enabled: Type.Optional(
              Type.Boolean({
                default: true,
                description: 'Rewrite the TCP window of first SYNs (set_tcp_syn_window).',
              }),
            ),
            value: Type.Optional(
              Type.Integer({
                minimum: TCP_WINDOW_MIN,
                maximum: TCP_WINDOW_MAX,
                default: 65535,
                description: 'Window put into first SYNs.',
              }),
            ),
          },
          'TCP SYN window rewriting.',
        ),
        ebpf: Type.Optional(
          stringEnum(EBPF_MODES, {
            default: 'auto',
            description:
              'on: eBPF (TC egress) required, the plan refuses where it is unavailable; auto: eBPF, else the in-kernel nftables fallback; off: nftables only.',
          }),
        ),
      },
      'Layer 3/4 header rewriting on WAN egress (docs/DOMAIN.md, The four rewrites).',
    ),
    flowOffload: section(
      {
        mode: Type.Optional(
          stringEnum(FLOW_OFFLOAD_MODES, {
            default: 'auto',
            description:
              'off; software (fw4 flowtable); hardware (flowtable with flags offload, needs a PPE); auto: the best the router has that the conflict policy allows.',
          }),
        ),
      },
      'Flow offloading through the firewall (docs/DOMAIN.md, Flow offloading).',
    ),
    conflictPolicy: Type.Optional(
      stringEnum(CONFLICT_POLICIES, {
        default: 'prefer-rewrite',
        description:
          'Which half of the profile is the hard requirement when rewriting and offloading cannot both hold. prefer-rewrite: offloading yields (hardware -> software when TTL/IP-ID rewriting is on; off when rewriting runs in nftables; an unavailable offload mode degrades). prefer-offload: offloading is kept and the plan warns which rewrites stop applying to offloaded flows; an unavailable explicit offload mode refuses the plan.',
      }),
    ),
    commitConfirm: section(
      {
        windowSeconds: Type.Optional(
          Type.Integer({
            minimum: COMMIT_CONFIRM_MIN_SECONDS,
            maximum: COMMIT_CONFIRM_MAX_SECONDS,
            default: 60,
            description:
              'After applying, the agent rolls back by itself unless the controller confirms within this window.',
          }),
        ),
      },
      'Commit-confirmed apply.',
    ),
    drift: section(
      {
        policy: Type.Optional(
          stringEnum(DRIFT_POLICIES, {
            default: 'report',
            description: 'report: only report differences; reapply: also re-apply the revision.',
          }),
        ),
        intervalSeconds: Type.Optional(
          Type.Integer({
            minimum: DRIFT_INTERVAL_MIN_SECONDS,
            maximum: DRIFT_INTERVAL_MAX_SECONDS,
            default: 300,
            description: 'How often the agent compares the live state with the applied revision.',
          }),
        ),
      },
      'Drift detection.',
    ),
  },
  { additionalProperties: false, title: 'ProfileSpec', description: 'Body of an immutable profile revision.' },
);

/** What a client may send: every field optional. */
export type ProfileSpecInput = Static<typeof ProfileSpecSchema>;

type DeepRequired<T> = T extends object ? { [K in keyof T]-?: DeepRequired<T[K]> } : T;

/** A validated spec with every default applied: what a revision stores and resolvePlan reads. */
export type ProfileSpec = DeepRequired<ProfileSpecInput>;

export interface ProfileSpecError {
  /** JSON pointer of the offending field ("/l3Rewrite/ttl/value"); "" is the whole document. */
  path: string;
  message: string;
}

export type ProfileSpecValidation = { ok: true; spec: ProfileSpec } | { ok: false; errors: ProfileSpecError[] };

const compiled = TypeCompiler.Compile(ProfileSpecSchema);

/**
 * Validate a spec, with defaults applied first (a missing field is never an error). Never
 * mutates `input`. Besides the schema, checks the one cross-field rule JSON Schema cannot state
 * readably: an IPv6 hop-limit rewrite rides on set_ip_ttl, so it needs TTL rewriting on.
 */
export function validateProfileSpec(input: unknown): ProfileSpecValidation {
  const candidate = Value.Default(ProfileSpecSchema, Value.Clone(input));
  // The compiled check first: listing errors walks the schema uncompiled. Why: every agent
  // validates each desired state it is sent; measured in docs/BENCHMARKS.md#appendix-how-the-numbers-got-here.
  if (!compiled.Check(candidate)) {
    const errors = errorsOf(candidate);
    return { ok: false, errors: errors.length > 0 ? errors : [{ path: '', message: 'not a valid profile spec' }] };
  }
  const spec = candidate as ProfileSpec;
  if (spec.l3Rewrite.ipv6HopLimit && !spec.l3Rewrite.ttl.enabled) {
    return {
      ok: false,
      errors: [
        {
          path: '/l3Rewrite/ipv6HopLimit',
          message:
            'IPv6 hop-limit rewriting uses set_ip_ttl and ttl.value: enable l3Rewrite.ttl or turn ipv6HopLimit off',
        },
      ],
    };
  }
  return { ok: true, spec };
}

/** Each schema error once, by path and message. */
function errorsOf(candidate: unknown): ProfileSpecError[] {
  const errors: ProfileSpecError[] = [];
  const seen = new Set<string>();
  for (const error of compiled.Errors(candidate)) {
    const entry = { path: error.path, message: messageOf(error) };
    const key = `${entry.path}\u0000${entry.message}`;
    if (!seen.has(key)) {
      seen.add(key);
      errors.push(entry);
    }
  }
  return errors;
}

function messageOf(error: ValueError): string {
  if (error.type === ValueErrorType.ObjectAdditionalProperties) return 'unknown field';
  if (error.type === ValueErrorType.Union) {
    const allowed = (error.schema.anyOf as TSchema[] | undefined)
      ?.map((s) => JSON.stringify(s['const']))
      .filter((s) => s !== undefined);
    if (allowed && allowed.length > 0) return `must be one of ${allowed.join(', ')}`;
  }
  return error.message;
}

/** The spec an empty body produces: every default. Frozen: shared, never edited in place. */
export const DEFAULT_PROFILE_SPEC: Readonly<ProfileSpec> = deepFreeze(
  (() => {
    const result = validateProfileSpec({});
    if (!result.ok) throw new Error(`profile spec defaults are invalid: ${JSON.stringify(result.errors)}`);
    return result.spec;
  })(),
);

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
