import { Type } from '@fastify/type-provider-typebox';
import { ROLLOUT_STATES, StrategySchema } from '../../../rollouts/rollout-strategy.js';
import { Nullable, StringEnum } from '../../../http/shared-schemas.js';

export const RolloutViewSchema = Type.Object({
  id: Type.String(),
  profile: Type.String(),
  revision: Type.Integer(),
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
