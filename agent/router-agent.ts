import { createHash } from 'node:crypto';
import type { ChannelCredentials } from '@grpc/grpc-js';
import { DatapathState_Mode, type LiveState as LiveStateMessage } from '../proto/gen/wrtfleet/agent/v1/agent.js';
import { forgetOffloadSupport, readLive, type DatapathPaths } from './apply/live.js';
import { ApplyManager } from './apply/manager.js';
import { readBootId } from './apply/reboot.js';
import { FileStateStore, MemoryStateStore, type StateStore } from './apply/state-store.js';
import type { TransactionOptions } from './apply/transaction.js';
import { predictCapabilities, type PredictedCapabilities } from '../core/capabilities.js';
import { ControllerLink, type Refusal } from './controller-link.js';
import type { ReconnectPolicy } from './reconnect-policy.js';
import { DriftWatcher } from './drift/index.js';
import { tcxHelperBinaryFor } from './datapath/programs.js';
import { collectFacts, type RouterFacts } from '../core/facts/index.js';
import { helloMessage } from './hello.js';
import { FixtureHost } from './sim/fixture-host.js';
import { FirmwareUpgrader, type FirmwareUpgraderOptions } from './firmware/firmware-upgrader.js';
import { waitForRouterReturn, type RouterReturnOptions } from './firmware/router-return.js';
import type { FirmwareUpgrade } from '../proto/gen/wrtfleet/agent/v1/firmware.js';
import type { RouterHost } from '../core/host/router-host.js';
import { deriveRouterIdentity } from '../core/identity.js';
import type { PlanRouter } from '../core/plan.js';
import { probeCapabilities, type ProbedCapabilities } from './probe/index.js';
import { collectTelemetry, offloadStateMessage } from './telemetry/index.js';

export interface RouterAgentOptions {
  host: RouterHost;
  controller: string;
  credentials?: ChannelCredentials | (() => ChannelCredentials);
  placement: 'on_router' | 'proxy';
  /** Overrides the identity derived from the hardware. */
  identity?: string;
  /** Human name; defaults to the identity. */
  name?: string;
  reconnect?: Partial<ReconnectPolicy>;
  /** For a proxy: the host the agent runs on (reported in Hello, never a secret). */
  proxyHost?: string;
  /** Where applied/pending state is kept (survives restarts); default in memory only. */
  stateFile?: string;
  store?: StateStore;
  /** Datapath locations on the router (pin root, wf-tcx path, upload dir). */
  paths?: DatapathPaths;
  /** Probe capabilities on the device (default: yes, except for fixture trees, which cannot run anything). */
  probe?: boolean;
  /** Drift-check interval override (default: the applied profile's drift.intervalSeconds). */
  driftIntervalMs?: number;
  /**
   * How often the eligible WAN set is polled while a datapath plan is applied, so a WAN that
   * comes up late gets the datapath (default 5000; 0: never). Only where the agent probes.
   */
  wanWatchMs?: number;
  /** Telemetry interval override (default: Welcome.telemetryIntervalSeconds). */
  telemetryIntervalMs?: number;
  /** Test hooks for every transaction. */
  transaction?: Pick<TransactionOptions, 'afterDatapath'>;
  /** Firmware upgrades: where the image goes, the transfer's retries; a proxy's wait for its router after the flash. */
  firmware?: Pick<FirmwareUpgraderOptions, 'imagePath' | 'transfer'> & {
    routerReturn?: Omit<RouterReturnOptions, 'bootIdBefore' | 'signal' | 'log'>;
  };
  log?: (message: string) => void;
}

/**
 * One managed router: learns what the router is (through its RouterHost, so the same code
 * serves the on-router and proxy placements and simulated fixtures), keeps it connected to
 * the controller, and applies what the controller asks (ApplyManager). Facts are collected
 * again on every (re)connection, so a router that was upgraded while the controller was
 * away reports its new kernel in the next Hello.
 */
export class RouterAgent {
  readonly link: ControllerLink;
  readonly manager: ApplyManager;
  facts: RouterFacts | undefined;
  capabilities: PredictedCapabilities | undefined;
  probed: ProbedCapabilities | undefined;
  identity: string | undefined;
  private ready: Promise<void> | undefined;
  private drift: DriftWatcher | undefined;
  private telemetryTimer: NodeJS.Timeout | undefined;
  private telemetryInFlight: Promise<boolean> | undefined;
  private readonly probeEnabled: boolean;
  readonly firmware: FirmwareUpgrader;
  /** A proxy's wait for its router after a flash: the next Hello waits for it. */
  private routerReturn: Promise<void> | undefined;
  private readonly stopping = new AbortController();

  /** Datapath locations, one object shared with the ApplyManager (a proxy fills in the helper it installs). */
  private readonly paths: DatapathPaths;
  /** The helper path the operator configured; absent, a proxy installs its own. */
  private readonly configuredHelper: string | undefined;

  constructor(private readonly options: RouterAgentOptions) {
    this.paths = { ...options.paths };
    this.configuredHelper = options.paths?.helper;
    this.probeEnabled = options.probe ?? !(options.host instanceof FixtureHost);
    const store = options.store ?? (options.stateFile ? new FileStateStore(options.stateFile) : new MemoryStateStore());
    this.link = new ControllerLink({
      address: options.controller,
      // Enrolled agents know their identity up front; the others pick a home at random.
      homeKey: options.identity,
      credentials: options.credentials,
      reconnect: options.reconnect,
      hello: () => this.buildHello(),
    });
    this.manager = new ApplyManager({
      host: options.host,
      store,
      paths: this.paths,
      router: () => this.planRouter(),
      reprobe: this.probeEnabled
        ? async () => {
            await this.probe();
            return this.probed;
          }
        : undefined,
      send: (body) => this.link.send(body),
      log: options.log,
      transaction: options.transaction,
      wanWatch: this.probeEnabled && options.wanWatchMs !== 0 ? { intervalMs: options.wanWatchMs } : undefined,
    });
    this.firmware = new FirmwareUpgrader({
      host: options.host,
      download: (request, signal) => this.link.downloadFirmware(request, signal),
      send: (value) => void this.link.send({ $case: 'firmwareProgress', value }),
      imagePath: options.firmware?.imagePath,
      transfer: options.firmware?.transfer,
      log: (message) => this.log(message),
    });
    this.link.on('welcome', (w: { telemetryIntervalSeconds: number }) => {
      void this.manager.onSession();
      this.startTelemetry(w.telemetryIntervalSeconds);
    });
    this.link.on(
      'message',
      (message) =>
        void this.onMessage(message).catch((err: unknown) =>
          this.log(`handling ${message.body?.$case}: ${(err as Error).message}`),
        ),
    );
    // A link error (e.g. Hello could not be built because SSH is down) is retried by the link itself.
    this.link.on('error', (err: Error) => this.log(`link: ${err.message}`));
    // Refused for good (revoked, decommissioned): said once, with what to do; the link stops dialling.
    this.link.on('refused', (r: Refusal) => this.log(r.message));
  }

  private log(message: string): void {
    this.options.log?.(`${this.identity ?? this.options.identity ?? this.options.host.description}: ${message}`);
  }

  private async onMessage(message: { seq: number; body?: { $case: string; value: unknown } }): Promise<void> {
    await this.ready;
    const body = message.body;
    if (!body) return;
    switch (body.$case) {
      case 'desiredState':
        await this.manager.onDesiredState(body.value as never);
        break;
      case 'confirmApply':
        await this.manager.onConfirm(body.value as never);
        break;
      case 'command':
        await this.manager.onCommand(message.seq, body.value as never);
        break;
      case 'ack':
        await this.manager.onAck((body.value as { agentSeq: number }).agentSeq);
        break;
      case 'firmwareUpgrade':
        await this.upgradeFirmware(body.value as FirmwareUpgrade);
        break;
      default:
        break;
    }
  }

  /**
   * Runs a firmware upgrade. The on-router agent dies with the flash and starts again with the
   * router. A proxy outlives it: it closes its stream, waits for the router to come back with
   * another boot id, and says Hello again with the facts collected afresh (new release, kernel).
   */
  private async upgradeFirmware(upgrade: FirmwareUpgrade): Promise<void> {
    const bootIdBefore = this.firmware.active ? null : (await readBootId(this.options.host)).id;
    const proxy = this.options.placement === 'proxy';
    await this.firmware.handle(upgrade);
    if (!proxy || this.firmware.active?.upgradeId !== upgrade.upgradeId || !this.firmware.active.flashing) return;
    if (this.routerReturn) return;
    this.routerReturn = waitForRouterReturn(this.options.host, {
      ...this.options.firmware?.routerReturn,
      bootIdBefore,
      signal: this.stopping.signal,
      log: (message) => this.log(message),
    })
      .then(
        (r) => this.log(`the router is back after ${Math.round(r.waitedMs / 1000)} s (boot id ${r.bootId})`),
        (err: unknown) => this.log(`after the flash: ${(err as Error).message}`),
      )
      .finally(() => {
        this.routerReturn = undefined;
        this.firmware.routerReturned();
        // Another kernel may run now: probe again before the next plan.
        this.probed = undefined;
      });
    // Nothing to say until the router is back: the next stream's Hello waits for it (buildHello).
    this.link.drop(0);
  }

  private async probe(): Promise<void> {
    forgetOffloadSupport(this.options.host);
    if (this.options.placement === 'proxy' && !this.configuredHelper) await this.installTcxHelper();
    this.probed = await probeCapabilities(this.options.host, { ...this.paths, endian: this.facts?.endian });
  }

  /**
   * A proxy brings wf-tcx to its router, as it brings the BPF objects: the build for the
   * router's CPU (bpf/build, the static cross builds for MIPS and aarch64) goes to the upload
   * directory, once per content (compared by SHA-256 on the router). Without it the probe
   * could not load a program (wf-tcx mounts bpffs and pins) and TCX could not be used.
   * Routers with no build of ours keep the probe's explanation.
   */
  private async installTcxHelper(): Promise<void> {
    const binary = tcxHelperBinaryFor(this.facts?.arch, this.facts?.endian);
    if (!binary) return;
    const target = `${this.paths.uploadDir ?? '/tmp'}/wrtfleet-wf-tcx`;
    const sha = createHash('sha256').update(binary).digest('hex');
    const there = await this.options.host.run(['sha256sum', target]);
    if (!(there.code === 0 && there.stdout.startsWith(sha))) {
      await this.options.host.writeFile(target, binary, 0o755);
      this.log(`installed wf-tcx (${binary.length} bytes, ${this.facts?.arch ?? 'this CPU'}) at ${target}`);
    }
    this.paths.helper = target;
  }

  private async planRouter(): Promise<PlanRouter> {
    if (!this.facts) {
      this.facts = await collectFacts(this.options.host);
      this.capabilities = predictCapabilities(this.facts);
    }
    if (this.probeEnabled && !this.probed) await this.probe();
    return {
      facts: this.facts,
      capabilities: {
        predicted: this.capabilities,
        probed: this.probed ? { ...this.probed.flags, reasons: this.probed.reasons } : null,
      },
    };
  }

  private async liveMessage(): Promise<LiveStateMessage | undefined> {
    if (!this.probeEnabled) return undefined;
    const live = await readLive(this.options.host, this.paths);
    const ebpf = live.ebpf.interfaces;
    const mode =
      ebpf.length > 0
        ? ebpf[0]!.mode === 'tcx'
          ? DatapathState_Mode.MODE_TCX
          : DatapathState_Mode.MODE_CLS_BPF
        : live.nft.present
          ? DatapathState_Mode.MODE_NFTABLES
          : live.iptables.present
            ? DatapathState_Mode.MODE_IPTABLES
            : DatapathState_Mode.MODE_NONE;
    return {
      datapath: {
        mode,
        interfaces:
          ebpf.length > 0
            ? ebpf.map((i) => i.ifname)
            : live.nft.present
              ? live.nft.interfaces
              : live.iptables.interfaces,
        programs: [...new Set(ebpf.flatMap((i) => i.programs.map((p) => p.program)))],
      },
      offload: offloadStateMessage(live.offload),
    };
  }

  private async buildHello() {
    await this.ready;
    await this.routerReturn;
    const facts = await collectFacts(this.options.host);
    const predicted = predictCapabilities(facts);
    const kernelChanged = this.facts && this.facts.kernel !== facts.kernel;
    this.facts = facts;
    this.capabilities = predicted;
    if (this.probeEnabled && (!this.probed || kernelChanged)) await this.probe();
    this.identity ??= this.options.identity ?? (await deriveRouterIdentity(this.options.host, facts));
    return helloMessage({
      identity: this.identity,
      name: this.options.name ?? this.identity,
      placement: this.options.placement,
      proxyHost: this.options.proxyHost,
      facts,
      predicted,
      probed: this.probed ? this.probedForHello(predicted) : undefined,
      applied: this.manager.appliedRevision(),
      live: await this.liveMessage().catch(() => undefined),
      bootId: (await readBootId(this.options.host)).id,
    });
  }

  /**
   * The probed set as the contract carries it: four flags. Hardware offload cannot be probed
   * without switching it on (fw4 checks at reload), so where the probe left a flag open the
   * prediction stands in and the reason says so.
   */
  private probedForHello(predicted: PredictedCapabilities) {
    const names = ['hardwareOffload', 'softwareOffload', 'ebpf', 'tcx'] as const;
    const flags = Object.fromEntries(names.map((n) => [n, this.probed!.flags[n] ?? predicted[n]])) as Record<
      (typeof names)[number],
      boolean
    >;
    const reasons = Object.fromEntries(
      names.map((n) => [
        n,
        this.probed!.reasons[n] ??
          `not probed on the device (${n === 'hardwareOffload' ? 'fw4 checks it only when it is switched on' : 'no probe'}); predicted: ${predicted.reasons[n]}`,
      ]),
    );
    return { flags, reasons };
  }

  private startTelemetry(intervalSeconds: number): void {
    clearInterval(this.telemetryTimer);
    if (!this.probeEnabled) return;
    const ms = this.options.telemetryIntervalMs ?? (intervalSeconds > 0 ? intervalSeconds * 1000 : 0);
    if (ms <= 0) return;
    this.telemetryTimer = setInterval(() => void this.sendTelemetry(), ms);
    this.telemetryTimer.unref();
  }

  /**
   * One sample, collected and sent. At most one at a time: a collection slower than the
   * interval would otherwise overlap the next, and a reading taken earlier but sent later
   * looks like a counter reset to the controller. It runs in the apply queue, so it never
   * reads a datapath half replaced (an apply's programs missing from the sample).
   */
  sendTelemetry(): Promise<boolean> {
    this.telemetryInFlight ??= this.collectAndSendTelemetry().finally(() => (this.telemetryInFlight = undefined));
    return this.telemetryInFlight;
  }

  private async collectAndSendTelemetry(): Promise<boolean> {
    try {
      const endian = this.facts?.endian === 'big' ? 'bpfeb' : 'bpfel';
      const telemetry = await this.manager.exclusive(() =>
        collectTelemetry(this.options.host, { ...this.paths, endian }),
      );
      return this.link.send({ $case: 'telemetry', value: telemetry }) > 0;
    } catch (err) {
      this.log(`telemetry: ${(err as Error).message}`);
      return false;
    }
  }

  start(): void {
    this.ready ??= this.manager.init();
    if (this.probeEnabled) {
      this.drift = new DriftWatcher(this.manager, {
        intervalMs: this.options.driftIntervalMs,
        onError: (err) => this.log(`drift check: ${err.message}`),
      });
      this.drift.start();
    }
    this.link.start();
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    this.drift?.stop();
    clearInterval(this.telemetryTimer);
    this.manager.stop();
    await this.link.stop();
    await this.manager.idle().catch(() => undefined);
    await this.options.host.close();
  }
}
