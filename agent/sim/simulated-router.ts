import { randomUUID } from 'node:crypto';
import { predictCapabilities } from '../../core/capabilities.js';
import { ControllerLink } from '../controller-link.js';
import { collectFacts, type RouterFacts } from '../../core/facts/index.js';
import { helloMessage } from '../hello.js';
import { FixtureHost } from './fixture-host.js';
import { SimulatedCounters } from './simulated-counters.js';
import { datapathEvidence, remember, resolvedPlans, validatedSpecs } from './simulated-plans.js';
import type { SimulatedRouterOptions } from './simulated-router-options.js';
export type { SimulatedOutcome, SimulatedRouterOptions } from './simulated-router-options.js';
import { canonicalJson } from '../../core/canonical-json.js';
import { resolvePlan } from '../../core/plan.js';
import { validateProfileSpec } from '../../core/profile-spec.js';
import type { Plan } from '../../core/plan/types.js';
import {
  ApplyResult_Status,
  DatapathState_Mode,
  OffloadState_Mode,
  Command_Kind,
  type AppliedRevision,
  type Command,
  type ControllerMessage,
  type DesiredState,
} from '../../proto/gen/wrtfleet/agent/v1/agent.js';
import { commandResultValue, failed } from '../commands/command-outcome.js';
import { runSimulatedCommand, type SimulatedCommandTarget, type SimulatedDatapath } from './simulated-commands.js';

/** Offloaded flows a simulated router reports in each offload mode (no flow table exists here). */
const SIMULATED_FLOWS = { software: 40, hardware: 120 };
/** What a simulated router reports as its agent's RSS (a proxy shares one process). */
const SIMULATED_RSS_BYTES = 24 * 1024 * 1024;

/** After answering a reboot, the stream stays up this long so the answer leaves first. */
const REBOOT_ANSWER_MS = 300;

/**
 * A router that cannot exist on this machine (MIPS, a hardware offload engine), simulated
 * above the contract: its facts come from a captured file tree, its agent speaks the real
 * gRPC protocol, and it resolves the real plan for every desired state (once per model and
 * spec, shared: see `resolvedPlans`); only the kernel work is skipped. It honours
 * commit-confirmed: without ConfirmApply within the window it rolls back to what it ran
 * before and says so.
 */
export class SimulatedRouter implements SimulatedCommandTarget {
  readonly link: ControllerLink;
  applied: AppliedRevision | undefined;
  previous: AppliedRevision | undefined;
  /** What each plan applied so far would attach, by plan hash (the BPF section of diagnostics reads it). */
  private readonly plans = new Map<string, SimulatedDatapath>();
  /** Commands answered, in order (tests read what each one did). */
  readonly commands: { kind: Command_Kind; commandId: string; ok: boolean; output: string }[] = [];
  /** Simulated reboots so far. */
  reboots = 0;
  private confirmTimer: NodeJS.Timeout | undefined;
  private facts: RouterFacts | undefined;
  readonly history: { profile: string; revision: number; status: 'applied' | 'failed' | 'rolled_back' | 'refused' }[] =
    [];
  confirmations = 0;
  /** The last desired state the controller sent (tests read what was delivered). */
  lastDesired: DesiredState | undefined;
  /** Reports made while disconnected (a rollback after losing the controller) go out on reconnect. */
  private readonly outbox: Parameters<ControllerLink['send']>[0][] = [];
  /**
   * Apply results written on the current stream, by their seq there, until the controller's Ack,
   * as the real agent's outbox keeps them (agent/apply/outbox.ts): a stream can break with one
   * written but never read (a replica killed), and the next stream carries it again.
   */
  private readonly awaitingAck = new Map<number, Parameters<ControllerLink['send']>[0]>();
  /** Desired states are applied one after another, as the real agent's queue does (agent/apply/manager.ts). */
  private applying: Promise<void> = Promise.resolve();
  /** The datapath counters its telemetry reports (simulated: no programs run here). */
  readonly counters: SimulatedCounters;
  /** The datapath and offload of the plan it runs, and of the one before (for a rollback). */
  private running: Pick<Plan, 'datapath' | 'offload'> | undefined;
  private runningBefore: Pick<Plan, 'datapath' | 'offload'> | undefined;
  private telemetryTimer: NodeJS.Timeout | undefined;

  constructor(private readonly options: SimulatedRouterOptions) {
    this.facts = options.facts;
    this.link = new ControllerLink({
      address: options.controller,
      homeKey: options.identity,
      credentials: options.credentials,
      reconnect: options.reconnect,
      hello: () => this.hello(),
    });
    this.link.on('message', (m: ControllerMessage) => this.onMessage(m));
    this.counters = options.counters ?? new SimulatedCounters();
    this.link.on('welcome', (w: { telemetryIntervalSeconds: number }) => {
      // Unacked results first, in the order they were made: they may have died with the last stream.
      this.outbox.unshift(...this.awaitingAck.values());
      this.awaitingAck.clear();
      while (this.outbox.length && this.sendReport(this.outbox[0]!)) this.outbox.shift();
      this.startTelemetry(w.telemetryIntervalSeconds);
    });
  }

  private startTelemetry(intervalSeconds: number): void {
    clearInterval(this.telemetryTimer);
    const ms = this.options.telemetryIntervalMs ?? intervalSeconds * 1000;
    if (ms <= 0) return;
    this.telemetryTimer = setInterval(() => {
      if (!this.telemetryPaused) this.sendTelemetry();
    }, ms);
    this.telemetryTimer.unref();
  }

  private telemetryPaused = false;

  /**
   * Holds the periodic samples (tests): a test that moves the shared clock lets the samples in
   * flight land first, or one read before the move and stamped after it would carry the move's
   * packets as a spike.
   */
  pauseTelemetry(paused: boolean): void {
    this.telemetryPaused = paused;
  }

  /** One telemetry sample now (false: not connected). */
  sendTelemetry(): boolean {
    const offload = this.running?.offload.mode ?? 'off';
    return (
      this.link.send({
        $case: 'telemetry',
        value: {
          programs: this.counters.read(),
          offload: {
            mode:
              offload === 'hardware'
                ? OffloadState_Mode.MODE_HARDWARE
                : offload === 'software'
                  ? OffloadState_Mode.MODE_SOFTWARE
                  : OffloadState_Mode.MODE_OFF,
            reason: 'simulated',
          },
          offloadedFlowsSoftware: offload === 'software' ? SIMULATED_FLOWS.software : 0,
          offloadedFlowsHardware: offload === 'hardware' ? SIMULATED_FLOWS.hardware : 0,
          agentRssBytes: SIMULATED_RSS_BYTES,
        },
      }) > 0
    );
  }

  /** A simulated reboot or re-attach as its counters see it: every one back to zero. */
  resetCounters(): void {
    this.counters.reset();
  }

  private run(plan: Pick<Plan, 'datapath' | 'offload'> | undefined): void {
    this.running = plan;
    const mode = plan?.datapath.mode ?? 'none';
    this.counters.attach(mode, this.wan(), plan?.datapath.programs.map((p) => p.name) ?? []);
  }

  private wan(): string {
    return this.facts?.network.wan[0] ?? 'wan';
  }

  private report(body: Parameters<ControllerLink['send']>[0]): void {
    // Behind anything still waiting for a stream, so reports keep their order.
    if (this.outbox.length > 0 || !this.sendReport(body)) this.outbox.push(body);
  }

  /** Writes a report on the live stream (false: none); an apply result is kept until its Ack. */
  private sendReport(body: Parameters<ControllerLink['send']>[0]): boolean {
    const seq = this.link.send(body);
    if (seq && body.$case === 'applyResult') this.awaitingAck.set(seq, body);
    return seq > 0;
  }

  get datapath(): SimulatedDatapath | undefined {
    return this.applied ? this.plans.get(this.applied.planHash) : undefined;
  }

  get root(): string {
    return this.options.root;
  }

  /** The router's identity (`sim.<model>:<serial>`). */
  get identity(): string {
    return this.options.identity;
  }

  reportApply(status: ApplyResult_Status, revision: AppliedRevision, error: string): void {
    this.history.push({
      profile: revision.profile,
      revision: revision.revision,
      status: status === ApplyResult_Status.STATUS_ROLLED_BACK ? 'rolled_back' : 'applied',
    });
    this.report({
      $case: 'applyResult',
      value: {
        resultId: randomUUID(),
        profile: revision.profile,
        revision: revision.revision,
        status,
        error,
        evidence: { simulated: true },
        planHash: revision.planHash,
        startedAt: new Date(),
        finishedAt: new Date(),
      },
    });
  }

  reportDrift(revision: AppliedRevision | undefined): void {
    this.report({
      $case: 'driftReport',
      value: { profile: revision?.profile ?? '', revision: revision?.revision ?? 0, differences: [] },
    });
  }

  private async command(seq: number, command: Command): Promise<void> {
    const scripted = this.options.commandOutcome?.(command) ?? 'ok';
    if (scripted === 'silent') return;
    if (this.options.commandDelayMs) await new Promise((r) => setTimeout(r, this.options.commandDelayMs));
    const outcome =
      scripted === 'fail'
        ? failed(`simulated failure of ${Command_Kind[command.kind]}`)
        : await runSimulatedCommand(command, this).catch((err: unknown) => failed((err as Error).message));
    const value = commandResultValue(seq, command, outcome);
    this.commands.push({ kind: command.kind, commandId: command.commandId, ok: value.ok, output: value.output });
    this.report({ $case: 'commandResult', value });
    if (scripted === 'ok' && command.kind === Command_Kind.KIND_REBOOT) {
      this.reboots++;
      await new Promise((r) => setTimeout(r, REBOOT_ANSWER_MS));
      this.link.drop(this.options.rebootDelayMs ?? 3_000);
    }
  }

  private async hello() {
    this.facts ??= await collectFacts(new FixtureHost(this.options.root));
    return helloMessage({
      identity: this.options.identity,
      name: this.options.name,
      placement: 'proxy',
      facts: this.facts,
      predicted: predictCapabilities(this.facts),
      applied: this.applied,
      live: this.liveState(),
    });
  }

  /**
   * What it runs, as the real agent reads it back for its Hello (agent/router-agent.ts,
   * liveMessage): the fleet table lists and filters routers by it.
   */
  private liveState() {
    const plan = this.running;
    const mode = plan?.datapath.mode ?? 'none';
    const offload = plan?.offload.mode ?? 'off';
    return {
      datapath: {
        mode:
          mode === 'ebpf'
            ? plan!.datapath.attach === 'tcx'
              ? DatapathState_Mode.MODE_TCX
              : DatapathState_Mode.MODE_CLS_BPF
            : mode === 'nftables'
              ? DatapathState_Mode.MODE_NFTABLES
              : mode === 'iptables'
                ? DatapathState_Mode.MODE_IPTABLES
                : DatapathState_Mode.MODE_NONE,
        interfaces: mode === 'none' ? [] : [this.wan()],
        programs: mode === 'ebpf' ? plan!.datapath.programs.map((p) => p.name) : [],
      },
      offload: {
        mode:
          offload === 'hardware'
            ? OffloadState_Mode.MODE_HARDWARE
            : offload === 'software'
              ? OffloadState_Mode.MODE_SOFTWARE
              : OffloadState_Mode.MODE_OFF,
        reason: 'simulated',
      },
    };
  }

  start(): void {
    this.link.start();
  }

  async stop(): Promise<void> {
    clearTimeout(this.confirmTimer);
    clearInterval(this.telemetryTimer);
    await this.link.stop();
  }

  private onMessage(message: ControllerMessage): void {
    const body = message.body;
    if (body?.$case === 'desiredState') {
      this.lastDesired = body.value;
      const desired = body.value;
      this.applying = this.applying.then(() => this.apply(desired));
    }
    if (body?.$case === 'ack') this.awaitingAck.delete(body.value.agentSeq);
    if (body?.$case === 'command') void this.command(message.seq, body.value);
    if (
      body?.$case === 'confirmApply' &&
      this.applied?.pendingConfirm &&
      body.value.revision === this.applied.revision &&
      body.value.profile === this.applied.profile
    ) {
      clearTimeout(this.confirmTimer);
      this.applied = { ...this.applied, pendingConfirm: false };
      this.confirmations++;
    }
  }

  private async apply(desired: DesiredState): Promise<void> {
    const startedAt = new Date();
    this.options.log?.(`received ${desired.profile}@${desired.revision}`);
    const outcome = this.options.outcome?.(desired) ?? 'apply';
    if (outcome === 'silent') return;
    if (this.options.applyDelayMs) await new Promise((r) => setTimeout(r, this.options.applyDelayMs));
    const specKey = canonicalJson(desired.spec ?? {});
    const spec = remember(validatedSpecs, specKey, () => validateProfileSpec(desired.spec ?? {}));
    const base = {
      resultId: randomUUID(),
      profile: desired.profile,
      revision: desired.revision,
      startedAt,
      finishedAt: new Date(),
    };
    if (!spec.ok) {
      this.history.push({ profile: desired.profile, revision: desired.revision, status: 'refused' });
      this.report({
        $case: 'applyResult',
        value: {
          ...base,
          status: ApplyResult_Status.STATUS_REFUSED,
          error: `invalid spec: ${spec.errors[0]?.message}`,
          evidence: undefined,
          planHash: '',
        },
      });
      return;
    }
    const facts = (this.facts ??= await collectFacts(new FixtureHost(this.options.root)));
    let plans = resolvedPlans.get(facts);
    if (!plans) resolvedPlans.set(facts, (plans = new Map()));
    const plan = remember(plans, specKey, () => resolvePlan(spec.spec, { facts }));
    if (!plan.satisfiable || outcome === 'fail') {
      const error = !plan.satisfiable
        ? plan.refusals.map((r) => r.reason).join('; ')
        : 'simulated failure: the router restored its previous state';
      this.history.push({
        profile: desired.profile,
        revision: desired.revision,
        status: plan.satisfiable ? 'failed' : 'refused',
      });
      this.report({
        $case: 'applyResult',
        value: {
          ...base,
          status: plan.satisfiable ? ApplyResult_Status.STATUS_FAILED : ApplyResult_Status.STATUS_REFUSED,
          error,
          evidence: undefined,
          planHash: plan.planHash,
        },
      });
      return;
    }
    if (this.applied?.planHash === plan.planHash && this.applied.revision === desired.revision) {
      // Same revision, same plan: nothing to change; report it applied again. Also while its
      // confirmation is awaited (a replica that failed over sends the desired state again):
      // the window already open stays the one that counts, as on the real agent.
      this.report({
        $case: 'applyResult',
        value: {
          ...base,
          status: ApplyResult_Status.STATUS_APPLIED,
          error: '',
          evidence: { simulated: true, unchanged: true, pendingConfirm: this.applied.pendingConfirm },
          planHash: plan.planHash,
        },
      });
      return;
    }
    if (!this.applied?.pendingConfirm) this.runningBefore = this.running;
    this.previous = this.applied?.pendingConfirm ? this.previous : this.applied;
    this.run(plan);
    this.applied = {
      profile: desired.profile,
      revision: desired.revision,
      planHash: plan.planHash,
      appliedAt: new Date(),
      pendingConfirm: true,
    };
    this.plans.set(plan.planHash, {
      mode: plan.datapath.mode,
      attach: plan.datapath.attach,
      programs: plan.datapath.programs.map((p) => p.name),
      offload: plan.offload.mode,
    });
    this.history.push({ profile: desired.profile, revision: desired.revision, status: 'applied' });
    clearTimeout(this.confirmTimer);
    const windowSeconds = Math.max(1, this.options.confirmWindowSeconds ?? desired.confirmWindowSeconds);
    this.confirmTimer = setTimeout(
      () => this.rollBackUnconfirmed(`no ConfirmApply from the controller within ${windowSeconds} s`),
      windowSeconds * 1000,
    );
    this.confirmTimer.unref();
    this.options.log?.(`applied ${desired.profile}@${desired.revision}; waiting ${windowSeconds} s for ConfirmApply`);
    this.report({
      $case: 'applyResult',
      value: {
        ...base,
        status: ApplyResult_Status.STATUS_APPLIED,
        error: '',
        // The real agent's evidence shape (agent/apply/transaction.ts, summarizeDatapath).
        evidence: {
          simulated: true,
          datapathMode: plan.datapath.mode,
          datapath: datapathEvidence(this.wan(), plan),
          offload: plan.offload.mode,
        },
        planHash: plan.planHash,
      },
    });
  }

  /**
   * ROLLBACK of a confirmed revision, as the real agent does it (agent/apply/confirm-window.ts,
   * rollbackConfirmed): one level back, reported ROLLED_BACK with what runs now. False: nothing to roll back.
   */
  rollBackConfirmed(reason: string): boolean {
    const from = this.applied;
    if (!from || from.pendingConfirm || !this.previous) return false;
    const to = this.previous;
    this.applied = to;
    this.previous = undefined;
    this.run(this.runningBefore);
    this.runningBefore = undefined;
    this.history.push({ profile: from.profile, revision: from.revision, status: 'rolled_back' });
    this.options.log?.(`rolled back ${from.profile}@${from.revision}: ${reason}; runs ${to.profile}@${to.revision}`);
    this.report({
      $case: 'applyResult',
      value: {
        resultId: randomUUID(),
        profile: from.profile,
        revision: from.revision,
        status: ApplyResult_Status.STATUS_ROLLED_BACK,
        error: `${reason}: rolled back to ${to.profile}@${to.revision}`,
        evidence: {
          simulated: true,
          rolledBackTo: { profile: to.profile, revision: to.revision, planHash: to.planHash },
          datapath: datapathEvidence(this.wan(), this.running),
        },
        planHash: from.planHash,
        startedAt: new Date(),
        finishedAt: new Date(),
      },
    });
    return true;
  }

  /** Restores what ran before the unconfirmed apply and reports it ROLLED_BACK, saying why. */
  rollBackUnconfirmed(reason: string): void {
    const unconfirmed = this.applied;
    if (!unconfirmed?.pendingConfirm) return;
    const to = this.previous;
    this.applied = to;
    this.run(this.runningBefore);
    this.history.push({ profile: unconfirmed.profile, revision: unconfirmed.revision, status: 'rolled_back' });
    const target = to ? `${to.profile}@${to.revision}` : 'the state before wrtfleet applied anything';
    this.options.log?.(`rolled back ${unconfirmed.profile}@${unconfirmed.revision}: ${reason}; runs ${target}`);
    this.report({
      $case: 'applyResult',
      value: {
        resultId: randomUUID(),
        profile: unconfirmed.profile,
        revision: unconfirmed.revision,
        status: ApplyResult_Status.STATUS_ROLLED_BACK,
        // The real agent's wording and evidence shape (agent/apply/confirm-window.ts, rolledBackResult).
        error: `${reason}: rolled back to ${target}`,
        evidence: {
          simulated: true,
          rolledBackTo: to ? { profile: to.profile, revision: to.revision, planHash: to.planHash } : null,
          datapath: datapathEvidence(this.wan(), this.running),
        },
        planHash: unconfirmed.planHash,
        startedAt: new Date(),
        finishedAt: new Date(),
      },
    });
  }
}
