import type { PrismaClient } from '../../prisma/generated/client/client.js';
import { firmwareOptionsOf } from '../firmware/firmware-options.js';
import { LEFT_OUT_BATCH } from './rollout-targets.js';
import { DEFAULT_STRATEGY, FINISHED, TARGET_STATES, type Strategy, type TargetState } from './rollout-strategy.js';

/** How many of a rollout's targets are in each state. */
export async function rolloutCounts(db: PrismaClient, rolloutId: string): Promise<Record<TargetState, number>> {
  const groups = await db.rolloutTarget.groupBy({ by: ['state'], where: { rolloutId }, _count: { _all: true } });
  const counts = Object.fromEntries(TARGET_STATES.map((s) => [s, 0])) as Record<TargetState, number>;
  for (const g of groups) counts[g.state as TargetState] = g._count._all;
  return counts;
}

/** A rollout as the API shows it: its state, strategy (with the defaults it runs with) and progress. */
export async function rolloutView(db: PrismaClient, rolloutId: string) {
  const r = await db.rollout.findUnique({
    where: { id: rolloutId },
    include: {
      revision: { include: { profile: { select: { name: true } } } },
      firmwareImage: {
        select: { sha256: true, fileName: true, release: true, revision: true, target: true, deletedAt: true },
      },
    },
  });
  if (!r) return null;
  const counts = await rolloutCounts(db, rolloutId);
  const leftOut = await db.rolloutTarget.count({ where: { rolloutId, batch: LEFT_OUT_BATCH } });
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  const finished = FINISHED.reduce((a, s) => a + counts[s], 0);
  const strategy: Strategy = { ...DEFAULT_STRATEGY, ...(r.strategy as Partial<Strategy>) };
  return {
    id: r.id,
    kind: r.firmwareImage ? ('firmware' as const) : ('profile' as const),
    profile: r.revision?.profile.name ?? null,
    revision: r.revision?.number ?? null,
    firmware: r.firmwareImage
      ? {
          image: r.firmwareImage.sha256,
          fileName: r.firmwareImage.fileName,
          release: r.firmwareImage.release ?? '',
          revision: r.firmwareImage.revision ?? '',
          target: r.firmwareImage.target,
          options: firmwareOptionsOf(r.firmwareOptions),
        }
      : null,
    selector: r.selector,
    strategy,
    state: r.state,
    pauseReason: r.pauseReason,
    pauseGate: r.pauseGate,
    soakUntil: r.state === 'soaking' ? (r.soakUntil?.toISOString() ?? null) : null,
    currentBatch: r.currentBatch,
    batchCount: r.batchCount,
    total,
    finished,
    leftOut,
    counts,
    createdBy: r.createdBy,
    createdAt: r.createdAt.toISOString(),
    startAt: r.startAt.toISOString(),
    finishedAt: r.finishedAt?.toISOString() ?? null,
  };
}

export type RolloutView = NonNullable<Awaited<ReturnType<typeof rolloutView>>>;
