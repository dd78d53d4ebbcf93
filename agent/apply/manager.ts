/**
 * The agent's side of a change: DesiredState -> plan -> transactional apply -> ApplyResult,
 * then commit-confirmed: the controller must answer ConfirmApply within the window, or the
 * agent restores the snapshot by itself and reports ROLLED_BACK (on reconnect if needed).
 * Also the controller's Commands (REPROBE, REAPPLY, ROLLBACK, DETACH, CHECK_DRIFT) and
 * drift checks, since they all change or read the same state.
 *
 * Every operation runs through one queue: an apply, a rollback timer, a drift check and a
 * WAN change never interleave on the same router.
 *
 * While a plan with an eBPF or nftables datapath is applied, the eligible WAN set is polled
 * (agent/apply/wan-watch.ts): a WAN that comes up late, goes away or is re-created gets the
 * applied plan's datapath at once, whatever the drift policy, and the controller gets an
 * ApplyResult saying so.
 *
 * State (agent/apply/state-store.ts) is saved before any result is sent, so a crash or
 * restart never forgets an open window: on start, an expired window rolls back at once, an
 * open one gets a timer for what is left.
 *
 * The router kernel's boot id is recorded with the applied state (agent/apply/reboot.ts): on
 * start, another boot id means the router rebooted and lost its datapath, and the applied
 * plan is put back (reported with trigger 'reboot'); a window open at the reboot rolls back
 * at once instead.
 */
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { heapSettler } from '../heap-settle.js';
import {
  ApplyResult_Status,
  Command_Kind,
  type AppliedRevision,
  type Command,
  type ConfirmApply,
  type DesiredState,
  type DriftReport,
} from '../../proto/gen/wrtfleet/agent/v1/agent.js';
import type { AgentBody } from '../controller-link.js';
import type { RouterHost } from '../../core/host/router-host.js';
import { resolvePlan, type Plan, type PlanRouter } from '../../core/plan.js';
import { EligibleWatch, wanDevices } from './eligible-watch.js';
import { readLive, type DatapathPaths } from './live.js';
import type { AgentState, OutboxEntry, StateStore } from './state-store.js';
import {
  applyTransaction,
  comparePlanToLive,
  detachAll,
  requiresHardware,
  restoreSnapshot,
  summarizeDatapath,
  type AppliedRecord,
  type Difference,
  type Reapplied,
  type TransactionOptions,
} from './transaction.js';
import { readBootId, reapplyAfterReboot } from './reboot.js';
import { followsWan, isWanReport, reapplyDatapathForWan } from './wan-watch.js';
import { isoTime } from '../iso-time.js';

export interface ApplyManagerOptions {
  host: RouterHost;
  store: StateStore;
  paths?: DatapathPaths;
  /** Facts and capabilities (predicted + probed) for resolvePlan. */
  router: () => Promise<PlanRouter>;
  /** Re-runs the capability probe (REPROBE). */
  reprobe?: () => Promise<void>;
  /** Sends on the live stream: the message's seq there, or 0 when there is none (the message is kept for later). */
  send: (body: AgentBody) => number;
  now?: () => number;
  log?: (message: string) => void;
  /** Test hooks passed to every transaction. */
  transaction?: Pick<TransactionOptions, 'afterDatapath'>;
  /**
   * Follow WAN changes of the applied plan (polls `ip route` + `ip link` on the host). Absent:
   * off (hosts that cannot run commands, transcript tests).
   */
  wanWatch?: { intervalMs?: number };
}

type Json = Record<string, unknown>;

const MAX_QUEUED_REPORTS = 20;
/** Outbox entries that only describe the router: past the latest few, older ones say nothing newer ones do not. */
const REPORT_KINDS: ((entry: OutboxEntry) => boolean)[] = [(e) => e.$case === 'driftReport', isWanReport];

/** Struct-safe copy: no undefined, no bigint, no class instances. */
function jsonSafe(value: unknown): Json {
  return JSON.parse(
    JSON.stringify(value ?? {}, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)),
  ) as Json;
}

export class ApplyManager extends EventEmitter {
  private state: AgentState | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private confirmTimer: NodeJS.Timeout | undefined;
  private stopped = false;
  private readonly now: () => number;
  private readonly paths: DatapathPaths;
  private readonly wan: EligibleWatch | undefined;
  private wanError = '';
  private bootIdError = '';

  constructor(private readonly options: ApplyManagerOptions) {
    super();
    this.now = options.now ?? Date.now;
    this.paths = options.paths ?? {};
    if (options.wanWatch) {
      this.wan = new EligibleWatch(options.host, {
        intervalMs: options.wanWatch.intervalMs, // default 5 s
        // After an agent restart the set is taken as the one the datapath was applied to.
        adoptFirst: true,
        onChange: () => this.enqueue(() => this.followWan()),
        // Once per distinct error: an unreachable router (SSH down) would otherwise log every tick.
        onError: (err) => {
          if (err.message !== this.wanError) this.log(`wan watch: ${err.message}`);
          this.wanError = err.message;
        },
      });
    }
  }

  private log(message: string): void {
    this.options.log?.(message);
    this.emit('log', message);
  }

  /** Serializes operations on this router; after each one the WAN watch runs iff a datapath plan is applied. */
  private enqueue<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn).finally(() => this.syncWanWatch());
    this.queue = run.catch(() => undefined);
    return run;
  }

  async init(): Promise<void> {
    this.state = await this.options.store.load();
    // Queued first: a reboot decides before the confirm timer below (a rollback it ran leaves the timer nothing to do).
    void this.enqueue(() => this.checkReboot()).catch((err: unknown) =>
      this.log(`reboot check failed: ${(err as Error).message}`),
    );
    this.syncWanWatch();
    const pending = this.state.pending;
    if (pending) {
      const left = pending.deadline - this.now();
      this.log(
        `agent restarted with ${pending.profile}@${pending.revision} unconfirmed: ${left > 0 ? `${Math.ceil(left / 1000)} s left` : 'window expired, rolling back'}`,
      );
      this.armConfirmTimer();
    }
  }

  get current(): AgentState {
    if (!this.state) throw new Error('ApplyManager.init() not called');
    return this.state;
  }

  private async save(): Promise<void> {
    await this.options.store.save(this.current);
  }

  /** For Hello.applied. */
  appliedRevision(): AppliedRevision | undefined {
    const a = this.state?.applied;
    if (!a) return undefined;
    return {
      profile: a.profile,
      revision: a.revision,
      planHash: a.planHash,
      appliedAt: new Date(a.appliedAt),
      pendingConfirm: this.state?.pending !== null,
    };
  }

  // ------------------------------------------------------------------ outbox

  private async deliver(entry: OutboxEntry): Promise<void> {
    const st = this.current;
    st.outbox.push(entry);
    // An agent offline for days must not grow its state file with drift or WAN-change reports: keep the latest few of each.
    for (const kind of REPORT_KINDS) {
      const reports = st.outbox.filter(kind);
      if (reports.length <= MAX_QUEUED_REPORTS) continue;
      const drop = new Set(reports.slice(0, reports.length - MAX_QUEUED_REPORTS));
      st.outbox = st.outbox.filter((e) => !drop.has(e));
    }
    await this.save();
    await this.flush();
  }

  private flushing: Promise<void> = Promise.resolve();
  /** Apply results written on the current stream, by their seq there, until the controller's Ack. */
  private readonly awaitingAck = new Map<number, OutboxEntry>();

  /** Sends what the controller has not heard yet. Serialized with acks: an entry is sent once per stream. */
  flush(): Promise<void> {
    return this.serialize(() => this.flushOnce());
  }

  /**
   * A new stream reached Welcome. Apply results written on the previous one and never acked
   * may have been lost with it (written is not delivered): send them again. The controller
   * records a result once per result_id, so one that did arrive is not counted twice.
   */
  onSession(): Promise<void> {
    this.awaitingAck.clear();
    return this.flush();
  }

  /** The controller stored the message with this seq on the current stream. */
  onAck(seq: number): Promise<void> {
    return this.serialize(async () => {
      const entry = this.awaitingAck.get(seq);
      const st = this.state;
      if (!entry || !st) return;
      this.awaitingAck.delete(seq);
      st.outbox = st.outbox.filter((e) => e !== entry);
      await this.save();
    });
  }

  private serialize(step: () => Promise<void>): Promise<void> {
    this.flushing = this.flushing.then(step).catch((err: unknown) => this.log(`outbox: ${(err as Error).message}`));
    return this.flushing;
  }

  private async flushOnce(): Promise<void> {
    const st = this.state;
    if (!st || st.outbox.length === 0) return;
    const inFlight = new Set(this.awaitingAck.values());
    const kept: OutboxEntry[] = [];
    let blocked = false;
    for (const entry of st.outbox) {
      if (inFlight.has(entry)) {
        kept.push(entry);
        continue;
      }
      // In order: once one cannot be sent, the rest wait too.
      const seq = blocked ? 0 : this.options.send(toBody(entry));
      if (!seq) {
        blocked = true;
        kept.push(entry);
      } else if (entry.$case === 'applyResult') {
        // The one record of what an apply did: kept until acked. Drift reports and command
        // results are repeated or re-asked if lost; written is enough for them.
        this.awaitingAck.set(seq, entry);
        kept.push(entry);
      }
    }
    if (kept.length !== st.outbox.length) {
      st.outbox = kept;
      await this.save();
    }
  }

  private async result(
    status: ApplyResult_Status,
    fields: {
      profile: string;
      revision: number;
      planHash?: string;
      error?: string;
      evidence?: unknown;
      startedAt: number;
    },
  ): Promise<void> {
    const value = {
      resultId: randomUUID(),
      profile: fields.profile,
      revision: fields.revision,
      status,
      error: fields.error ?? '',
      evidence: jsonSafe(fields.evidence),
      planHash: fields.planHash ?? '',
      startedAt: isoTime(new Date(fields.startedAt)),
      finishedAt: isoTime(new Date(this.now())),
    };
    this.emit('result', value);
    // The router was just changed (or left alone after a refusal); either way the work that led here is garbage now.
    heapSettler.soon();
    await this.deliver({ $case: 'applyResult', value });
  }

  // ------------------------------------------------------------------ desired state

  /**
   * Runs fn while nothing else of this manager runs: no apply, drift check or WAN follow-up
   * starts until it ends. For maintenance that must look atomic to the agent (a test's
   * simulated reboot: kernel state flushed and boot id changed in one step, as a real reboot
   * does).
   */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    return this.enqueue(fn);
  }

  onDesiredState(desired: DesiredState): Promise<void> {
    return this.enqueue(() => this.applyDesired(desired, { force: false }));
  }

  private async planFor(
    desired: Pick<DesiredState, 'spec'>,
  ): Promise<{ plan: Plan; spec: AppliedRecord['spec'] } | { error: string }> {
    // Loaded for each DesiredState and released after it in the bundle (a transient section, agent/packaging/build.ts): TypeBox stays off an idle agent's heap.
    const { validateProfileSpec } = await import('../../core/profile-spec.js');
    const validation = validateProfileSpec(desired.spec ?? {});
    if (!validation.ok)
      return {
        error: `invalid profile spec: ${validation.errors.map((e) => `${e.path || '/'}: ${e.message}`).join('; ')}`,
      };
    const router = await this.options.router();
    return { plan: resolvePlan(validation.spec, router), spec: validation.spec };
  }

  private async applyDesired(
    desired: DesiredState,
    { force, confirm = true }: { force: boolean; confirm?: boolean },
  ): Promise<void> {
    const startedAt = this.now();
    const id = { profile: desired.profile, revision: desired.revision };
    const planned = await this.planFor(desired);
    if ('error' in planned)
      return this.result(ApplyResult_Status.STATUS_REFUSED, { ...id, error: planned.error, startedAt });
    const { plan, spec } = planned;
    if (!plan.satisfiable) {
      // Nothing is touched: not even a snapshot is taken.
      return this.result(ApplyResult_Status.STATUS_REFUSED, {
        ...id,
        planHash: plan.planHash,
        error: `plan not satisfiable on this router: ${plan.refusals.map((r) => `${r.topic}: ${r.reason}`).join('; ')}`,
        evidence: { refusals: plan.refusals, decisions: plan.decisions },
        startedAt,
      });
    }

    const st = this.current;
    const same =
      st.applied &&
      st.applied.profile === desired.profile &&
      st.applied.revision === desired.revision &&
      st.applied.planHash === plan.planHash;
    if (same && !force) {
      const live = await readLive(this.options.host, this.paths);
      const differences = comparePlanToLive(plan, live, { requireHardware: requiresHardware(spec) });
      if (differences.length === 0) {
        this.log(`${desired.profile}@${desired.revision} already applied and verified: no change`);
        return this.result(ApplyResult_Status.STATUS_APPLIED, {
          ...id,
          planHash: plan.planHash,
          evidence: {
            unchanged: true,
            pendingConfirm: st.pending !== null,
            datapath: summarizeDatapath(live),
            eligible: live.eligible,
          },
          startedAt,
        });
      }
      this.log(
        `${desired.profile}@${desired.revision} already applied but the router differs (${differences.length}): re-applying`,
      );
    }

    const outcome = await this.followingWan(() =>
      applyTransaction(this.options.host, plan, st.applied, {
        paths: this.paths,
        requireHardware: requiresHardware(spec),
        ...this.options.transaction,
      }),
    );
    if (outcome.status === 'failed') {
      this.log(`${desired.profile}@${desired.revision} failed: ${outcome.error}`);
      return this.result(ApplyResult_Status.STATUS_FAILED, {
        ...id,
        planHash: plan.planHash,
        error: outcome.restore.ok
          ? `${outcome.error} (previous state restored and verified)`
          : `${outcome.error}; RESTORE INCOMPLETE: ${outcome.restore.error ?? outcome.restore.problems.join('; ')}`,
        evidence: outcome.evidence,
        startedAt,
      });
    }

    const record: AppliedRecord = {
      profile: desired.profile,
      revision: desired.revision,
      planHash: plan.planHash,
      spec,
      plan,
      appliedAt: isoTime(new Date(this.now())),
    };
    const windowSeconds =
      desired.confirmWindowSeconds > 0 ? desired.confirmWindowSeconds : plan.commitConfirm.windowSeconds;
    const wasPending = st.pending;
    if (confirm) {
      st.pending = {
        profile: record.profile,
        revision: record.revision,
        planHash: record.planHash,
        deadline: this.now() + windowSeconds * 1000,
        windowSeconds,
        // An unconfirmed apply on top of an unconfirmed apply still rolls back to the last confirmed state.
        snapshot: wasPending ? wasPending.snapshot : outcome.snapshot!,
        previous: wasPending ? wasPending.previous : st.applied,
      };
    }
    st.applied = record;
    st.bootId = await this.bootId();
    await this.save();
    if (confirm) this.armConfirmTimer();
    this.log(
      `${desired.profile}@${desired.revision} applied${confirm ? `; waiting ${windowSeconds} s for ConfirmApply` : ''}`,
    );
    return this.result(ApplyResult_Status.STATUS_APPLIED, {
      ...id,
      planHash: plan.planHash,
      evidence: {
        ...outcome.evidence,
        changed: outcome.changed,
        confirmWindowSeconds: confirm ? windowSeconds : 0,
        decisions: plan.decisions,
        warnings: plan.warnings,
      },
      startedAt,
    });
  }

  // ------------------------------------------------------------------ commit-confirmed

  onConfirm(confirm: ConfirmApply): Promise<void> {
    return this.enqueue(async () => {
      const st = this.current;
      const p = st.pending;
      if (!p || p.profile !== confirm.profile || p.revision !== confirm.revision) {
        this.log(
          `ConfirmApply for ${confirm.profile}@${confirm.revision} ignored: ${p ? `pending is ${p.profile}@${p.revision}` : 'nothing pending'}`,
        );
        return;
      }
      st.rollback = { snapshot: p.snapshot, previous: p.previous };
      st.pending = null;
      clearTimeout(this.confirmTimer);
      await this.save();
      this.log(`${confirm.profile}@${confirm.revision} confirmed`);
      this.emit('confirmed', confirm);
    });
  }

  private armConfirmTimer(): void {
    clearTimeout(this.confirmTimer);
    const p = this.state?.pending;
    if (!p || this.stopped) return;
    const delay = Math.max(0, p.deadline - this.now());
    this.confirmTimer = setTimeout(() => {
      void this.enqueue(() =>
        this.rollbackPending(`no ConfirmApply from the controller within ${p.windowSeconds} s`),
      ).catch((err: unknown) => this.log(`rollback failed: ${(err as Error).message}`));
    }, delay);
  }

  private async rollbackPending(reason: string): Promise<void> {
    const st = this.current;
    const p = st.pending;
    if (!p) return;
    const startedAt = this.now();
    const restore = await this.followingWan(() => restoreSnapshot(this.options.host, this.paths, p.snapshot));
    st.applied = p.previous;
    st.pending = null;
    st.bootId = await this.bootId();
    await this.save();
    this.log(
      `${p.profile}@${p.revision} rolled back: ${reason}${restore.ok ? '' : ` (restore incomplete: ${restore.error ?? restore.problems.join('; ')})`}`,
    );
    this.emit('rolledBack', { profile: p.profile, revision: p.revision, reason, restore });
    await this.result(ApplyResult_Status.STATUS_ROLLED_BACK, {
      profile: p.profile,
      revision: p.revision,
      planHash: p.planHash,
      error: `${reason}: rolled back to ${p.previous ? `${p.previous.profile}@${p.previous.revision}` : 'the state before wrtfleet applied anything'}${restore.ok ? '' : `; RESTORE INCOMPLETE: ${restore.error ?? restore.problems.join('; ')}`}`,
      evidence: {
        restore,
        rolledBackTo: p.previous
          ? { profile: p.previous.profile, revision: p.previous.revision, planHash: p.previous.planHash }
          : null,
        snapshotTakenAt: p.snapshot.takenAt,
      },
      startedAt,
    });
  }

  // ------------------------------------------------------------------ commands

  onCommand(seq: number, command: Command): Promise<void> {
    return this.enqueue(async () => {
      let error = '';
      try {
        error = await this.runCommand(command);
      } catch (err) {
        error = (err as Error).message;
      }
      await this.deliver({ $case: 'commandResult', value: { commandSeq: seq, ok: error === '', error } });
    });
  }

  /** Returns '' on success, else the error text. */
  private async runCommand(command: Command): Promise<string> {
    const st = this.current;
    switch (command.kind) {
      case Command_Kind.KIND_REPROBE:
        if (!this.options.reprobe) return 'this agent has no capability probe';
        await this.options.reprobe();
        return '';
      case Command_Kind.KIND_REAPPLY:
        if (!st.applied) return 'nothing applied: no revision to re-apply';
        await this.applyDesired(desiredOf(st.applied), { force: true, confirm: st.pending !== null });
        return '';
      case Command_Kind.KIND_ROLLBACK: {
        if (st.pending) {
          await this.rollbackPending('rollback requested by the controller');
          return '';
        }
        if (!st.applied || !st.rollback) return 'nothing to roll back';
        const startedAt = this.now();
        const { profile, revision, planHash } = st.applied;
        const rollback = st.rollback;
        const restore = await this.followingWan(() =>
          restoreSnapshot(this.options.host, this.paths, rollback.snapshot),
        );
        st.applied = st.rollback.previous;
        st.rollback = null;
        st.bootId = await this.bootId();
        await this.save();
        await this.result(ApplyResult_Status.STATUS_ROLLED_BACK, {
          profile,
          revision,
          planHash,
          error: 'rollback requested by the controller',
          evidence: { restore },
          startedAt,
        });
        return restore.ok ? '' : `restore incomplete: ${restore.error ?? restore.problems.join('; ')}`;
      }
      case Command_Kind.KIND_DETACH:
        clearTimeout(this.confirmTimer);
        await detachAll(this.options.host, this.paths);
        st.applied = null;
        st.pending = null;
        st.rollback = null;
        await this.save();
        return '';
      case Command_Kind.KIND_CHECK_DRIFT: {
        const report = await this.driftCheck();
        await this.deliver({ $case: 'driftReport', value: report as unknown as Record<string, unknown> });
        return '';
      }
      default:
        return `unknown command kind ${command.kind}`;
    }
  }

  // ------------------------------------------------------------------ drift

  /** Compares the live router with the applied plan (empty differences: no drift). */
  async driftCheck(): Promise<DriftReport> {
    const a = this.current.applied;
    if (!a) {
      const live = await readLive(this.options.host, this.paths);
      const differences: Difference[] = [];
      for (const i of live.ebpf.interfaces)
        differences.push({
          path: `datapath/${i.ifname}`,
          expected: 'nothing attached (no revision applied)',
          actual: i.programs.map((p) => p.program).join(', '),
        });
      if (live.nft.present)
        differences.push({ path: 'nftables/table', expected: 'absent (no revision applied)', actual: 'present' });
      return { profile: '', revision: 0, differences };
    }
    const live = await readLive(this.options.host, this.paths);
    return {
      profile: a.profile,
      revision: a.revision,
      differences: comparePlanToLive(a.plan, live, { requireHardware: requiresHardware(a.spec) }),
    };
  }

  /**
   * The timer's drift check: report differences; re-apply when the profile says so. Skipped
   * while a confirm window is open (the apply itself was just verified).
   */
  checkDriftAndMaybeReapply(): Promise<DriftReport | null> {
    return this.enqueue(async () => {
      const st = this.current;
      if (!st.applied) return null;
      // A proxy outlives the reboots of the router it drives: a changed boot id is not drift.
      if (await this.checkReboot()) return null;
      if (st.pending) return null;
      const report = await this.driftCheck();
      if (report.differences.length === 0) return report;
      this.emit('drift', report);
      await this.deliver({ $case: 'driftReport', value: report as unknown as Record<string, unknown> });
      if (st.applied.plan.drift.policy === 'reapply') {
        this.log(
          `drift on ${report.profile}@${report.revision} (${report.differences.length} differences): re-applying as the profile says`,
        );
        await this.applyDesired(desiredOf(st.applied), { force: true, confirm: false });
      }
      return report;
    });
  }

  /** Drift interval of the applied plan (null: nothing applied). */
  driftIntervalMs(): number | null {
    const a = this.state?.applied;
    return a ? a.plan.drift.intervalSeconds * 1000 : null;
  }

  // ------------------------------------------------------------------ WAN changes

  /** Starts or stops the WAN watch: it runs while a plan with an eBPF or nftables datapath is applied. */
  private syncWanWatch(): void {
    const wan = this.wan;
    if (!wan) return;
    const applied = this.state?.applied;
    if (!this.stopped && applied && followsWan(applied.plan)) wan.start();
    else {
      wan.stop();
      wan.baseline = null;
    }
  }

  /**
   * Runs `fn`, which brings the datapath to the eligible set of now (an apply, a restore):
   * the set read before it becomes the WAN watch's baseline, so a change while `fn` runs is
   * still seen by the next tick.
   */
  private async followingWan<T>(fn: () => Promise<T>): Promise<T> {
    const wan = this.wan;
    if (!wan) return fn();
    const before = await wan.read().catch(() => null);
    try {
      return await fn();
    } finally {
      wan.baseline = before ? wanDevices(before) : null;
    }
  }

  /**
   * The watch saw the eligible set change: bring the applied plan's datapath (only it) to the
   * new set and report it. Regardless of the drift policy: which interfaces the datapath
   * covers is the plan's own scope, not a hand edit. A failure is reported as FAILED and
   * changes nothing else (no rollback; the set is taken as handled, drift checks keep
   * reporting what is missing).
   */
  private async followWan(): Promise<void> {
    const wan = this.wan!;
    const applied = this.current.applied;
    if (this.stopped || !applied || !followsWan(applied.plan)) return;
    const now = await wan.read();
    const before = wan.baseline;
    // An operation queued before this one may have followed the change already.
    if (!wan.differs(now)) return;
    if (before === null) {
      wan.baseline = wanDevices(now);
      return;
    }
    const startedAt = this.now();
    const outcome = await reapplyDatapathForWan(this.options.host, this.paths, applied, before, now);
    wan.baseline = wanDevices(now);
    await this.reportReapplied(applied, outcome, startedAt);
  }

  /** A re-applied record (WAN change, reboot) as an ApplyResult of the applied revision. */
  private async reportReapplied(applied: AppliedRecord, outcome: Reapplied, startedAt: number): Promise<void> {
    this.log(`${applied.profile}@${applied.revision}: ${outcome.ok ? outcome.summary : outcome.error}`);
    await this.result(outcome.ok ? ApplyResult_Status.STATUS_APPLIED : ApplyResult_Status.STATUS_FAILED, {
      profile: applied.profile,
      revision: applied.revision,
      planHash: applied.planHash,
      error: outcome.error,
      evidence: outcome.evidence,
      startedAt,
    });
  }

  // ------------------------------------------------------------------ reboots

  /** The router kernel's boot id now; null where it cannot be read (why is logged once per reason). */
  private async bootId(): Promise<string | null> {
    const boot = await readBootId(this.options.host);
    const reason = boot.id === null ? boot.reason : '';
    if (reason && reason !== this.bootIdError)
      this.log(`boot id: ${reason}; recorded as unknown: a router reboot cannot be told from an agent restart`);
    this.bootIdError = reason;
    return boot.id;
  }

  /**
   * At start and before every drift check (a proxy agent keeps running while its router
   * reboots): a boot id other than the recorded one means the router rebooted since the
   * applied state was recorded, and the kernel lost the datapath. An unconfirmed revision
   * is rolled back at once (the last confirmed one is what the router should run; the
   * confirm timer then finds nothing pending); otherwise the applied plan is put back,
   * whatever the drift policy. Same boot id (an agent restart) or none to compare: nothing.
   * True when it handled a reboot.
   */
  private async checkReboot(): Promise<boolean> {
    const st = this.current;
    const applied = st.applied;
    if (this.stopped || !applied) return false;
    const now = await this.bootId();
    const recorded = st.bootId;
    if (now === null || now === recorded) return false;
    if (recorded === null) {
      this.log(
        `no boot id recorded with ${applied.profile}@${applied.revision} (state from an older agent, or unreadable then): whether the router rebooted since cannot be told; recording this boot (${now})`,
      );
      st.bootId = now;
      await this.save();
      return false;
    }
    const rebooted = `the router rebooted (boot id ${recorded} -> ${now})`;
    if (st.pending) {
      this.log(`${rebooted} inside the confirm window of ${st.pending.profile}@${st.pending.revision}: rolling back`);
      await this.rollbackPending(`${rebooted} before ConfirmApply`);
      return true;
    }
    this.log(`${rebooted} since ${applied.profile}@${applied.revision} was applied: re-applying it`);
    const startedAt = this.now();
    const outcome = await this.followingWan(() =>
      reapplyAfterReboot(this.options.host, this.paths, applied, { recorded, now }),
    );
    // A failure keeps the old boot id: the next start tries again.
    if (outcome.ok) st.bootId = now;
    await this.reportReapplied(applied, outcome, startedAt);
    return true;
  }

  /** Waits for queued work (tests, shutdown). */
  async idle(): Promise<void> {
    await this.queue;
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.confirmTimer);
    this.wan?.stop();
  }
}

function desiredOf(a: AppliedRecord): DesiredState {
  return {
    profile: a.profile,
    revision: a.revision,
    spec: a.spec as unknown as DesiredState['spec'],
    confirmWindowSeconds: 0,
    rolloutId: '',
  };
}

function toBody(entry: OutboxEntry): AgentBody {
  if (entry.$case === 'applyResult') {
    const v = entry.value as Json & { startedAt: string; finishedAt: string };
    return {
      $case: 'applyResult',
      value: {
        ...(v as never as object),
        startedAt: new Date(v.startedAt),
        finishedAt: new Date(v.finishedAt),
      } as never,
    };
  }
  return { $case: entry.$case, value: entry.value as never } as AgentBody;
}
