import type { PrismaClient } from '../../prisma/generated/client/client.js';
import { idRows } from '../storage/id-rows.js';

/**
 * The health gates a soaked batch must pass before the rollout goes on: judged on the batch's
 * routers that applied the revision, from what the controller already stores (the router's
 * newest apply result, drift reports in the audit history, telemetry baselines).
 */

export type Gate = 'apply' | 'drift' | 'telemetry';

/** The soaked routers' telemetry when the soak began: each router's summed counters, null without a sample. */
export interface SoakBaseline {
  at: string;
  routers: Record<string, number | null>;
}

export interface GateFailure {
  gate: Gate;
  reason: string;
}

interface SoakedRouter {
  routerId: string;
  name: string;
  lastApplyStatus: string | null;
  sampleAt: Date | null;
  counters: Record<string, unknown> | null;
}

/** Names in a reason: a few, then how many more. */
function names(routers: readonly { name: string }[]): string {
  const shown = routers.slice(0, 5).map((r) => r.name);
  return routers.length > 5 ? `${shown.join(', ')} and ${routers.length - 5} more` : shown.join(', ');
}

/** Every packet counted by every program, seen and rewritten: it only has to move. */
function counterTotal(counters: Record<string, unknown> | null): number | null {
  if (!counters) return null;
  let total = 0;
  for (const value of Object.values(counters))
    if (Array.isArray(value)) for (const n of value) if (typeof n === 'number') total += n;
  return total;
}

function soakedRouters(db: PrismaClient, rolloutId: string, batch: number) {
  return db.$queryRaw<SoakedRouter[]>`
    SELECT t."routerId", r.name, r."lastApplyStatus"::text AS "lastApplyStatus", b.at AS "sampleAt", b.counters
      FROM "RolloutTarget" t
      JOIN "Router" r ON r.id = t."routerId"
      LEFT JOIN "TelemetryBaseline" b ON b."routerKey" = r."seriesKey"
     WHERE t."rolloutId" = ${rolloutId} AND t.batch = ${batch} AND t.state = 'applied'
     ORDER BY r.name`;
}

/** What the soak's telemetry gate compares against, read as the soak begins. */
export async function soakBaseline(db: PrismaClient, rolloutId: string, batch: number): Promise<SoakBaseline> {
  const routers = await soakedRouters(db, rolloutId, batch);
  return {
    at: new Date().toISOString(),
    routers: Object.fromEntries(routers.map((r) => [r.routerId, counterTotal(r.counters)])),
  };
}

/**
 * The gates of a soak that began at `baseline.at`, in order: apply, drift, telemetry. Returns
 * the first that fails with every failing gate's reason in words, or null when all pass. With
 * no soak (a promote asked for without one) there is no window to see telemetry in, and the
 * telemetry gate is not judged.
 */
export async function judgeGates(
  db: PrismaClient,
  rollout: { id: string; currentBatch: number },
  baseline: SoakBaseline,
  soakSeconds: number,
): Promise<GateFailure | null> {
  const batchName = rollout.currentBatch === 0 ? 'the first batch' : `batch ${rollout.currentBatch}`;
  const routers = await soakedRouters(db, rollout.id, rollout.currentBatch);
  if (routers.length === 0) return null;
  const failures: GateFailure[] = [];
  const of = (bad: readonly SoakedRouter[]) => `${bad.length} of ${routers.length} routers of ${batchName}`;

  const failed = routers.filter((r) => r.lastApplyStatus === 'failed' || r.lastApplyStatus === 'rolled_back');
  if (failed.length)
    failures.push({
      gate: 'apply',
      reason: `${of(failed)} failed or rolled back an apply after applying the revision (${names(failed)})`,
    });

  const since = new Date(baseline.at);
  const drifted = await db.$queryRaw<{ targetId: string }[]>`
    SELECT DISTINCT e."targetId" FROM "AuditEvent" e
     WHERE e."targetType" = 'router' AND e.action = 'drift.reported' AND e.at >= ${since}
       AND e."targetId" IN ${idRows(routers.map((r) => r.routerId))}
       AND jsonb_array_length(COALESCE(e.after -> 'differences', '[]'::jsonb)) > 0`;
  const driftedIds = new Set(drifted.map((d) => d.targetId));
  const drifting = routers.filter((r) => driftedIds.has(r.routerId));
  if (drifting.length)
    failures.push({ gate: 'drift', reason: `${of(drifting)} reported drift during the soak (${names(drifting)})` });

  if (soakSeconds > 0) {
    const silent = routers.filter((r) => !r.sampleAt || r.sampleAt < since);
    // A router whose samples carry no counters runs no packet-counting program: a sample is all it can show.
    const still = routers.filter((r) => {
      if (!r.sampleAt || r.sampleAt < since) return false;
      const now = counterTotal(r.counters);
      if (now === null || Object.keys(r.counters ?? {}).length === 0) return false;
      const before = baseline.routers[r.routerId];
      return before === undefined || before === null ? now === 0 : now === before;
    });
    if (silent.length)
      failures.push({
        gate: 'telemetry',
        reason: `${of(silent)} sent no telemetry during the ${soakSeconds} s soak (${names(silent)})`,
      });
    if (still.length)
      failures.push({
        gate: 'telemetry',
        reason: `${of(still)} counted no packet during the ${soakSeconds} s soak (${names(still)})`,
      });
  }
  if (failures.length === 0) return null;
  return { gate: failures[0]!.gate, reason: `health gate failed: ${failures.map((f) => f.reason).join('; ')}` };
}
