import { setTimeout as sleep } from 'node:timers/promises';
import { predictCapabilities } from '../../core/capabilities.js';
import { ControllerLink } from '../controller-link.js';
import { collectFacts, type RouterFacts } from '../../core/facts/index.js';
import { helloMessage } from '../hello.js';
import { ApplyManager } from '../apply/manager.js';
import type { ApplyResultValue } from '../apply/apply-result.js';
import { FixtureHost } from './fixture-host.js';
import { SimulatedCounters } from './simulated-counters.js';
import { SimulatedDatapath } from './simulated-datapath.js';
import { simulatedLiveState, simulatedTelemetry } from './simulated-live.js';
import { simulatedPlan } from './simulated-plans.js';
import { HeldStateStore } from './simulated-state-store.js';
import type { SimulatedRouterOptions } from './simulated-router-options.js';
export type { SimulatedOutcome, SimulatedRouterOptions } from './simulated-router-options.js';
import {
  ApplyResult_Status,
  Command_Kind,
  type AppliedRevision,
  type Command,
  type CommandResult,
  type ControllerMessage,
  type DesiredState,
} from '../../proto/gen/wrtfleet/agent/v1/agent.js';
import { simulatedCommandRunner, type SimulatedCommandOutcome } from './simulated-commands.js';
import { FirmwareUpgrader } from '../firmware/firmware-upgrader.js';
import type { FirmwareUpgrade } from '../../proto/gen/wrtfleet/agent/v1/firmware.js';
import { SimulatedFirmwareHost, type SimulatedFlash } from './simulated-firmware-host.js';
import {
  kernelForRelease,
  type SimulatedFirmwareEnding,
  type SimulatedFirmwareScript,
} from './simulated-firmware-script.js';

/** What each ApplyResult did, as the tests read a router's history. */
type HistoryStatus = 'applied' | 'failed' | 'rolled_back' | 'refused';
const HISTORY_STATUS: Partial<Record<ApplyResult_Status, HistoryStatus>> = {
  [ApplyResult_Status.STATUS_APPLIED]: 'applied',
  [ApplyResult_Status.STATUS_FAILED]: 'failed',
  [ApplyResult_Status.STATUS_ROLLED_BACK]: 'rolled_back',
  [ApplyResult_Status.STATUS_REFUSED]: 'refused',
};

/**
 * A router that cannot exist on this machine (MIPS, a hardware offload engine), simulated
 * above the kernel: its facts come from a captured file tree, its agent speaks the real gRPC
 * protocol and runs the agent's own ApplyManager (the apply queue, the outbox of results kept
 * until the controller's Ack, the commit-confirm window and its rollbacks, the commands),
 * with a simulated datapath behind it (agent/sim/simulated-datapath.ts) in place of the
 * kernel work. Plans are the real ones, resolved once per model and spec (simulated-plans.ts).
 */
export class SimulatedRouter {
  readonly link: ControllerLink;
  /** The agent's own apply protocol, over the simulated datapath. */
  readonly manager: ApplyManager;
  /** Commands answered, in order (tests read what each one did). */
  readonly commands: { kind: Command_Kind; commandId: string; ok: boolean; output: string }[] = [];
  /** Simulated reboots so far. */
  reboots = 0;
  /** Every change reported (an unchanged re-delivery is not one), in order. */
  readonly history: { profile: string; revision: number; status: HistoryStatus }[] = [];
  confirmations = 0;
  /** The last desired state the controller sent (tests read what was delivered). */
  lastDesired: DesiredState | undefined;
  /** The datapath counters its telemetry reports (simulated: no programs run here). */
  readonly counters: SimulatedCounters;
  private readonly datapath: SimulatedDatapath;
  private readonly ready: Promise<void>;
  private facts: RouterFacts | undefined;
  /** Desired states go to the manager one after another, each after its scripted outcome is decided. */
  private applying: Promise<void> = Promise.resolve();
  /** The scripted outcome of each command received, read when the manager runs it. */
  private readonly scripted = new WeakMap<Command, SimulatedCommandOutcome>();
  /** The kind of each command being run, by id (its CommandResult does not say). */
  private readonly kinds = new Map<string, Command_Kind>();
  private telemetryTimer: NodeJS.Timeout | undefined;
  private telemetryPaused = false;
  /** The agent's own firmware upgrader, over a simulated router (simulated-firmware-host.ts). */
  readonly firmware: FirmwareUpgrader;
  /** Every flash, in order: what was flashed and how the router came back (tests read it). */
  readonly flashes: (SimulatedFlash & { upgradeId: string; ending: SimulatedFirmwareEnding })[] = [];
  private firmwareScript: SimulatedFirmwareScript = {};
  private flashingUpgrade: FirmwareUpgrade | undefined;

  constructor(private readonly options: SimulatedRouterOptions) {
    this.facts = options.facts;
    this.counters = options.counters ?? new SimulatedCounters();
    this.link = new ControllerLink({
      address: options.controller,
      homeKey: options.identity,
      credentials: options.credentials,
      reconnect: options.reconnect,
      hello: () => this.hello(),
    });
    this.datapath = new SimulatedDatapath({
      wan: () => this.wan(),
      counters: this.counters,
      applied: () => this.applied,
    });
    this.manager = new ApplyManager({
      host: new FixtureHost(options.root),
      store: new HeldStateStore(),
      router: async () => ({ facts: await this.routerFacts() }),
      send: (body) => this.link.send(body),
      datapath: this.datapath,
      plan: simulatedPlan,
      runCommand: simulatedCommandRunner({
        delayMs: options.commandDelayMs,
        scripted: (command) => this.scripted.get(command) ?? 'ok',
        reboot: () => {
          this.reboots++;
          this.link.drop(options.rebootDelayMs ?? 3_000);
        },
      }),
    });
    this.firmware = new FirmwareUpgrader({
      host: new SimulatedFirmwareHost({
        ...options.firmware,
        facts: () => this.facts,
        scripted: () => this.firmwareScript,
        onFlash: (flash) => setTimeout(() => void this.rebootInto(flash), 100).unref(),
      }),
      download: (request, signal) => this.link.downloadFirmware(request, signal),
      send: (value) => void this.link.send({ $case: 'firmwareProgress', value }),
      onFlashing: (upgrade) => (this.flashingUpgrade = upgrade),
      log: options.log,
    });
    this.manager.on('result', (value: ApplyResultValue) => this.recordResult(value));
    this.manager.on('confirmed', () => this.confirmations++);
    this.manager.on('command', (v: CommandResult) => {
      this.commands.push({ kind: this.kinds.get(v.commandId)!, commandId: v.commandId, ok: v.ok, output: v.output });
      this.kinds.delete(v.commandId);
    });
    this.ready = this.manager.init();
    this.link.on('message', (m: ControllerMessage) => void this.onMessage(m));
    this.link.on('welcome', (w: { telemetryIntervalSeconds: number }) => {
      // Results never acked on the last stream first: they may have died with it.
      void this.manager.onSession();
      this.startTelemetry(w.telemetryIntervalSeconds);
    });
  }

  private recordResult(value: ApplyResultValue): void {
    const status = HISTORY_STATUS[value.status];
    if (!status || (value.evidence as { unchanged?: boolean }).unchanged) return;
    this.history.push({ profile: value.profile, revision: value.revision, status });
    this.logResult(value);
  }

  /**
   * The apply log (SimulatedRouterOptions.log): one line per change, in the words tests and the
   * demo read (`applied p@2; waiting 3 s for ConfirmApply`, `rolled back p@2: why; runs p@1`).
   */
  private logResult(value: ApplyResultValue): void {
    const log = this.options.log;
    const what = `${value.profile}@${value.revision}`;
    const evidence = value.evidence as {
      confirmWindowSeconds?: number;
      rolledBackTo?: { profile: string; revision: number } | null;
    };
    if (value.status === ApplyResult_Status.STATUS_APPLIED && evidence.confirmWindowSeconds)
      log?.(`applied ${what}; waiting ${evidence.confirmWindowSeconds} s for ConfirmApply`);
    if (value.status === ApplyResult_Status.STATUS_ROLLED_BACK) {
      const to = evidence.rolledBackTo;
      const reason = value.error.split(': rolled back to ')[0];
      log?.(
        `rolled back ${what}: ${reason}; runs ${to ? `${to.profile}@${to.revision}` : 'the state before wrtfleet applied anything'}`,
      );
    }
  }

  /** What the agent says is applied (its Hello's `applied`). */
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

  private async routerFacts(): Promise<RouterFacts> {
    return (this.facts ??= await collectFacts(new FixtureHost(this.options.root)));
  }

  private wan(): string {
    return this.facts?.network.wan[0] ?? 'wan';
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
    return this.link.send({ $case: 'telemetry', value: simulatedTelemetry(this.datapath.running, this.counters) }) > 0;
  }

  /** A simulated reboot or re-attach as its counters see it: every one back to zero. */
  resetCounters(): void {
    this.counters.reset();
  }

  private async hello() {
    await this.ready;
    const facts = await this.routerFacts();
    return helloMessage({
      identity: this.options.identity,
      name: this.options.name,
      placement: 'proxy',
      facts,
      predicted: predictCapabilities(facts),
      applied: this.applied,
      live: simulatedLiveState(this.datapath.running, this.wan()),
      bootId: (await this.datapath.bootId()).id,
    });
  }

  start(): void {
    this.link.start();
  }

  async stop(): Promise<void> {
    clearInterval(this.telemetryTimer);
    this.manager.stop();
    await this.link.stop();
  }

  private async onMessage(message: ControllerMessage): Promise<void> {
    await this.ready;
    const body = message.body;
    if (body?.$case === 'desiredState') {
      const desired = body.value;
      this.lastDesired = desired;
      this.applying = this.applying.then(() => this.apply(desired));
    }
    if (body?.$case === 'firmwareUpgrade') {
      // A repeated message must not change the script of the upgrade under way.
      if (!this.firmware.active) this.firmwareScript = this.options.firmware?.script?.(body.value) ?? {};
      void this.firmware.handle(body.value);
    }
    if (body?.$case === 'ack') void this.manager.onAck(body.value.agentSeq);
    if (body?.$case === 'confirmApply') void this.manager.onConfirm(body.value);
    if (body?.$case === 'command') {
      const scripted = this.options.commandOutcome?.(body.value) ?? 'ok';
      if (scripted === 'silent') return;
      this.scripted.set(body.value, scripted);
      this.kinds.set(body.value.commandId, body.value.kind);
      void this.manager.onCommand(message.seq, body.value);
    }
  }

  /**
   * After FLASHING (its message out first): the router goes away for the reboot time and comes
   * back as its script says (simulated-firmware-script.ts): a new boot, the datapath gone from
   * the kernel (the manager's reboot check re-applies the plan), the image's release and the
   * kernel it ships in the facts the next Hello reports. Without the configuration kept, the
   * agent's applied state is gone too.
   */
  private async rebootInto(flash: SimulatedFlash): Promise<void> {
    const scripted = this.firmwareScript.ending ?? 'returns';
    const ending = !flash.keepConfig && scripted === 'returns' ? 'config-reset' : scripted;
    this.flashes.push({ ...flash, upgradeId: this.flashingUpgrade?.upgradeId ?? '', ending });
    this.options.log?.(`flashing ${flash.release} (${flash.revision}): ${ending}`);
    clearInterval(this.telemetryTimer);
    if (ending === 'never-returns') {
      this.manager.stop();
      await this.link.stop();
      return;
    }
    this.link.drop(this.options.firmware?.rebootMs ?? 4_000);
    await this.manager.exclusive(async () => {
      this.datapath.boot();
      this.counters.reset();
      const facts = await this.routerFacts();
      if (ending !== 'old-release' && facts.openwrt)
        this.facts = {
          ...facts,
          kernel: kernelForRelease(flash.release) ?? facts.kernel,
          openwrt: { ...facts.openwrt, release: flash.release, revision: flash.revision },
        };
    });
    // The configuration is gone: the agent starts from nothing applied (HeldStateStore loads empty).
    if (ending === 'config-reset') await this.manager.init();
    // The agent's start after a reboot: the boot id changed, so the applied plan is put back.
    else void this.manager.checkDriftAndMaybeReapply();
    this.firmware.routerReturned();
  }

  /**
   * Hands a desired state to the manager with its scripted outcome: 'silent' never answers,
   * 'fail' fails the transaction (the router keeps what it ran). The outcome and the simulated
   * apply time are set in the manager's queue right before the apply, and the failure cleared
   * right after, so nothing else the manager runs sees them.
   */
  private async apply(desired: DesiredState): Promise<void> {
    this.options.log?.(`received ${desired.profile}@${desired.revision}`);
    const outcome = this.options.outcome?.(desired) ?? 'apply';
    if (outcome === 'silent') return;
    const window = this.options.confirmWindowSeconds;
    void this.manager.exclusive(async () => {
      this.datapath.failNext = outcome === 'fail';
      if (this.options.applyDelayMs) await sleep(this.options.applyDelayMs);
    });
    const applied = this.manager.onDesiredState(
      window === undefined ? desired : { ...desired, confirmWindowSeconds: Math.max(1, window) },
    );
    void this.manager.exclusive(async () => {
      this.datapath.failNext = false;
    });
    await applied.catch((err: unknown) => this.options.log?.(`apply failed: ${(err as Error).message}`));
  }
}
