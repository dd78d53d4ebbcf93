import type { ChannelCredentials } from '@grpc/grpc-js';
import type { ReconnectPolicy } from '../reconnect-policy.js';
import type { RouterFacts } from '../../core/facts/index.js';
import type { SimulatedCommandOutcome } from './simulated-commands.js';
import type { SimulatedCounters } from './simulated-counters.js';
import type { SimulatedFirmwareOptions } from './simulated-firmware-script.js';
import type { Command, DesiredState } from '../../proto/gen/wrtfleet/agent/v1/agent.js';

/** How a simulated router answers a desired state (tests script failures with it). */
export type SimulatedOutcome = 'apply' | 'fail' | 'silent';

export interface SimulatedRouterOptions {
  /** A captured router tree (fixtures/routers/<model>). */
  root: string;
  controller: string;
  identity: string;
  name: string;
  reconnect?: Partial<ReconnectPolicy>;
  /** Decides each apply's outcome; default: apply. */
  outcome?: (desired: DesiredState) => SimulatedOutcome;
  /** Simulated time an apply takes on the router. */
  applyDelayMs?: number;
  /** Facts shared between routers of one model, so a fleet of thousands reads each tree once. */
  facts?: RouterFacts;
  /** mTLS credentials from enrollment (agent/enrollment); absent only against an insecure controller. */
  credentials?: ChannelCredentials | (() => ChannelCredentials);
  /** Decides each command's outcome; default: it runs. */
  commandOutcome?: (command: Command) => SimulatedCommandOutcome;
  /** Simulated time a command takes on the router. */
  commandDelayMs?: number;
  /** How long a simulated reboot keeps the router away (default 3 s). */
  rebootDelayMs?: number;
  /** Telemetry interval override (default: Welcome.telemetryIntervalSeconds). */
  telemetryIntervalMs?: number;
  /**
   * Overrides the commit-confirm window every DesiredState asks for (the spec's minimum is
   * 10 s): tests cut the network for longer than the window without waiting that long.
   */
  confirmWindowSeconds?: number;
  /** What the router does with its applies (received, applied, rolled back), for a log. */
  log?: (message: string) => void;
  /** The datapath counters telemetry reports; pass one to continue another instance's (a router that moved). */
  counters?: SimulatedCounters;
  /** Firmware upgrades: room, transfer speed, reboot time and the script of each (simulated-firmware-script.ts). */
  firmware?: SimulatedFirmwareOptions;
}
