import type { Logger } from 'pino';
import type { PrismaClient } from '../../prisma/generated/client/client.js';
import type { AuditLog } from '../audit/audit-log.js';
import { judgeGates, soakBaseline, type SoakBaseline } from './health-gates.js';
import { UNFINISHED, type Strategy } from './rollout-strategy.js';

/**
 * The canary that waits: after a batch, when the strategy asks (`holdsAfter`), the rollout soaks
 * for `soakSeconds`, then the health gates judge the batch, and after the first batch a manual
 * promote may be awaited. Each step a conditional UPDATE on the state it expects, as the engine's.
 */

/** What the soak steps use of the engine. */
export interface SoakSteps {
  db: PrismaClient;
  audit: AuditLog;
  log: Logger;
  /** Queues an advance after `delayMs`, under a coalescing key of its own when `key` is given. */
  kick(rolloutId: string, delayMs?: number, key?: string): Promise<void>;
  /** The system's own audited pause, only while the rollout is still in `from` at `batch`. */
  pauseAutomatically(
    rolloutId: string,
    from: 'running' | 'soaking',
    batch: number,
    reason: string,
    gate?: string,
  ): Promise<boolean>;
}

/**
 * A batch is finished and another remains: the rollout soaks (its gates' telemetry baseline
 * read now). True when the soak is already over (none asked for) and the caller judges it at once.
 */
export async function startSoak(
  engine: SoakSteps,
  rolloutId: string,
  batch: number,
  strategy: Strategy,
): Promise<boolean> {
  const baseline = await soakBaseline(engine.db, rolloutId, batch);
  const { count } = await engine.db.rollout.updateMany({
    where: {
      id: rolloutId,
      state: 'running',
      currentBatch: batch,
      targets: { none: { batch, state: { in: UNFINISHED } } },
    },
    data: {
      state: 'soaking',
      soakUntil: new Date(Date.parse(baseline.at) + strategy.soakSeconds * 1000),
      soakBaseline: baseline as object,
    },
  });
  if (count === 0) return false;
  if (strategy.soakSeconds === 0) return true;
  engine.log.info({ rolloutId, batch, soakSeconds: strategy.soakSeconds }, 'rollout soaking');
  // A key of its own: an advance kicked meanwhile and waiting would otherwise absorb this wake-up.
  await engine.kick(rolloutId, strategy.soakSeconds * 1000, `${rolloutId}:soak`);
  return false;
}

/**
 * The soak is over: the gates pause the rollout, or it goes on to the next batch, or after the
 * first batch with a manual promote, waits for one (the next batch already current, unsent).
 * True when the caller goes on stepping.
 */
export async function endSoak(
  engine: SoakSteps,
  rollout: { id: string; currentBatch: number; soakBaseline: unknown; soakUntil: Date | null },
  strategy: Strategy,
): Promise<boolean> {
  const { id: rolloutId, currentBatch: batch } = rollout;
  const baseline = (rollout.soakBaseline as SoakBaseline | null) ?? {
    at: (rollout.soakUntil ?? new Date()).toISOString(),
    routers: {},
  };
  const failure = await judgeGates(engine.db, rollout, baseline, strategy.soakSeconds);
  const soaking = { id: rolloutId, state: 'soaking' as const, currentBatch: batch };
  if (failure) {
    const paused = await engine.pauseAutomatically(rolloutId, 'soaking', batch, failure.reason, failure.gate);
    if (paused) engine.log.warn({ rolloutId, reason: failure.reason }, 'rollout paused by a health gate');
    return false;
  }
  const next = await engine.db.rolloutTarget.findFirst({
    where: { rolloutId, state: { in: UNFINISHED } },
    orderBy: { batch: 'asc' },
    select: { batch: true },
  });
  if (strategy.promote === 'manual' && batch === 0 && next) {
    await engine.audit.record(async (tx) => {
      const { count } = await tx.rollout.updateMany({
        where: soaking,
        data: { state: 'awaiting_approval', currentBatch: next.batch, soakUntil: null },
      });
      if (count === 0) return { result: false, event: null };
      return {
        result: true,
        event: {
          actor: 'system',
          action: 'rollout.awaiting_approval',
          targetType: 'rollout',
          targetId: rolloutId,
          after: { soaked: batch, next: next.batch, gates: 'passed' },
        },
      };
    });
    return false;
  }
  const { count } = await engine.db.rollout.updateMany({
    where: soaking,
    data: { state: 'running', currentBatch: next?.batch ?? batch, soakUntil: null },
  });
  return count > 0;
}
