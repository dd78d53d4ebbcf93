import { Type } from '@fastify/type-provider-typebox';
import { Nullable, StringEnum, Timestamp } from '../../../http/shared-schemas.js';
import { INTENT_KINDS } from '../../../intent/intent-documents.js';

export const IntentKindSchema = StringEnum(INTENT_KINDS, {
  title: 'IntentKind',
  description: 'A kind of the fleet as code (docs/FLEET-AS-CODE.md)',
});

/** Documents as a request carries them; each is checked against its kind's schema by the handler. */
export const DocumentsSchema = Type.Array(
  Type.Object({}, { additionalProperties: true, description: 'One document: apiVersion, kind, metadata.name, spec' }),
  {
    maxItems: 2_000,
    description:
      'The documents of a fleet directory, in file order. An error names one as `/documents/{index}/...` so a ' +
      'client can point at its file and line. The JSON Schema of a document: GET /v1/intent/schema',
  },
);

export const ManagedSchema = Nullable(
  Type.Object(
    {
      version: Type.Integer({ description: 'The version the files last wrote' }),
      source: Nullable(Type.String({ description: 'The commit or label the apply was given (--source)' })),
      appliedBy: Type.String(),
      appliedAt: Timestamp,
    },
    { description: 'Managed from files: by which apply; null for a resource only the console and API manage' },
  ),
);

const RouterReachSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  verdict: StringEnum(['change', 'revision', 'retry', 'unchanged', 'refused'], {
    title: 'ReachVerdict',
    description:
      '`change`: its plan changes; `revision`: a new revision with the same plan; `retry`: set to run the revision ' +
      'but not running it (its apply failed or never came) and no rollout bringing it, so the apply sends it ' +
      'again, `reason` says what it runs; `unchanged`: already there or on its way in a running rollout; ' +
      '`refused`: the plan (or the image) is refused on it, `reason` says why, and the rollout leaves it out',
  }),
  reason: Nullable(Type.String()),
  from: Nullable(Type.String({ description: 'What it is set to run now: profile@revision, or its release' })),
});

export const ResourcePlanSchema = Type.Object({
  kind: IntentKindSchema,
  name: Type.String(),
  document: Nullable(Type.Integer({ description: "Its document's index; null when the files no longer name it" })),
  action: StringEnum(['create', 'update', 'adopt', 'delete', 'unchanged', 'orphan'], {
    title: 'IntentAction',
    description:
      '`update` of a profile writes a new revision; `adopt`: same spec, to be marked managed from files (again); ' +
      '`orphan`: managed from files that no longer name it, kept (apply with prune removes it)',
  }),
  version: Type.Object({ live: Nullable(Type.Integer()), planned: Nullable(Type.Integer()) }),
  diff: Type.Array(
    Type.Object({
      path: Type.String(),
      op: Type.String(),
      before: Type.Optional(Type.Any()),
      after: Type.Optional(Type.Any()),
    }),
  ),
  managed: ManagedSchema,
  drift: Nullable(Type.String({ description: 'Set when it was changed outside the files since they last wrote it' })),
  reach: Nullable(
    Type.Object(
      {
        target: Type.String(),
        matched: Type.Integer(),
        counts: Type.Object({
          change: Type.Integer(),
          revision: Type.Integer(),
          retry: Type.Integer(),
          unchanged: Type.Integer(),
          refused: Type.Integer(),
        }),
        routers: Type.Array(RouterReachSchema, { description: 'The first 100 by name; counts cover all' }),
        rollout: Nullable(
          Type.Object(
            { policy: Nullable(Type.String()), routers: Type.Integer() },
            { description: 'The rollout the apply starts; null when every router is there' },
          ),
        ),
      },
      { description: 'Assignments and firmware policies: the routers they select and what the apply does to each' },
    ),
  ),
});

export const IntentPlanSchema = Type.Object({
  changes: Type.Integer({ description: 'Resource changes and rollouts the apply would make; 0: nothing' }),
  state: Type.Record(Type.String(), Type.Integer(), {
    description: 'The version of every resource the plan read ("Profile/home": 3); send it back as `expectState`',
  }),
  prune: Type.Boolean(),
  resources: Type.Array(ResourcePlanSchema),
});
