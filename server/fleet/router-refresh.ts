import type { Prisma, PrismaClient } from '../../prisma/generated/client/client.js';
import type { helloColumns } from './hello-columns.js';
import { isDeadlock } from '../storage/deadlock.js';

/** What a Hello refreshes of a known router, as one row of the set-wise UPDATE. */
export interface RouterRefresh {
  id: string;
  agentVersion: string | null;
  placement: string;
  soc: string | null;
  arch: string | null;
  endian: string | null;
  kernel: string | null;
  openwrtRelease: string | null;
  openwrtTarget: string | null;
  model: string | null;
  /** null: the Hello carried none, the stored document stays. */
  facts: object | null;
  capabilities: object;
  liveState: object | null;
  /** null: the agent could not read it; the stored one stays (a firmware upgrade is decided against it). */
  bootId: string | null;
  appliedRevisionId: string | null;
  /** false: the agent did not say what it runs, the stored revision stays. */
  setApplied: boolean;
}

export function refreshOf(
  id: string,
  c: ReturnType<typeof helloColumns>,
  applied: string | null | undefined,
): RouterRefresh {
  return {
    id,
    agentVersion: c.agentVersion,
    placement: c.placement,
    soc: c.soc,
    arch: c.arch,
    endian: c.endian,
    kernel: c.kernel,
    openwrtRelease: c.openwrtRelease,
    openwrtTarget: c.openwrtTarget,
    model: c.model,
    facts: c.facts ?? null,
    capabilities: c.capabilities,
    liveState: c.liveState ?? null,
    bootId: c.bootId,
    appliedRevisionId: applied ?? null,
    setApplied: applied !== undefined,
  };
}

const MAX_ATTEMPTS = 3;

/** Ids in one order: two overlapping set-wise UPDATEs lock their rows in the same order as far as the plan allows. */
const byId = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Runs an idempotent set-wise statement, again after a deadlock, at most MAX_ATTEMPTS times. */
async function retryingDeadlocks(statement: () => Promise<unknown>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await statement();
      return;
    } catch (err) {
      if (attempt >= MAX_ATTEMPTS || !isDeadlock(err)) throw err;
    }
  }
}

/**
 * One UPDATE for a batch of Hellos. A JSON document equal to the stored one is kept as it is
 * (`r.facts`), so PostgreSQL does not write its TOAST chunks again: facts rarely change, and a
 * reconnecting fleet would otherwise rewrite megabytes for nothing.
 */
export async function refreshRouters(db: PrismaClient, rows: RouterRefresh[], now: Date): Promise<void> {
  // Rows in id order (byId); a deadlock that happens anyway is retried (the statement is idempotent).
  const sorted = [...rows].sort((a, b) => byId(a.id, b.id));
  await retryingDeadlocks(() =>
    db.$executeRawUnsafe(
      `UPDATE "Router" AS r SET
         status = 'online', "lastSeenAt" = $2, "connectedAt" = $2, "updatedAt" = $2,
         "agentVersion" = v."agentVersion", placement = v.placement::"Placement",
         soc = v.soc, arch = v.arch, endian = v.endian, kernel = v.kernel,
         "openwrtRelease" = v."openwrtRelease", "openwrtTarget" = v."openwrtTarget", model = v.model,
         facts = CASE WHEN v.facts IS NULL OR r.facts = v.facts THEN r.facts ELSE v.facts END,
         capabilities = CASE WHEN r.capabilities = v.capabilities THEN r.capabilities ELSE v.capabilities END,
         "liveState" = CASE WHEN v."liveState" IS NULL OR r."liveState" = v."liveState" THEN r."liveState" ELSE v."liveState" END,
         "appliedRevisionId" = CASE WHEN v."setApplied" THEN v."appliedRevisionId" ELSE r."appliedRevisionId" END,
         "bootId" = COALESCE(v."bootId", r."bootId")
       FROM jsonb_to_recordset($1::jsonb) AS v(
         id text, "agentVersion" text, placement text, soc text, arch text, endian text, kernel text,
         "openwrtRelease" text, "openwrtTarget" text, model text, facts jsonb, capabilities jsonb,
         "liveState" jsonb, "appliedRevisionId" text, "setApplied" boolean, "bootId" text)
       WHERE r.id = v.id`,
      JSON.stringify(sorted),
      now,
    ),
  );
}

/** What an apply result changes on its router. */
export interface AppliedState {
  routerId: string;
  status: 'applied' | 'failed' | 'rolled_back';
  /** Set when the router now runs this revision (an applied result). */
  appliedRevisionId: string | null;
  /** A rollback's account of what the router runs now: a revision id, null for nothing, undefined: unchanged. */
  rolledBackToId?: string | null;
  /** The datapath the agent read back after applying; null: unchanged. */
  datapath: object | null;
}

/**
 * One UPDATE for a burst of apply results, inside the transaction that stores them: the last
 * apply status, the applied revision, and the live state's datapath (set in place, the rest of
 * the document kept). A router with several results in the burst takes its last one.
 */
export async function recordAppliedState(tx: Prisma.TransactionClient, results: AppliedState[]): Promise<void> {
  const last = new Map(results.map((r) => [r.routerId, r]));
  const rows = [...last.values()]
    .sort((a, b) => byId(a.routerId, b.routerId))
    .map((r) => ({ ...r, setRolledBack: r.rolledBackToId !== undefined, rolledBackToId: r.rolledBackToId ?? null }));
  await tx.$executeRawUnsafe(
    `UPDATE "Router" AS r SET
       "lastApplyStatus" = v.status::"ApplyStatus",
       "appliedRevisionId" = CASE WHEN v."setRolledBack" THEN v."rolledBackToId"
                                  ELSE COALESCE(v."appliedRevisionId", r."appliedRevisionId") END,
       "liveState" = CASE WHEN v.datapath IS NULL THEN r."liveState"
                          ELSE jsonb_set(COALESCE(r."liveState", '{}'::jsonb), '{datapath}', v.datapath) END,
       "updatedAt" = now()
     FROM jsonb_to_recordset($1::jsonb) AS v("routerId" text, status text, "appliedRevisionId" text,
                                            "setRolledBack" boolean, "rolledBackToId" text, datapath jsonb)
     WHERE r.id = v."routerId"`,
    JSON.stringify(rows),
  );
}

/** A rollback a router reported: the revision it undid and the one it runs now (null: nothing). */
export interface ReportedRollback {
  routerId: string;
  fromRevisionId: string;
  toRevisionId: string | null;
}

/**
 * After a rollback the controller wants what the router runs: its desired revision moves to the
 * one it rolled back to and its assignment is pinned there (removed when it runs nothing), so
 * applied, desired and assignment agree and nothing sends the undone revision again by itself. Only
 * where the desired revision is still the one undone: a newer rollout's choice stands. Returns
 * the routers moved.
 */
export async function followRollbacks(
  tx: Prisma.TransactionClient,
  rollbacks: ReportedRollback[],
): Promise<Set<string>> {
  if (rollbacks.length === 0) return new Set();
  const rows = await tx.$queryRawUnsafe<{ routerId: string }[]>(
    `WITH v AS (
       SELECT * FROM jsonb_to_recordset($1::jsonb) AS v("routerId" text, "fromRevisionId" text, "toRevisionId" text)
     ), moved AS (
       UPDATE "Router" AS r SET "desiredRevisionId" = v."toRevisionId", "desiredRolloutId" = NULL, "updatedAt" = now()
         FROM v
        WHERE r.id = v."routerId" AND r."desiredRevisionId" = v."fromRevisionId"
       RETURNING r.id AS "routerId", v."toRevisionId"
     ), pinned AS (
       INSERT INTO "Assignment" (id, "routerId", "profileId", "pinnedRevision", "updatedAt")
       SELECT gen_random_uuid()::text, m."routerId", pr."profileId", pr.number, now()
         FROM moved m JOIN "ProfileRevision" pr ON pr.id = m."toRevisionId"
       ON CONFLICT ("routerId") DO UPDATE
          SET "pinnedRevision" = EXCLUDED."pinnedRevision",
              overrides = CASE WHEN "Assignment"."profileId" = EXCLUDED."profileId" THEN "Assignment".overrides END,
              "profileId" = EXCLUDED."profileId",
              "updatedAt" = EXCLUDED."updatedAt"
       RETURNING "routerId"
     ), released AS (
       DELETE FROM "Assignment" AS a USING moved m
        WHERE a."routerId" = m."routerId" AND m."toRevisionId" IS NULL
       RETURNING a."routerId"
     )
     SELECT "routerId" FROM moved`,
    JSON.stringify(rollbacks),
  );
  return new Set(rows.map((r) => r.routerId));
}

/** A stream that ended: its router, and when the stream began. */
export interface EndedSession {
  id: string;
  sessionStartedAt: Date;
}

/**
 * One UPDATE for a batch of ended streams: each router goes offline unless a newer session
 * (on this replica or another) connected since its stream began. A fleet that drops at once
 * (a proxy restarting, a cut uplink) was ten thousand single UPDATEs through a pool of ten,
 * most of which timed out waiting for a connection.
 */
export async function markRoutersDisconnected(db: PrismaClient, ended: EndedSession[]): Promise<void> {
  // The latest ended stream of a router decides: an earlier one is older than it in every case.
  const latest = new Map<string, number>();
  for (const e of ended) latest.set(e.id, Math.max(latest.get(e.id) ?? 0, e.sessionStartedAt.getTime()));
  const rows = [...latest]
    .sort(([a], [b]) => byId(a, b))
    .map(([id, startedAt]) => ({ id, startedAt: new Date(startedAt).toISOString() }));
  await retryingDeadlocks(() =>
    db.$executeRawUnsafe(
      `UPDATE "Router" AS r SET status = 'offline', "updatedAt" = now()
       FROM jsonb_to_recordset($1::jsonb) AS v(id text, "startedAt" timestamptz)
       WHERE r.id = v.id AND (r."connectedAt" IS NULL OR r."connectedAt" <= v."startedAt")`,
      JSON.stringify(rows),
    ),
  );
}
