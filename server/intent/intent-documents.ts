/**
 * The documents of the fleet as code (docs/FLEET-AS-CODE.md): `Profile`, `RolloutPolicy`,
 * `Assignment` and `FirmwarePolicy`, each `{ apiVersion, kind, metadata: { name }, spec }` as a
 * Kubernetes manifest is. Their schemas are built from the API's own (the profile spec, the
 * selector, the rollout strategy, the firmware options), so a file, the REST API and the JSON
 * Schema editors validate against (`npm run web:api` writes it) can never disagree.
 *
 * No kind carries a secret: every object is closed (`additionalProperties: false`), so a
 * password pasted into a file is refused, not stored. Secrets are referenced by name.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { Value } from '@sinclair/typebox/value';
import { ProfileSpecSchema, validateProfileSpec } from '../../core/profile-spec.js';
import { FirmwareOptionsInputSchema, SHA256_PATTERN, MaintenanceWindowSchema } from '../firmware/firmware-options.js';
import { canonicalSelector, SelectorSchema, type Selector } from '../fleet/selector.js';
import { PROFILE_NAME_PATTERN } from '../profiles/profile-store.js';
import { StrategyInputSchema, DEFAULT_STRATEGY } from '../rollouts/rollout-strategy.js';

export const INTENT_API_VERSION = 'wrtfleet/v1';
export const INTENT_KINDS = ['Profile', 'RolloutPolicy', 'Assignment', 'FirmwarePolicy'] as const;
export type IntentKind = (typeof INTENT_KINDS)[number];

/** Names of every kind follow the profile's rule: they appear in URLs, files and audit targets. */
const Name = (description: string) => Type.String({ pattern: PROFILE_NAME_PATTERN, description });

const RolloutPolicySpec = Type.Object(
  {
    ...StrategyInputSchema.properties,
    window: Type.Optional(MaintenanceWindowSchema),
  },
  {
    additionalProperties: false,
    description:
      'How the rollouts an apply starts go: canary, batch size, failure threshold, soak, promotion (as POST ' +
      "/v1/rollouts' `strategy`), and a maintenance window: a firmware upgrade starts only inside it; a profile " +
      'rollout starts at its next opening',
  },
);

const AssignmentSpec = Type.Object(
  {
    selector: SelectorSchema,
    profile: Name('The profile the routers run'),
    revision: Type.Optional(
      Type.Integer({ minimum: 1, description: "Pin this revision; without it the profile's latest revision" }),
    ),
    rolloutPolicy: Type.Optional(
      Name('The RolloutPolicy of the rollouts this assignment starts; default strategy without'),
    ),
  },
  { additionalProperties: false, description: 'Routers the selector matches run the profile' },
);

const FirmwarePolicySpec = Type.Object(
  {
    selector: SelectorSchema,
    image: Type.String({
      pattern: SHA256_PATTERN,
      description: "The image's SHA-256, as uploaded (wrtfleet firmware upload; GET /v1/firmware/images)",
    }),
    options: Type.Optional(FirmwareOptionsInputSchema),
    rolloutPolicy: Type.Optional(
      Name('The RolloutPolicy of the upgrades this policy starts; default strategy without'),
    ),
  },
  { additionalProperties: false, description: 'Routers the selector matches run the firmware image' },
);

const Metadata = Type.Object({ name: Name('Unique among the documents of its kind') }, { additionalProperties: false });

function documentSchema<K extends IntentKind, S extends TSchema>(kind: K, spec: S) {
  return Type.Object(
    {
      apiVersion: Type.Literal(INTENT_API_VERSION),
      kind: Type.Literal(kind),
      metadata: Metadata,
      spec,
    },
    { additionalProperties: false, title: kind },
  );
}

export const IntentDocumentSchemas = {
  Profile: documentSchema('Profile', ProfileSpecSchema),
  RolloutPolicy: documentSchema('RolloutPolicy', RolloutPolicySpec),
  Assignment: documentSchema('Assignment', AssignmentSpec),
  FirmwarePolicy: documentSchema('FirmwarePolicy', FirmwarePolicySpec),
} as const;

export type RolloutPolicySpec = Static<typeof RolloutPolicySpec>;
export type AssignmentSpec = Static<typeof AssignmentSpec>;
export type FirmwarePolicySpec = Static<typeof FirmwarePolicySpec>;

/** A validated document: its spec in stored form (defaults filled in, selectors in today's spelling). */
export interface IntentDocument {
  kind: IntentKind;
  name: string;
  spec: Record<string, unknown>;
  /** Its index in the request: errors and plan entries point back at it. */
  index: number;
}

/** One thing wrong with one document, the path a JSON pointer into the request body. */
export interface DocumentError {
  path: string;
  message: string;
}

export class InvalidDocuments extends Error {
  constructor(readonly errors: DocumentError[]) {
    super(
      errors.length === 1
        ? `${errors[0]!.path}: ${errors[0]!.message}`
        : `${errors.length} problems, the first ${errors[0]!.path}: ${errors[0]!.message}`,
    );
  }
}

const compiled = new Map<IntentKind, { Errors(value: unknown): Iterable<{ path: string; message: string }> }>(
  INTENT_KINDS.map((k) => [k, TypeCompiler.Compile<TSchema>(IntentDocumentSchemas[k])]),
);

/** At most this many errors per document: a wrong file is read in full, not a flood. */
const ERRORS_PER_DOCUMENT = 10;

function isKind(v: unknown): v is IntentKind {
  return typeof v === 'string' && (INTENT_KINDS as readonly string[]).includes(v);
}

/** The spec as it is stored and compared: every default present, so a default left out is no change. */
type Stored = { ok: true; spec: Record<string, unknown> } | { ok: false; error: DocumentError };

function storedSpec(kind: IntentKind, spec: Record<string, unknown>): Stored {
  switch (kind) {
    case 'Profile': {
      const valid = validateProfileSpec(spec);
      if (!valid.ok)
        return { ok: false, error: { path: `/spec${valid.errors[0]!.path}`, message: valid.errors[0]!.message } };
      return { ok: true, spec: valid.spec as unknown as Record<string, unknown> };
    }
    case 'RolloutPolicy':
      return {
        ok: true,
        spec: { ...DEFAULT_STRATEGY, ...(Value.Default(RolloutPolicySpec, Value.Clone(spec)) as object) },
      };
    case 'Assignment':
    case 'FirmwarePolicy':
      try {
        return { ok: true, spec: { ...spec, selector: canonicalSelector(spec.selector as Selector) } };
      } catch (err) {
        return { ok: false, error: { path: '/spec/selector', message: (err as Error).message } };
      }
  }
}

/**
 * Checks each document against its kind's schema and that no kind and name repeats; the errors
 * name the document (`/documents/3/spec/...`) so a client can point at the file and line.
 */
export function validateDocuments(input: readonly unknown[]): IntentDocument[] {
  const errors: DocumentError[] = [];
  const documents: IntentDocument[] = [];
  const seen = new Map<string, number>();
  input.forEach((raw, index) => {
    const at = `/documents/${index}`;
    const kind = (raw as { kind?: unknown } | null)?.kind;
    if (!isKind(kind)) {
      errors.push({ path: `${at}/kind`, message: `must be one of ${INTENT_KINDS.join(', ')}` });
      return;
    }
    const found = [...compiled.get(kind)!.Errors(raw)].slice(0, ERRORS_PER_DOCUMENT);
    if (found.length) {
      for (const e of found) errors.push({ path: `${at}${e.path}`, message: e.message });
      return;
    }
    const doc = raw as { metadata: { name: string }; spec: Record<string, unknown> };
    const key = `${kind}/${doc.metadata.name}`;
    const first = seen.get(key);
    if (first !== undefined) {
      errors.push({ path: `${at}/metadata/name`, message: `${key} is defined again (first in document ${first})` });
      return;
    }
    seen.set(key, index);
    const stored = storedSpec(kind, doc.spec);
    if (!stored.ok) {
      errors.push({ path: `${at}${stored.error.path}`, message: stored.error.message });
      return;
    }
    documents.push({ kind, name: doc.metadata.name, spec: stored.spec, index });
  });
  if (errors.length) throw new InvalidDocuments(errors);
  return documents;
}

/**
 * The JSON Schema of one document of any kind, for editors (YAML language servers read it from a
 * `# yaml-language-server: $schema=` line): a `oneOf` over the kinds, each closed.
 */
export function intentJsonSchema(): object {
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: 'A wrtfleet fleet document',
    description:
      'One YAML document of a fleet directory: a Profile, a RolloutPolicy, an Assignment or a FirmwarePolicy. ' +
      'Generated from the controller’s API schemas by npm run web:api; see docs/FLEET-AS-CODE.md.',
    oneOf: INTENT_KINDS.map((k) => JSON.parse(JSON.stringify(IntentDocumentSchemas[k])) as object),
  };
}
