import { randomUUID } from 'node:crypto';
import type { ApplyResult } from '../../proto/gen/wrtfleet/agent/v1/agent.js';
import type { ApplyResultTiming } from '../agent-gateway/agent-session.js';
import type { AuditLog } from '../audit/audit-log.js';
import { callBatcher } from '../../core/call-batcher.js';
import { followRollbacks, recordAppliedState } from './router-refresh.js';
import { APPLY_STATUS, rolledBackToOf } from './apply-result-reading.js';
import { datapathStateOfEvidence } from '../telemetry/datapath-mode.js';
import { bulkInsert, type ColumnType } from '../storage/bulk-insert.js';

/** Apply results gathered into one transaction. */
const APPLY_BATCH_WINDOW_MS = 10;
const APPLY_BATCH_MAX = 500;

export const APPLY_RESULT_COLUMNS: Record<string, ColumnType> = {
  id: 'text',
  routerId: 'text',
  revisionId: 'text',
  status: '"ApplyStatus"',
  evidence: 'jsonb',
  error: 'text',
  startedAt: 'timestamptz',
  finishedAt: 'timestamptz',
  agentResultId: 'text',
};

/** An apply result as stored, for the listeners. */
export interface StoredApplyResult {
  routerId: string;
  revisionId: string | null;
  status: 'applied' | 'failed' | 'rolled_back';
  error: string | null;
  /** How long the agent took, by its own clock; null when it did not say. */
  durationSeconds: number | null;
  result: ApplyResult;
}

/** Told of every stored burst of apply results (the rollout engine and the metrics listen). */
export type ApplyResultListener = (results: StoredApplyResult[]) => Promise<void>;

/** What the recorder asks of the registry: its caches of revision ids and router identities. */
export interface ApplyResultLookups {
  revisionId(profile: string, number: number): Promise<string | null>;
  identitiesOf(routerIds: string[]): Promise<Map<string, string>>;
}

/**
 * The apply results agents report, stored in bursts with their events and the routers' applied
 * state, then handed to the listeners. The registry owns one and routes its reports here.
 */
export class ApplyResultRecorder {
  private readonly listeners: ApplyResultListener[] = [];

  constructor(
    private readonly audit: AuditLog,
    private readonly lookups: ApplyResultLookups,
  ) {}

  onApplyResult(listener: ApplyResultListener): void {
    this.listeners.push(listener);
  }

  /**
   * Stores an apply result with its event and tells the listeners (the rollout engine). Results
   * arriving together (a rollout batch answering) are stored together: one INSERT, one router
   * UPDATE and one multi-row event INSERT per burst, in one transaction. `timing` places the
   * result against its stream's Hello (ApplyResultTiming).
   */
  record(
    routerId: string,
    result: ApplyResult,
    timing: ApplyResultTiming = { beforeHello: false, undone: false },
  ): Promise<void> {
    return this.applyResults({ routerId, result, timing });
  }

  private readonly applyResults = callBatcher<
    { routerId: string; result: ApplyResult; timing: ApplyResultTiming },
    undefined
  >(
    async (batch) => {
      await this.recordApplyBatch(batch);
      return batch.map(() => undefined);
    },
    { windowMs: APPLY_BATCH_WINDOW_MS, maxBatch: APPLY_BATCH_MAX },
  );

  private async recordApplyBatch(
    batch: { routerId: string; result: ApplyResult; timing: ApplyResultTiming }[],
  ): Promise<void> {
    const rows: (StoredApplyResult & {
      timing: ApplyResultTiming;
      rolledBackToId: string | null | undefined;
      heldAtId: string | null | undefined;
    })[] = [];
    for (const { routerId, result, timing } of batch) {
      const status = APPLY_STATUS[result.status as keyof typeof APPLY_STATUS] ?? 'failed';
      const revisionId = result.profile ? await this.lookups.revisionId(result.profile, result.revision) : null;
      // A rollback says what the router runs now; one from before the Hello is older news than the Hello.
      const rolledBackTo =
        status === 'rolled_back' && !timing.beforeHello ? rolledBackToOf(result.evidence) : undefined;
      const rolledBackToId = rolledBackTo
        ? await this.lookups.revisionId(rolledBackTo.profile, rolledBackTo.revision)
        : rolledBackTo;
      // The controller's wish follows any rollback, one from before the Hello too (the Hello set applied).
      const undoneTo = status === 'rolled_back' ? rolledBackToOf(result.evidence) : undefined;
      const heldAtId = undoneTo ? await this.lookups.revisionId(undoneTo.profile, undoneTo.revision) : undoneTo;
      const duration =
        result.startedAt && result.finishedAt
          ? (result.finishedAt.getTime() - result.startedAt.getTime()) / 1000
          : null;
      rows.push({
        routerId,
        revisionId,
        status,
        error: result.error || null,
        durationSeconds: duration,
        result,
        timing,
        rolledBackToId,
        heldAtId,
      });
    }
    const identities = await this.lookups.identitiesOf([...new Set(rows.map((r) => r.routerId))]);
    // The results, the applied revisions and the events commit together. A result the agent sent
    // again because our Ack did not reach it (or on two streams at once) is stored already: the
    // insert skips it, and there is nothing more to record, audit or tell the rollout. The
    // gateway acks it again.
    const current = await this.audit.record(async (tx) => {
      const inserted = (await bulkInsert(
        tx,
        'ApplyResult',
        APPLY_RESULT_COLUMNS,
        rows.map(({ routerId, revisionId, status, error, result }) => ({
          id: randomUUID(),
          routerId,
          revisionId,
          status,
          evidence: result.evidence ?? undefined,
          error,
          startedAt: result.startedAt ?? new Date(),
          finishedAt: result.finishedAt ?? new Date(),
          agentResultId: result.resultId || null,
        })),
        { skipDuplicates: true, returning: ['routerId', 'agentResultId'] },
      )) as { routerId: string; agentResultId: string | null }[];
      const insertedKeys = new Set(inserted.map((r) => `${r.routerId}\u0000${r.agentResultId ?? ''}`));
      // A result without an agent id is never a duplicate; one with an id was inserted or skipped.
      const fresh = rows.filter(
        (r) => !r.result.resultId || insertedKeys.has(`${r.routerId}\u0000${r.result.resultId}`),
      );
      // Applied, then rolled back while the stream was cut: history, not the router's state (the
      // Hello said what it runs), nor a rollout's outcome (the rollback's own result follows).
      const current = fresh.filter((r) => !r.timing.undone);
      if (current.length > 0)
        await recordAppliedState(
          tx,
          current.map((r) => ({
            routerId: r.routerId,
            status: r.status,
            appliedRevisionId: r.status === 'applied' ? r.revisionId : null,
            rolledBackToId: r.rolledBackToId,
            // What now runs, as the agent read it back: the live state stays true between Hellos
            // (telemetry history groups routers by it).
            datapath:
              (r.status === 'applied' || r.status === 'rolled_back') && !r.timing.beforeHello
                ? datapathStateOfEvidence(r.result.evidence)
                : null,
          })),
        );
      const held = await followRollbacks(
        tx,
        current.flatMap((r) =>
          r.status === 'rolled_back' && r.revisionId && r.heldAtId !== undefined
            ? [{ routerId: r.routerId, fromRevisionId: r.revisionId, toRevisionId: r.heldAtId }]
            : [],
        ),
      );
      return {
        result: current,
        event: fresh.map((r) => ({
          actor: `agent:${identities.get(r.routerId)}`,
          action: `apply.${r.status}`,
          targetType: 'router',
          targetId: r.routerId,
          after: {
            profile: r.result.profile,
            revision: r.result.revision,
            status: r.status,
            error: r.error ?? undefined,
            planHash: r.result.planHash,
            ...(r.timing.undone ? { undone: 'the router no longer ran this revision when it reconnected' } : {}),
            ...(held.has(r.routerId) && r.heldAtId !== undefined
              ? { desiredNow: rolledBackToOf(r.result.evidence) ?? null }
              : {}),
          },
        })),
      };
    });
    if (current.length === 0) return;
    for (const listener of this.listeners) await listener(current);
  }
}
