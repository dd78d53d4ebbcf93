import { Type, type Static } from '@sinclair/typebox';

/** How a rollout goes through its targets, and what each target's state can be. */
const strategyFields = {
  canary: Type.Integer({
    minimum: 0,
    maximum: 1000,
    default: 1,
    description: 'Routers in the first batch; 0 skips the canary',
  }),
  batchSize: Type.Integer({
    minimum: 1,
    maximum: 10_000,
    default: 50,
    description: 'Routers per batch after the canary',
  }),
  maxFailureRatio: Type.Number({
    minimum: 0,
    maximum: 1,
    default: 0,
    description:
      'Pause when (failed + rolled back) / finished exceeds this after a batch; 0 pauses on the first failure',
  }),
  resultTimeoutSeconds: Type.Integer({
    minimum: 5,
    maximum: 86_400,
    default: 180,
    description: 'A sent router with no result after this long counts as failed',
  }),
};
export const StrategySchema = Type.Object(strategyFields, { additionalProperties: false });
/**
 * What a request may send: every field optional. Spelled out rather than Type.Partial,
 * whose schema loses its properties on the way through @fastify/swagger.
 */
export const StrategyInputSchema = Type.Object(
  {
    canary: Type.Optional(strategyFields.canary),
    batchSize: Type.Optional(strategyFields.batchSize),
    maxFailureRatio: Type.Optional(strategyFields.maxFailureRatio),
    resultTimeoutSeconds: Type.Optional(strategyFields.resultTimeoutSeconds),
  },
  { additionalProperties: false },
);
export type Strategy = Static<typeof StrategySchema>;
export const DEFAULT_STRATEGY: Strategy = { canary: 1, batchSize: 50, maxFailureRatio: 0, resultTimeoutSeconds: 180 };

export const TARGET_STATES = ['pending', 'sent', 'applied', 'failed', 'rolled_back', 'skipped'] as const;
export type TargetState = (typeof TARGET_STATES)[number];
export const FINISHED: TargetState[] = ['applied', 'failed', 'rolled_back', 'skipped'];
/** Targets without an outcome yet: a batch holding one is not finished, nor is the rollout. */
export const UNFINISHED: TargetState[] = ['pending', 'sent'];

/** Which batch a router falls in: the canary first, then fixed-size batches. */
export function batchOf(index: number, strategy: Strategy): number {
  if (index < strategy.canary) return 0;
  const offset = strategy.canary > 0 ? 1 : 0;
  return offset + Math.floor((index - strategy.canary) / strategy.batchSize);
}

export function batchCountFor(total: number, strategy: Strategy): number {
  if (total === 0) return 0;
  return batchOf(total - 1, strategy) + 1;
}
