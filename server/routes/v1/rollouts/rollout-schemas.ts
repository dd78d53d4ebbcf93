import { Type } from '@fastify/type-provider-typebox';
import { ROLLOUT_STATES, StrategySchema } from '../../../rollouts/rollout-strategy.js';
import { Nullable, StringEnum } from '../../../http/shared-schemas.js';
import { FirmwareOptionsSchema } from '../../../firmware/firmware-options.js';

export const RolloutKindSchema = StringEnum(['profile', 'firmware'], {
  title: 'RolloutKind',
  description: 'What the rollout carries: a profile revision, or a firmware image',
});

export const RolloutViewSchema = Type.Object({
  id: Type.String(),
  kind: RolloutKindSchema,
  profile: Nullable(Type.String({ description: 'The profile (profile rollouts); null for a firmware rollout' })),
  revision: Nullable(Type.Integer()),
  firmware: Nullable(
    Type.Object(
      {
        image: Nullable(Type.String({ description: "The image's SHA-256; null once the image was removed" })),
        fileName: Type.String(),
        release: Type.String(),
        revision: Type.String(),
        target: Nullable(Type.String()),
        options: FirmwareOptionsSchema,
      },
      { description: 'The image a firmware rollout installs and how; null for a profile rollout' },
    ),
  ),
  selector: Type.Any(),
  strategy: StrategySchema,
  state: StringEnum(ROLLOUT_STATES, {
    title: 'RolloutState',
    description:
      '`soaking`: a batch finished, waiting `strategy.soakSeconds` before its health gates; `awaiting_approval`: ' +
      'the first batch passed them and the rollout waits for POST /v1/rollouts/{id}/promote',
  }),
  pauseReason: Nullable(Type.String({ description: 'Why it is paused, in words; null unless paused' })),
  pauseGate: Nullable(
    Type.String({ description: 'The health gate that paused it (apply, drift, telemetry); null for other pauses' }),
  ),
  soakUntil: Nullable(Type.String({ format: 'date-time', description: 'While soaking: when the soak ends' })),
  currentBatch: Type.Integer(),
  batchCount: Type.Integer(),
  total: Type.Integer(),
  finished: Type.Integer(),
  leftOut: Type.Integer({
    description: 'Targets left out from the start because the plan refuses them (skipped, batch -1, never sent)',
  }),
  counts: Type.Record(Type.String(), Type.Integer()),
  createdBy: Type.String(),
  createdAt: Type.String(),
  startAt: Type.String(),
  finishedAt: Nullable(Type.String()),
});

export const TERMINAL = new Set(['completed', 'cancelled']);
