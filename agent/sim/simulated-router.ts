import type { PredictedCapabilities } from '../../core/capabilities.js';
import { collectFacts, type RouterFacts } from '../../core/facts/index.js';
import type { PlanRouter } from '../../core/plan.js';
import {
  ApplyResult_Status,
  Command_Kind,
  type AppliedRevision,
  type Command,
  type CommandResult,
  type ControllerMessage,
  type DesiredState,
} from '../../proto/gen/wrtfleet/agent/v1/agent.js';
import { deliverToManager } from '../apply/controller-messages.js';
import type { ApplyResultValue } from '../apply/apply-result.js';
import { ApplyManager } from '../apply/manager.js';
import { commandResultValue, failed } from '../commands/command-outcome.js';
import { ControllerLink } from '../controller-link.js';
import { helloMessage } from '../hello.js';
import { liveStateMessage } from '../live-state-message.js';
import { simulatedProbe, type SimulatedCommandOutcome } from './simulated-commands.js';
import { SimulatedCounters } from './simulated-counters.js';
import { SimulatedDatapath, simulatedLive } from './simulated-datapath.js';
import { SimulatedFlash } from './simulated-flash.js';
import { SimulatedRouterHost } from './simulated-host.js';
import { sharedPlanner, sharedPrediction } from './simulated-plans.js';
import type { SimulatedOutcome, SimulatedRouterOptions } from './simulated-router-options.js';
import { SimulatedTelemetry } from './simulated-telemetry.js';
export type { SimulatedOutcome, SimulatedRouterOptions } from './simulated-router-options.js';

/** How long a simulated reboot keeps the router away, unless the options say. */
const REBOOT_AWAY_MS = 3_000;

/** The scripted outcome of each DesiredState handed to an agent (tests); one map for the whole fleet. */
const scripted = new WeakMap<object, SimulatedOutcome>();

const HISTORY_STATUS = {
  [ApplyResult_Status.STATUS_APPLIED]: 'applied',
  [ApplyResult_Status.STATUS_FAILED]: 'failed',
  [ApplyResult_Status.STATUS_ROLLED_BACK]: 'rolled_back',
  [ApplyResult_Status.STATUS_REFUSED]: 'refused',
} as const;

/**
 * A router that cannot exist on this machine (MIPS, a hardware offload engine), running the
 * shipped agent's protocol code: the ControllerLink, and the ApplyManager with its outbox
 * (results kept until the controller's Ack), commit-confirm window, rollbacks and Commands,
 * over a RouterHost made of a captured file tree (agent/sim/simulated-host.ts). What is
 * simulated is only what needs a kernel or a device, each named so: the datapath
 * (agent/sim/simulated-datapath.ts), its counters and the offload engine's flows
 * (agent/sim/simulated-telemetry.ts), the flash the agent state lives on
 * (agent/sim/simulated-flash.ts), a reboot, and the capability probe. Plans are the real
 * plan function's, shared by the routers of a model (agent/sim/simulated-plans.ts).
 */
export class SimulatedRouter {
  readonly link: ControllerLink;
  /** The router's agent; a simulated reboot starts a new one over the same flash. */
  manager: ApplyManager;
  /** Commands answered, in order (tests read what each one did). */
  readonly commands: { kind: Command_Kind; commandId: string; ok: boolean; output: string }[] = [];
  /** Simulated reboots so far. */
  reboots = 0;
  /** What each apply came to, in order (a re-delivery of what already runs is not one). */
  readonly history: { profile: string; revision: number; status: 'applied' | 'failed' | 'rolled_back' | 'refused' }[] =
    [];
  confirmations = 0;
  /** The last desired state the controller sent (tests read what was delivered). */
  lastDesired: DesiredState | undefined;
  /** The datapath counters its telemetry reports (simulated: no programs run here). */
  readonly counters: SimulatedCounters;
  private readonly host: SimulatedRouterHost;
  private readonly flash = new SimulatedFlash();
  private readonly datapath: SimulatedDatapath;
  private readonly telemetry: SimulatedTelemetry;
  private facts: RouterFacts | undefined;
  private ready: Promise<void> = Promise.resolve();
  /** Each command's kind by its seq, until answered (CommandResult does not carry it); made on the first command. */
  private commandKinds: Map<number, Command_Kind> | undefined;

  constructor(private readonly options: SimulatedRouterOptions) {
    this.facts = options.facts;
    this.counters = options.counters ?? new SimulatedCounters();
    this.host = new SimulatedRouterHost(options.root, `the simulated router ${options.identity}`, () => this.reboot());
    this.datapath = new SimulatedDatapath({
      wan: () => this.wan(),
      counters: this.counters,
      applyDelayMs: options.applyDelayMs,
    });
    this.link = new ControllerLink({
      address: options.controller,
      homeKey: options.identity,
      credentials: options.credentials,
      reconnect: options.reconnect,
      hello: () => this.hello(),
    });
    this.telemetry = new SimulatedTelemetry(this.link, this.counters, () =>
      simulatedLive(this.datapath.plan, this.wan()),
    );
    this.manager = this.startAgent();
    this.link.on('welcome', (w: { telemetryIntervalSeconds: number }) => {
      // Results never acked on the last stream go again, then what waited for a stream.
      void this.manager.onSession();
      this.telemetry.start(this.options.telemetryIntervalMs ?? w.telemetryIntervalSeconds * 1000);
    });
    this.link.on('message', (m: ControllerMessage) => void this.onMessage(m));
  }

  /** A new agent over the flash (at start, and after a simulated reboot): it reads its state back, as on a router. */
  private startAgent(): ApplyManager {
    const manager = new ApplyManager({
      host: this.host,
      store: this.flash,
      datapath: this.datapath,
      router: () => this.planRouter(),
      plan: async (desired, router) => {
        const { facts } = await this.known();
        // Set for this apply alone: the manager's queue runs its transaction next, before any other.
        this.datapath.failNext = scripted.get(desired) === 'fail';
        return sharedPlanner(facts)(desired, router);
      },
      reprobe: async () => simulatedProbe((await this.known()).predicted),
      send: (body) => this.link.send(body),
      log: this.options.log,
    });
    manager.on('result', (v: ApplyResultValue) => this.recordResult(v));
    manager.on('confirmed', () => this.confirmations++);
    manager.on('command', (v: CommandResult) => this.recordCommand(v));
    this.ready = manager.init();
    return manager;
  }

  private recordResult(v: ApplyResultValue): void {
    if ((v.evidence as { unchanged?: boolean }).unchanged) return;
    this.history.push({
      profile: v.profile,
      revision: v.revision,
      status: HISTORY_STATUS[v.status as keyof typeof HISTORY_STATUS] ?? 'failed',
    });
  }

  private recordCommand(v: CommandResult): void {
    const kind = this.commandKinds?.get(v.commandSeq) ?? Command_Kind.KIND_UNSPECIFIED;
    this.commandKinds?.delete(v.commandSeq);
    this.commands.push({ kind, commandId: v.commandId, ok: v.ok, output: v.output });
  }

  /** The router's facts (read from its tree once, unless the fleet shares them) and what they predict. */
  private async known(): Promise<{ facts: RouterFacts; predicted: PredictedCapabilities }> {
    this.facts ??= await collectFacts(this.host);
    return { facts: this.facts, predicted: sharedPrediction(this.facts) };
  }

  private async planRouter(): Promise<PlanRouter> {
    const { facts, predicted } = await this.known();
    return { facts, capabilities: { predicted, probed: null } };
  }

  private wan(): string {
    return this.facts?.network.wan[0] ?? 'wan';
  }

  /**
   * A simulated reboot (the agent ran `reboot`): the kernel's datapath is lost, the boot id
   * changes, the stream drops; a new agent starts over the flash, and the shipped reboot
   * handling (agent/apply/reboot.ts) puts the applied plan back, or rolls an unconfirmed one
   * back. The router dials again after the reboot's time.
   */
  private reboot(): void {
    this.reboots++;
    this.manager.stop();
    this.datapath.lose();
    this.host.newBoot();
    this.link.drop(this.options.rebootDelayMs ?? REBOOT_AWAY_MS);
    this.manager = this.startAgent();
  }

  private async onMessage(message: ControllerMessage): Promise<void> {
    await this.ready;
    const body = message.body;
    if (body?.$case === 'desiredState') {
      this.lastDesired = body.value;
      this.options.log?.(`received ${body.value.profile}@${body.value.revision}`);
      const outcome = this.options.outcome?.(body.value) ?? 'apply';
      if (outcome === 'silent') return;
      const window = this.options.confirmWindowSeconds;
      const desired = window === undefined ? body.value : { ...body.value, confirmWindowSeconds: Math.max(1, window) };
      scripted.set(desired, outcome);
      return this.settle(
        deliverToManager(this.manager, { ...message, body: { $case: 'desiredState', value: desired } }),
      );
    }
    if (body?.$case === 'command') return this.command(message, body.value);
    return this.settle(deliverToManager(this.manager, message));
  }

  /** A command as tests script it: answered by the agent, failed, or never answered. */
  private async command(message: ControllerMessage, command: Command): Promise<void> {
    const scripted: SimulatedCommandOutcome = this.options.commandOutcome?.(command) ?? 'ok';
    if (scripted === 'silent') return;
    if (this.options.commandDelayMs) await new Promise((r) => setTimeout(r, this.options.commandDelayMs));
    if (scripted === 'fail') {
      const value = commandResultValue(
        message.seq,
        command,
        failed(`simulated failure of ${Command_Kind[command.kind]}`),
      );
      this.commands.push({ kind: command.kind, commandId: value.commandId, ok: false, output: value.output });
      this.link.send({ $case: 'commandResult', value });
      return;
    }
    (this.commandKinds ??= new Map()).set(message.seq, command.kind);
    return this.settle(deliverToManager(this.manager, message));
  }

  private settle(work: Promise<void>): Promise<void> {
    return work.catch((err: unknown) => this.options.log?.(`handling a controller message: ${(err as Error).message}`));
  }

  private async hello() {
    await this.ready;
    const { facts, predicted } = await this.known();
    return helloMessage({
      identity: this.options.identity,
      name: this.options.name,
      placement: 'proxy',
      facts,
      predicted,
      applied: this.manager.appliedRevision(),
      live: liveStateMessage(simulatedLive(this.datapath.plan, this.wan())),
    });
  }

  /** What the agent reports as applied (pendingConfirm while its window is open). */
  get applied(): AppliedRevision | undefined {
    return this.manager.appliedRevision();
  }

  get root(): string {
    return this.options.root;
  }

  /** The router's identity (`sim.<model>:<serial>`). */
  get identity(): string {
    return this.options.identity;
  }

  /**
   * Holds the periodic samples (tests): a test that moves the shared clock lets the samples in
   * flight land first, or one read before the move and stamped after it would carry the move's
   * packets as a spike.
   */
  pauseTelemetry(paused: boolean): void {
    this.telemetry.paused = paused;
  }

  /** One telemetry sample now (false: not connected). */
  sendTelemetry(): boolean {
    return this.telemetry.send();
  }

  /** A simulated reboot or re-attach as its counters see it: every one back to zero. */
  resetCounters(): void {
    this.counters.reset();
  }

  start(): void {
    this.link.start();
  }

  async stop(): Promise<void> {
    this.telemetry.stop();
    this.manager.stop();
    await this.link.stop();
    await this.manager.idle().catch(() => undefined);
  }
}
