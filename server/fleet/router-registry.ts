import { status as GrpcStatus } from '@grpc/grpc-js';
import type { Logger } from 'pino';
import type { PrismaClient } from '../../prisma/generated/client/client.js';
import {
  type ApplyResult,
  type DriftReport,
  type Hello,
  type Telemetry,
} from '../../proto/gen/wrtfleet/agent/v1/agent.js';
import { IdentityRefused, type AgentReportSink } from '../agent-gateway/agent-report-sink.js';
import type { ApplyResultTiming } from '../agent-gateway/agent-session.js';
import type { AuditLog } from '../audit/audit-log.js';
import { concurrencyGate } from '../../core/concurrency-gate.js';
import { callBatcher } from '../../core/call-batcher.js';
import {
  markRoutersDisconnected,
  refreshOf,
  refreshRouters,
  type EndedSession,
  type RouterRefresh,
} from './router-refresh.js';
import { helloColumns } from './hello-columns.js';
import { ApplyResultRecorder, type ApplyResultListener } from './apply-result-recorder.js';
import type { TelemetryWriter } from '../telemetry/telemetry-writer.js';

const SEEN_FLUSH_MS = 1_000;
/**
 * Registrations at once per replica. Their inserts share a transaction (AuditLog.record), but
 * the lookups before them each take a pooled connection: unbounded, a fleet reconnecting
 * together waits past the pool's connect timeout.
 */
const REGISTRATION_CONCURRENCY = 100;
/** A registration that lost a race for its identity or name starts over this often at most. */
const MAX_REGISTER_ATTEMPTS = 5;
/** Hellos gathered into one refresh: at most this long a wait, at most this many routers. */
const HELLO_BATCH_WINDOW_MS = 15;
const HELLO_BATCH_MAX = 500;

export interface RouterRegistryOptions {
  /** Register unknown identities on first Hello; false: only pre-registered routers may connect. */
  autoRegister: boolean;
  /** Where telemetry samples go: buffered, turned into history and written in batches. */
  telemetry: Pick<TelemetryWriter, 'record'>;
}

export { APPLY_RESULT_COLUMNS, type ApplyResultListener, type StoredApplyResult } from './apply-result-recorder.js';

/**
 * The fleet as the controller stores it: routers are created or refreshed by their
 * agents' Hellos, kept current by heartbeats, and marked offline when their stream ends
 * or goes silent. Every registration and every reported apply is audited with the
 * agent's identity as the actor.
 */
export class RouterRegistry implements AgentReportSink {
  /** Revisions are immutable, so (profile, number) -> id never changes once seen. */
  private readonly revisionIds = new Map<string, string>();
  /** Identities of routers registered through this replica (they never change either). */
  private readonly identities = new Map<string, string>();
  /** Heartbeats are folded into one UPDATE per flush instead of one per agent. */
  private seen = new Set<string>();
  private seenTimer: NodeJS.Timeout | undefined;
  /** When a write of this registry last failed (ms since epoch; 0: never). */
  private lastStoreFailureAt = 0;
  private readonly registrations = concurrencyGate(REGISTRATION_CONCURRENCY);

  private readonly applyResults: ApplyResultRecorder;

  onApplyResult(listener: ApplyResultListener): void {
    this.applyResults.onApplyResult(listener);
  }

  constructor(
    private readonly db: PrismaClient,
    private readonly audit: AuditLog,
    private readonly options: RouterRegistryOptions,
    private readonly log: Logger,
  ) {
    this.applyResults = new ApplyResultRecorder(audit, {
      revisionId: (profile, number) => this.revisionId(profile, number),
      identitiesOf: (routerIds) => this.identitiesOf(routerIds),
    });
  }

  /**
   * Registers or refreshes the router a Hello speaks for. Hellos arriving together are
   * refreshed together (one SELECT and one UPDATE for the batch): a fleet reconnecting at
   * once costs a few statements per hundred routers, not several per router. Unknown
   * identities are registered one by one, at most REGISTRATION_CONCURRENCY at once.
   */
  registerHello(hello: Hello, peer: string): Promise<{ routerId: string }> {
    return this.hellos({ hello, peer });
  }

  private readonly hellos = callBatcher<{ hello: Hello; peer: string }, { routerId: string }>(
    (batch) => this.registerBatch(batch),
    { windowMs: HELLO_BATCH_WINDOW_MS, maxBatch: HELLO_BATCH_MAX, concurrency: 2 },
  );

  private async registerBatch(batch: { hello: Hello; peer: string }[]): Promise<({ routerId: string } | Error)[]> {
    const identities = [...new Set(batch.map((b) => b.hello.router!.identity))];
    const known = await this.db.router.findMany({
      where: { identity: { in: identities } },
      select: { id: true, identity: true, decommissionedAt: true },
    });
    const byIdentity = new Map(known.map((r) => [r.identity, r]));
    const now = new Date();
    const refreshed = new Map<string, RouterRefresh>();
    const results: (Promise<{ routerId: string }> | { routerId: string } | Error)[] = [];
    for (const { hello, peer } of batch) {
      const identity = hello.router!.identity;
      const existing = byIdentity.get(identity);
      if (!existing) {
        results.push(this.registrations(() => this.register(hello, peer, 1)));
        continue;
      }
      this.identities.set(existing.id, identity);
      if (existing.decommissionedAt) {
        results.push(
          new IdentityRefused(
            GrpcStatus.PERMISSION_DENIED,
            `router ${identity} was decommissioned and may not reconnect`,
          ),
        );
        continue;
      }
      const applied = await this.appliedRevisionId(hello).catch((err: unknown) => err as Error);
      if (applied instanceof Error) {
        results.push(applied);
        continue;
      }
      // The same router twice in one batch (a stream replaced at once): its last Hello wins.
      refreshed.set(existing.id, refreshOf(existing.id, helloColumns(hello, now), applied));
      results.push({ routerId: existing.id });
    }
    if (refreshed.size > 0) await refreshRouters(this.db, [...refreshed.values()], now);
    return Promise.all(
      results.map((r) => (r instanceof Error ? Promise.resolve(r) : Promise.resolve(r).catch((e: Error) => e))),
    );
  }

  private async register(hello: Hello, peer: string, attempt: number): Promise<{ routerId: string }> {
    const identity = hello.router!.identity;
    const now = new Date();
    const columns = helloColumns(hello, now);
    const existing = await this.db.router.findUnique({ where: { identity } });
    if (existing) this.identities.set(existing.id, identity);
    if (existing?.decommissionedAt) {
      throw new IdentityRefused(
        GrpcStatus.PERMISSION_DENIED,
        `router ${identity} was decommissioned and may not reconnect`,
      );
    }
    const applied = await this.appliedRevisionId(hello);
    if (existing) {
      await this.db.router.update({
        where: { id: existing.id },
        data: { ...columns, ...(applied !== undefined ? { appliedRevisionId: applied } : {}) },
      });
      return { routerId: existing.id };
    }
    if (!this.options.autoRegister) {
      throw new IdentityRefused(
        GrpcStatus.PERMISSION_DENIED,
        `router identity ${identity} is not registered with this controller`,
      );
    }
    const name = await this.freeName(hello.router?.name || identity);
    let created: { id: string };
    try {
      // The router and its registration event commit together: a router never exists
      // without the event that says who brought it in.
      created = await this.audit.record(async (tx) => {
        const row = await tx.router.create({ data: { identity, name, ...columns }, select: { id: true } });
        return {
          result: row,
          event: {
            actor: `agent:${identity}`,
            action: 'router.registered',
            targetType: 'router',
            targetId: row.id,
            after: { name, identity, soc: columns.soc, arch: columns.arch, kernel: columns.kernel, peer },
          },
        };
      });
    } catch (err) {
      // Another replica registered this identity, or took this name, meanwhile: start over,
      // which finds the router or the next free name.
      if ((err as { code?: string }).code === 'P2002' && attempt < MAX_REGISTER_ATTEMPTS)
        return this.register(hello, peer, attempt + 1);
      throw err;
    }
    this.log.info({ routerId: created.id, identity, name }, 'router registered');
    return { routerId: created.id };
  }

  /**
   * What the agent says it runs is the truth about the router (it may have rolled back by
   * itself while disconnected). undefined: the agent did not say; null: it runs nothing.
   */
  private async appliedRevisionId(hello: Hello): Promise<string | null | undefined> {
    const applied = hello.applied;
    if (!applied) return undefined;
    if (!applied.profile || applied.revision === 0) return null;
    return this.revisionId(applied.profile, applied.revision);
  }

  private async revisionId(profile: string, number: number): Promise<string | null> {
    const key = `${profile}\u0000${number}`;
    const cached = this.revisionIds.get(key);
    if (cached) return cached;
    const revision = await this.db.profileRevision.findFirst({
      where: { profile: { name: profile }, number },
      select: { id: true },
    });
    if (revision) this.revisionIds.set(key, revision.id);
    return revision?.id ?? null;
  }

  private async identitiesOf(routerIds: string[]): Promise<Map<string, string>> {
    const missing = routerIds.filter((id) => !this.identities.has(id));
    if (missing.length > 0) {
      const rows = await this.db.router.findMany({
        where: { id: { in: missing } },
        select: { id: true, identity: true },
      });
      for (const r of rows) this.identities.set(r.id, r.identity);
    }
    return new Map(routerIds.map((id) => [id, this.identities.get(id) ?? 'unknown']));
  }

  /** Names are unique for humans; a second router claiming a taken name gets a suffix. */
  private async freeName(wanted: string): Promise<string> {
    const base = wanted.slice(0, 120);
    for (let i = 1; ; i++) {
      const candidate = i === 1 ? base : `${base}-${i}`;
      if (!(await this.db.router.findUnique({ where: { name: candidate }, select: { id: true } }))) return candidate;
    }
  }

  async markSeen(routerId: string): Promise<void> {
    this.seen.add(routerId);
    this.seenTimer ??= setTimeout(() => void this.flushSeen(), SEEN_FLUSH_MS);
  }

  /** Writes the heartbeats gathered since the last flush (at most SEEN_FLUSH_MS late). */
  async flushSeen(): Promise<void> {
    this.seenTimer = undefined;
    const ids = [...this.seen];
    this.seen = new Set();
    if (ids.length === 0) return;
    try {
      await this.db.router.updateMany({
        where: { id: { in: ids } },
        data: { lastSeenAt: new Date(), status: 'online' },
      });
    } catch (err) {
      this.lastStoreFailureAt = Date.now();
      // Kept for the next flush: these routers were seen, and the offline sweep must not
      // mistake the database's silence for theirs.
      for (const id of ids) this.seen.add(id);
      this.seenTimer ??= setTimeout(() => void this.flushSeen(), SEEN_FLUSH_MS);
      this.log.warn({ err, routers: ids.length }, 'could not record heartbeats');
    }
  }

  async close(): Promise<void> {
    clearTimeout(this.seenTimer);
    clearInterval(this.sweeper);
    await this.flushSeen();
  }

  private sweeper: NodeJS.Timeout | undefined;

  /** Marks routers offline once silent for `silenceMs`, every `silenceMs` (at most every 10 s), until close. */
  sweepSilentRouters(silenceMs: number): void {
    this.sweeper = setInterval(
      () => {
        this.markSilentRoutersOffline(new Date(Date.now() - silenceMs))
          .then((count) => count > 0 && this.log.info({ count }, 'marked silent routers offline'))
          .catch((err: unknown) => this.log.warn({ err }, 'offline sweep failed'));
      },
      Math.min(silenceMs, 10_000),
    );
    this.sweeper.unref();
  }

  async markDisconnected(routerId: string, sessionStartedAt: Date): Promise<void> {
    // A heartbeat of the ended stream still waiting for its flush would mark the router online again.
    this.seen.delete(routerId);
    // Only if no newer session (possibly on another replica) connected since this one began.
    await this.disconnects({ id: routerId, sessionStartedAt });
  }

  private readonly disconnects = callBatcher<EndedSession, void>(
    async (ended) => {
      await markRoutersDisconnected(this.db, ended);
      return ended.map(() => undefined);
    },
    { windowMs: HELLO_BATCH_WINDOW_MS, maxBatch: HELLO_BATCH_MAX },
  );

  /**
   * Routers whose agents went silent without closing their stream (power cut, a replica
   * that crashed) are marked offline here; every replica runs it, the UPDATE is idempotent.
   */
  async markSilentRoutersOffline(silentSince: Date): Promise<number> {
    // Heartbeats this replica could not store during that window look like silence: wait
    // until a whole window has passed with the database answering.
    if (this.lastStoreFailureAt >= silentSince.getTime()) return 0;
    try {
      const { count } = await this.db.router.updateMany({
        where: { status: 'online', OR: [{ lastSeenAt: null }, { lastSeenAt: { lt: silentSince } }] },
        data: { status: 'offline' },
      });
      return count;
    } catch (err) {
      this.lastStoreFailureAt = Date.now();
      throw err;
    }
  }

  /**
   * Stores an apply result with its event and tells the listeners (the rollout engine); results
   * arriving together are stored together (ApplyResultRecorder). `timing` places the result
   * against its stream's Hello (ApplyResultTiming).
   */
  recordApplyResult(
    routerId: string,
    result: ApplyResult,
    timing: ApplyResultTiming = { beforeHello: false, undone: false },
  ): Promise<void> {
    return this.applyResults.record(routerId, result, timing);
  }

  /** Buffered: the writer stores the history and the latest sample (TelemetryBaseline) in batches. */
  async recordTelemetry(routerId: string, telemetry: Telemetry): Promise<void> {
    this.options.telemetry.record(routerId, telemetry);
    await this.markSeen(routerId);
  }

  async recordDrift(routerId: string, report: DriftReport): Promise<void> {
    const router = await this.db.router.findUniqueOrThrow({ where: { id: routerId }, select: { identity: true } });
    // Its event is the whole record of the report; the router keeps only whether it found drift
    // (the fleet table filters on it), written with the event.
    await this.audit.record(async (tx) => {
      await tx.router.update({ where: { id: routerId }, data: { drifted: report.differences.length > 0 } });
      return {
        result: undefined,
        event: {
          actor: `agent:${router.identity}`,
          action: 'drift.reported',
          targetType: 'router',
          targetId: routerId,
          after: { profile: report.profile, revision: report.revision, differences: report.differences },
        },
      };
    });
  }
}
