/**
 * The agent's side of a change: DesiredState -> plan -> transactional apply -> ApplyResult,
 * then commit-confirmed (agent/apply/confirm-window.ts). Also the controller's Commands
 * (agent/apply/command-runner.ts) and drift checks, since they all change or read the same
 * state.
 *
 * Every operation runs through one queue: an apply, a rollback timer, a drift check and a
 * WAN change never interleave on the same router.
 *
 * The router also changes under the applied plan by itself: a reboot loses the kernel's
 * datapath, a WAN comes up late, goes away or is re-created. The plan is then put back
 * whatever the drift policy (agent/apply/reapply.ts), and the controller gets an ApplyResult
 * saying so. Results wait in the state file until the controller has them
 * (agent/apply/outbox.ts).
 */
import { EventEmitter } from 'node:events';
import { heapSettler } from '../heap-settle.js';
import {
  Command_Kind,
  type ApplyResult_Status,
  type AppliedRevision,
  type Command,
  type ConfirmApply,
  type DesiredState,
  type DriftReport,
} from '../../proto/gen/wrtfleet/agent/v1/agent.js';
import type { AgentBody } from '../controller-link.js';
import type { RouterHost } from '../../core/host/router-host.js';
import type { PlanRouter } from '../../core/plan.js';
import type { DatapathPaths } from './live.js';
import type { AgentState, StateStore } from './state-store.js';
import type { TransactionOptions } from './transaction.js';
import type { ApplyContext } from './apply-context.js';
import { applyDesired } from './apply-desired.js';
import { applyResultValue, type ApplyResultFields, type ApplyResultValue } from './apply-result.js';
import { REBOOT_DELAY_MS, runCommand, type CommandRun } from './command-runner.js';
import { commandResultValue, failed } from '../commands/command-outcome.js';
import type { ProbedCapabilities } from '../probe/index.js';
import { ConfirmWindow } from './confirm-window.js';
import { desiredOf, planDesired } from './desired-plan.js';
import { HostDatapath } from './host-datapath.js';
import { Outbox } from './outbox.js';
import { Reapplier } from './reapply.js';
import type { RouterDatapath } from './router-datapath.js';
import { WanFollower } from './wan-follow.js';

export interface ApplyManagerOptions {
  host: RouterHost;
  store: StateStore;
  paths?: DatapathPaths;
  /** Facts and capabilities (predicted + probed) for resolvePlan. */
  router: () => Promise<PlanRouter>;
  /** Re-runs the capability probe (REPROBE) and returns what it found. */
  reprobe?: () => Promise<ProbedCapabilities | undefined>;
  /** Sends on the live stream: the message's seq there, or 0 when there is none (the message is kept for later). */
  send: (body: AgentBody) => number;
  now?: () => number;
  log?: (message: string) => void;
  /** Test hooks passed to every transaction. */
  transaction?: Pick<TransactionOptions, 'afterDatapath'>;
  /**
   * What changes and reads the router's kernel; default: through `host` (HostDatapath). A
   * simulated router gives its own (agent/sim/simulated-datapath.ts).
   */
  datapath?: RouterDatapath;
  /** Validates a DesiredState and resolves its plan; default: planDesired (a simulated fleet shares the work). */
  plan?: typeof planDesired;
  /** Runs a Command; default: runCommand (a simulated router answers the host's own commands itself). */
  runCommand?: typeof runCommand;
  /**
   * Follow WAN changes of the applied plan (polls `ip route` + `ip link` on the host). Absent:
   * off (hosts that cannot run commands, transcript tests).
   */
  wanWatch?: { intervalMs?: number };
}

export class ApplyManager extends EventEmitter {
  private state: AgentState | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private stopped = false;
  private readonly now: () => number;
  private readonly ctx: ApplyContext;
  private readonly outbox: Outbox;
  private readonly wan: WanFollower | undefined;
  private readonly confirmWindow: ConfirmWindow;
  private readonly reapplier: Reapplier;
  private bootIdError = '';

  constructor(private readonly options: ApplyManagerOptions) {
    super();
    this.now = options.now ?? Date.now;
    this.ctx = {
      host: options.host,
      datapath: options.datapath ?? new HostDatapath(options.host, options.paths ?? {}, options.transaction),
      now: this.now,
      log: (message) => this.log(message),
      state: () => this.current,
      save: () => this.save(),
      result: (status, fields) => this.result(status, fields),
      followingWan: (fn) => (this.wan ? this.wan.around(fn) : fn()),
      bootId: () => this.bootId(),
      stopped: () => this.stopped,
    };
    this.outbox = new Outbox({
      state: () => this.state,
      save: () => this.save(),
      send: (body) => options.send(body),
      log: (message) => this.log(message),
    });
    if (options.wanWatch)
      this.wan = new WanFollower({
        host: options.host,
        datapath: this.ctx.datapath,
        now: this.now,
        intervalMs: options.wanWatch.intervalMs,
        onChange: () => this.enqueue(() => this.reapplier.followWan()),
        log: (message) => this.log(message),
      });
    this.confirmWindow = new ConfirmWindow(this.ctx, {
      enqueue: (step) => this.enqueue(step),
      emit: (event, value) => this.emit(event, value),
    });
    this.reapplier = new Reapplier(this.ctx, this.wan, (reason) => this.confirmWindow.rollbackPending(reason));
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

  /** Starts or stops the WAN watch: it runs while a plan with an eBPF or nftables datapath is applied. */
  private syncWanWatch(): void {
    this.wan?.sync(this.stopped ? null : this.state?.applied);
  }

  async init(): Promise<void> {
    this.state = await this.options.store.load();
    // Queued first: a reboot decides before the confirm timer below (a rollback it ran leaves the timer nothing to do).
    void this.enqueue(() => this.reapplier.checkReboot()).catch((err: unknown) =>
      this.log(`reboot check failed: ${(err as Error).message}`),
    );
    this.syncWanWatch();
    const pending = this.state.pending;
    if (pending) {
      const left = pending.deadline - this.now();
      this.log(
        `agent restarted with ${pending.profile}@${pending.revision} unconfirmed: ${left > 0 ? `${Math.ceil(left / 1000)} s left` : 'window expired, rolling back'}`,
      );
      this.confirmWindow.arm();
    }
  }

  get current(): AgentState {
    if (!this.state) throw new Error('ApplyManager.init() not called');
    return this.state;
  }

  private async save(): Promise<void> {
    await this.options.store.save(this.current);
  }

  /** The router kernel's boot id now; null where it cannot be read (why is logged once per reason). */
  private async bootId(): Promise<string | null> {
    const boot = await this.ctx.datapath.bootId();
    const reason = boot.id === null ? boot.reason : '';
    if (reason && reason !== this.bootIdError)
      this.log(`boot id: ${reason}; recorded as unknown: a router reboot cannot be told from an agent restart`);
    this.bootIdError = reason;
    return boot.id;
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

  /** Sends what the controller has not heard yet. */
  flush(): Promise<void> {
    return this.outbox.flush();
  }

  /** A new stream reached Welcome: apply results never acked on the previous one are sent again. */
  onSession(): Promise<void> {
    return this.outbox.onSession();
  }

  /** The controller stored the message with this seq on the current stream. */
  onAck(seq: number): Promise<void> {
    return this.outbox.onAck(seq);
  }

  private async result(status: ApplyResult_Status, fields: ApplyResultFields): Promise<ApplyResultValue> {
    const value = applyResultValue(status, fields, this.now());
    this.emit('result', value);
    // The router was just changed (or left alone after a refusal); either way the work that led here is garbage now.
    heapSettler.soon();
    await this.outbox.deliver({ $case: 'applyResult', value });
    return value;
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

  async onDesiredState(desired: DesiredState): Promise<void> {
    await this.enqueue(() => this.applyDesired(desired, { force: false }));
  }

  onConfirm(confirm: ConfirmApply): Promise<void> {
    return this.enqueue(() => this.confirmWindow.confirm(confirm));
  }

  private applyDesired(desired: DesiredState, how: { force: boolean; confirm?: boolean }): Promise<ApplyResultValue> {
    return applyDesired(this.ctx, desired, {
      ...how,
      plan: () => (this.options.plan ?? planDesired)(desired, () => this.options.router()),
      confirmWindow: this.confirmWindow,
    });
  }

  // ------------------------------------------------------------------ commands

  /**
   * Runs a Command (agent/apply/command-runner.ts) and answers it with a CommandResult. A
   * reboot runs after its answer is on the stream, still inside the queue: nothing else starts
   * on a router that is going down.
   */
  onCommand(seq: number, command: Command): Promise<void> {
    return this.enqueue(async () => {
      const run = await (this.options.runCommand ?? runCommand)(command, {
        ctx: this.ctx,
        confirmWindow: this.confirmWindow,
        reapply: () =>
          this.applyDesired(desiredOf(this.current.applied!), { force: true, confirm: this.current.pending !== null }),
        driftCheck: () => this.driftCheck(),
        reportDrift: (report) =>
          this.outbox.deliver({ $case: 'driftReport', value: report as unknown as Record<string, unknown> }),
        reprobe: this.options.reprobe,
      }).catch((err: unknown): CommandRun => ({ outcome: failed((err as Error).message) }));
      const value = commandResultValue(seq, command, run.outcome);
      await this.outbox.deliver({ $case: 'commandResult', value: value as unknown as Record<string, unknown> });
      this.emit('command', value);
      if (run.after) {
        await new Promise((r) => setTimeout(r, REBOOT_DELAY_MS));
        await run
          .after()
          .catch((err: unknown) => this.log(`after ${Command_Kind[command.kind]}: ${(err as Error).message}`));
      }
    });
  }

  // ------------------------------------------------------------------ drift

  /** Compares the live router with the applied plan (empty differences: no drift). */
  async driftCheck(): Promise<DriftReport> {
    return this.ctx.datapath.drift(this.current.applied);
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
      if (await this.reapplier.checkReboot()) return null;
      if (st.pending) return null;
      const report = await this.driftCheck();
      if (report.differences.length === 0) return report;
      this.emit('drift', report);
      await this.outbox.deliver({ $case: 'driftReport', value: report as unknown as Record<string, unknown> });
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

  /** Waits for queued work (tests, shutdown). */
  async idle(): Promise<void> {
    await this.queue;
  }

  stop(): void {
    this.stopped = true;
    this.confirmWindow.clear();
    this.wan?.stop();
  }
}
