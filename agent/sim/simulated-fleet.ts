import { basename } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Refusal } from '../controller-link.js';
import type { ReconnectPolicy } from '../reconnect-policy.js';
import { status as grpcStatus } from '@grpc/grpc-js';
import { enrollConcurrently, EnrollmentError, type AgentCredentials } from '../enrollment/agent-credentials.js';
import { keepRenewed } from '../enrollment/certificate-renewal.js';
import { collectFacts, type RouterFacts } from '../../core/facts/index.js';
import { FixtureHost } from './fixture-host.js';
import { SimulatedRouter, type SimulatedOutcome } from './simulated-router.js';
import type { Command, DesiredState } from '../../proto/gen/wrtfleet/agent/v1/agent.js';
import type { SimulatedCommandOutcome } from './simulated-commands.js';
import type { FirmwareUpgrade } from '../../proto/gen/wrtfleet/agent/v1/firmware.js';
import type { SimulatedFirmwareOptions, SimulatedFirmwareScript } from './simulated-firmware-script.js';

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
  /** Firmware upgrades on every router: room, transfer speed, reboot time (SimulatedFirmwareOptions; its `script` is ignored here). */
  firmware?: Omit<SimulatedFirmwareOptions, 'script'>;
  /**
   * How each router's firmware upgrade goes (tests, benchmarks): by identity and name, e.g.
   * `firmwareScriptByRules([{ share: 0.05, ending: 'never-returns' }])`. Default: all go well.
   */
  firmwareScript?: (identity: string, name: string, upgrade: FirmwareUpgrade) => SimulatedFirmwareScript | undefined;
  /** Each router's apply log, its name first. */
  log?: (message: string) => void;
  /**
   * Given, a router whose enrollment fails is reported here and enrolled again after a
   * backoff (1 s doubling to 60 s) until `signal` aborts, while the rest of the fleet runs;
   * it joins the returned list once enrolled. Absent, an enrollment failure rejects the start.
   */
  onEnrollFailure?: (identity: string, error: Error, retryInMs: number) => void;
  /**
   * A router the controller refused for good (decommissioned, its certificate revoked): told
   * once, with what to do. Its link then only checks rarely (ReconnectPolicy.refusedCheckMs),
   * and an enrollment refused that way is not retried.
   */
  onRefused?: (identity: string, message: string) => void;
  signal?: AbortSignal;
}

/** An enrollment the controller refused for the router itself (decommissioned): retrying cannot help. */
const enrollmentRefusedForGood = (err: unknown) =>
  err instanceof EnrollmentError && err.code === grpcStatus.PERMISSION_DENIED;

const ENROLL_RETRY_FIRST_MS = 1_000;
const ENROLL_RETRY_MAX_MS = 60_000;

/** Enrolls one router again after `error`, with a doubling backoff; undefined once the signal aborts. */
async function retryEnrollment(
  identity: string,
  name: string,
  error: Error,
  options: SimulatedFleetOptions,
): Promise<AgentCredentials | undefined> {
  for (let delay = ENROLL_RETRY_FIRST_MS; ; delay = Math.min(delay * 2, ENROLL_RETRY_MAX_MS)) {
    if (enrollmentRefusedForGood(error)) {
      options.onRefused?.(
        identity,
        `${error.message}: not enrolling it again; an admin brings it back with POST /v1/routers/{id}/re-enroll`,
      );
      return undefined;
    }
    options.onEnrollFailure!(identity, error, delay);
    try {
      await sleep(delay, undefined, { signal: options.signal });
    } catch {
      return undefined; // aborted: the fleet is stopping
    }
    try {
      return await options.credentialsFor!(identity, name);
    } catch (err) {
      if (options.signal?.aborted) return undefined;
      error = err as Error;
    }
  }
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
      const name = `${model}-${serial}`;
      const start = (credentials: AgentCredentials | undefined) => {
        if (options.signal?.aborted) return;
        routers.push(startRouter(options, { root, facts, identity, name, credentials }));
      };
      let credentials: AgentCredentials | undefined;
      try {
        credentials = await enrolled.get(identity);
      } catch (err) {
        if (!options.onEnrollFailure) throw err;
        // The rest of the fleet starts now; this router joins once it enrolls.
        void retryEnrollment(identity, name, err as Error, options).then((c) => c && start(c));
        continue;
      }
      start(credentials);
    }
  }
  return routers;
}

function startRouter(
  options: SimulatedFleetOptions,
  r: { root: string; facts: RouterFacts; identity: string; name: string; credentials: AgentCredentials | undefined },
): SimulatedRouter {
  const { root, facts, identity, credentials } = r;
  const router = new SimulatedRouter({
    root,
    facts,
    controller: options.controller,
    identity,
    name: r.name,
    reconnect: options.reconnect,
    credentials: credentials?.linkCredentials,
    applyDelayMs: typeof options.applyDelayMs === 'function' ? options.applyDelayMs(identity) : options.applyDelayMs,
    telemetryIntervalMs: options.telemetryIntervalMs,
    outcome: options.outcome ? (desired) => options.outcome!(identity, desired) : undefined,
    commandOutcome: options.commandOutcome ? (command) => options.commandOutcome!(identity, command) : undefined,
    commandDelayMs: options.commandDelayMs,
    rebootDelayMs: options.rebootDelayMs,
    confirmWindowSeconds: options.confirmWindowSeconds,
    firmware: {
      ...options.firmware,
      script: options.firmwareScript ? (upgrade) => options.firmwareScript!(identity, r.name, upgrade) : undefined,
    },
    log: options.log ? (message) => options.log!(`${identity}: ${message}`) : undefined,
  });
  if (credentials) keepRenewed(router.link, credentials);
  if (options.onRefused) router.link.on('refused', (r: Refusal) => options.onRefused!(identity, r.message));
  router.start();
  return router;
}

/** The synthetic serials of each model: 001, 002, ... from firstSerial. */
function serials({ perModel, firstSerial = 1 }: SimulatedFleetOptions): string[] {
  return Array.from({ length: perModel }, (_, i) => String(firstSerial + i).padStart(3, '0'));
}

export async function stopFleet(routers: { stop(): Promise<void> }[]): Promise<void> {
  await Promise.all(routers.map((r) => r.stop()));
}
