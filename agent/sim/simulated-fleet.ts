import { basename } from 'node:path';
import type { ReconnectPolicy } from '../controller-link.js';
import { enrollConcurrently, keepRenewed, type AgentCredentials } from '../enrollment/agent-credentials.js';
import { collectFacts, type RouterFacts } from '../../core/facts/index.js';
import { FixtureHost } from './fixture-host.js';
import { SimulatedRouter, type SimulatedOutcome } from './simulated-router.js';
import type { Command, DesiredState } from '../../proto/gen/wrtfleet/agent/v1/agent.js';
import type { SimulatedCommandOutcome } from './simulated-commands.js';

export interface SimulatedFleetOptions {
  controller: string;
  fixtureRoots: string[];
  perModel: number;
  /** The first serial of each model (default 1): fleets started apart get identities apart. */
  firstSerial?: number;
  reconnect?: Partial<ReconnectPolicy>;
  /** Scripted outcomes per router (tests); default: every apply succeeds. */
  outcome?: (identity: string, desired: DesiredState) => SimulatedOutcome;
  /** Simulated time an apply takes: one for every router, or per router (tests mix fast and slow ones). */
  applyDelayMs?: number | ((identity: string) => number);
  /** Scripted command outcomes per router (tests); default: every command runs. */
  commandOutcome?: (identity: string, command: Command) => SimulatedCommandOutcome;
  commandDelayMs?: number;
  /** How long a simulated reboot keeps a router away. */
  rebootDelayMs?: number;
  /** Enrolls each router (one certificate per router, as a proxy holds them); absent: plaintext, insecure controllers only. */
  credentialsFor?: (identity: string, name: string) => Promise<AgentCredentials>;
  /** Telemetry interval override for every router (default: the controller's Welcome). */
  telemetryIntervalMs?: number;
  /** Commit-confirm window override for every router (SimulatedRouterOptions.confirmWindowSeconds). */
  confirmWindowSeconds?: number;
  /** Each router's apply log, its name first. */
  log?: (message: string) => void;
}

/**
 * A fleet of simulated routers (MIPS and ARM routers cannot exist on this machine): each
 * has its own gRPC stream and answers desired states with the real plan function, reading a
 * captured router file tree instead of a device. Identities are the model plus a synthetic
 * serial, so they are stable across demo restarts.
 */
export async function startSimulatedFleet(options: SimulatedFleetOptions): Promise<SimulatedRouter[]> {
  const routers: SimulatedRouter[] = [];
  // Enrollment starts for every router at once (a few in flight), not one after another.
  const enrolled = enrollConcurrently(
    options.fixtureRoots.flatMap((root) =>
      serials(options).map((serial) => ({
        identity: `sim.${basename(root)}:${serial}`,
        name: `${basename(root)}-${serial}`,
      })),
    ),
    options.credentialsFor,
  );
  for (const root of options.fixtureRoots) {
    const model = basename(root);
    const facts: RouterFacts = await collectFacts(new FixtureHost(root));
    for (const serial of serials(options)) {
      const identity = `sim.${model}:${serial}`;
      const credentials = await enrolled.get(identity);
      const router = new SimulatedRouter({
        root,
        facts,
        controller: options.controller,
        identity,
        name: `${model}-${serial}`,
        reconnect: options.reconnect,
        credentials: credentials?.linkCredentials,
        applyDelayMs:
          typeof options.applyDelayMs === 'function' ? options.applyDelayMs(identity) : options.applyDelayMs,
        telemetryIntervalMs: options.telemetryIntervalMs,
        outcome: options.outcome ? (desired) => options.outcome!(identity, desired) : undefined,
        commandOutcome: options.commandOutcome ? (command) => options.commandOutcome!(identity, command) : undefined,
        commandDelayMs: options.commandDelayMs,
        rebootDelayMs: options.rebootDelayMs,
        confirmWindowSeconds: options.confirmWindowSeconds,
        log: options.log ? (message) => options.log!(`${identity}: ${message}`) : undefined,
      });
      if (credentials) keepRenewed(router.link, credentials);
      router.start();
      routers.push(router);
    }
  }
  return routers;
}

/** The synthetic serials of each model: 001, 002, ... from firstSerial. */
function serials({ perModel, firstSerial = 1 }: SimulatedFleetOptions): string[] {
  return Array.from({ length: perModel }, (_, i) => String(firstSerial + i).padStart(3, '0'));
}

export async function stopFleet(routers: { stop(): Promise<void> }[]): Promise<void> {
  await Promise.all(routers.map((r) => r.stop()));
}
