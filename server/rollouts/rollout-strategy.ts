import { Type, type Static } from '@sinclair/typebox';
import { RolloutState as PrismaRolloutState, RolloutTargetState } from '../../prisma/generated/client/enums.js';
import { prismaEnumValues } from '../storage/prisma-enums.js';

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
  soakSeconds: Type.Integer({
    minimum: 0,
    maximum: 604_800,
    default: 0,
    description:
      'Wait this long after each batch before the next (state `soaking`), then judge the health gates on the ' +
      "batch's routers: no drift reported during the soak, no failed or rolled-back apply since they applied, and " +
      'telemetry counters moving (a sample arrived during the soak and, where the plan counts packets, its counters ' +
      'grew). A gate that fails pauses the rollout with the reason. Longer than the telemetry interval (4 ' +
      'heartbeats, 60 s by default) plus the flush (5 s), or the telemetry gate cannot see a sample. 0: no soak, ' +
      'and no gates unless `promote` is `manual`',
  }),
  promote: Type.Union([Type.Literal('auto'), Type.Literal('manual')], {
    default: 'auto',
    description:
      '`manual`: after the first batch (the canary) and its soak and gates, the rollout waits in state ' +
      '`awaiting_approval` until POST /v1/rollouts/{id}/promote; `auto` goes on by itself',
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
    soakSeconds: Type.Optional(strategyFields.soakSeconds),
    promote: Type.Optional(strategyFields.promote),
  },
  { additionalProperties: false },
);
export type Strategy = Static<typeof StrategySchema>;
export const DEFAULT_STRATEGY: Strategy = {
  canary: 1,
  batchSize: 50,
  maxFailureRatio: 0,
  resultTimeoutSeconds: 180,
  soakSeconds: 0,
  promote: 'auto',
};

export const ROLLOUT_STATES = prismaEnumValues(PrismaRolloutState);
export type RolloutState = (typeof ROLLOUT_STATES)[number];
/** States in which a rollout has not ended: it can still be paused (some of them), promoted or cancelled. */
export const ACTIVE_STATES: RolloutState[] = ['scheduled', 'running', 'soaking', 'awaiting_approval', 'paused'];

export const TARGET_STATES = prismaEnumValues(RolloutTargetState);
export type TargetState = (typeof TARGET_STATES)[number];
export const FINISHED: TargetState[] = ['applied', 'failed', 'rolled_back', 'skipped', 'upgraded', 'unconfirmed'];

/** Targets that count against the failure threshold: an unconfirmed upgrade is never a success. */
export function failureCount(counts: Record<TargetState, number>): number {
  return counts.failed + counts.rolled_back + counts.unconfirmed;
}

export function successCount(counts: Record<TargetState, number>): number {
  return counts.applied + counts.upgraded;
}
/** Targets without an outcome yet: a batch holding one is not finished, nor is the rollout. */
export const UNFINISHED: TargetState[] = ['queued', 'sent'];

/** Which batch a router falls in: the canary first, then fixed-size batches. */
export function batchOf(index: number, strategy: Pick<Strategy, 'canary' | 'batchSize'>): number {
  if (index < strategy.canary) return 0;
  const offset = strategy.canary > 0 ? 1 : 0;
  return offset + Math.floor((index - strategy.canary) / strategy.batchSize);
}

/**
 * Whether the rollout holds after `batch` (soak, gates, maybe approval) before dispatching
 * another: only when a batch remains, and the strategy soaks or asks for a promote after the first.
 */
export function holdsAfter(batch: number, strategy: Strategy): boolean {
  return strategy.soakSeconds > 0 || (strategy.promote === 'manual' && batch === 0);
}

export function batchCountFor(total: number, strategy: Pick<Strategy, 'canary' | 'batchSize'>): number {
  if (total === 0) return 0;
  return batchOf(total - 1, strategy) + 1;
}
