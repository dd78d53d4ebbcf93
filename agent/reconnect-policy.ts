/**
 * When and where an agent dials its controller again: the reconnect policy (backoff with full
 * jitter, the spread after a lost session, the rare check once refused), the controller
 * addresses and the agent's home among them, and the wait a busy controller asks for.
 * Pure functions of the policy and the controller's answers; ControllerLink
 * (agent/controller-link.ts) keeps the timers.
 */
import { status as grpcStatus, type ServiceError } from '@grpc/grpc-js';

export interface ReconnectPolicy {
  /** First retry delay cap after a failed connection attempt. */
  initialDelayMs: number;
  /** Upper bound of any retry delay. */
  maxDelayMs: number;
  /**
   * After an established session drops (controller restart, network blip), the first
   * reconnect waits a uniformly random time in [0, jitterWindowMs]. Without it every
   * agent of a fleet dials the restarted controller in the same second (the blackout
   * problem OpenWISP solves with random boot delays). A controller that names a longer
   * spread in its Welcome (reconnectSpreadSeconds, by the fleet it holds) is followed.
   */
  jitterWindowMs: number;
  /**
   * With several controller addresses: how often an agent connected away from its home
   * address checks whether home answers again, and moves back when it does (0: never). Each
   * check waits a random time in [0.5, 1.5] x this, so a returning replica is not stormed.
   */
  homeCheckMs: number;
  /**
   * After the controller refused this router for good (refusal()): how long until it is asked
   * once more, in case an operator let it back in (each check waits [0.5, 1.5] x this).
   */
  refusedCheckMs: number;
}

export const DEFAULT_RECONNECT_POLICY: ReconnectPolicy = {
  initialDelayMs: 500,
  // Short enough that a fleet is back within ~20 s of its controller's return; the controller's
  // admission control, not a long backoff, keeps a returning fleet from swamping it.
  maxDelayMs: 20_000,
  jitterWindowMs: 10_000,
  homeCheckMs: 60_000,
  // Hourly: a refusal needs an operator; what it costs is one handshake an hour per router.
  refusedCheckMs: 3_600_000,
};

/** gRPC target schemes whose value is itself a resolver's list (`ipv4:a:1,b:2`): kept whole. */
const RESOLVER_SCHEME = /^(ipv4|ipv6|dns|unix|unix-abstract):/;

/**
 * The controller addresses an agent was given: `host:port`, or several separated by commas
 * (replicas; the agent fails over between them). A gRPC resolver target (`dns:`, `ipv4:`)
 * stays one address, since gRPC itself balances over what it resolves to.
 */
export function controllerAddresses(address: string): string[] {
  if (RESOLVER_SCHEME.test(address.trim())) return [address.trim()];
  const list = address
    .split(',')
    .map((a) => a.trim())
    .filter((a) => a !== '');
  if (list.length === 0) throw new Error('no controller address given');
  return [...new Set(list)];
}

/**
 * The index of an agent's home address among `count`: a stable hash of its identity, so that
 * with every replica up the fleet spreads evenly and each agent returns to the same replica.
 */
export function homeAddressIndex(homeKey: string, count: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < homeKey.length; i++) {
    hash ^= homeKey.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % count;
}

/** The controller's admission control names when to come back (server/agent-gateway/hello-admission.ts). */
const RETRY_AFTER_METADATA = 'wrtfleet-retry-after-ms';
const MAX_RETRY_AFTER_MS = 5 * 60_000;

/**
 * The wait a controller asked for when it refused a stream as busy (RESOURCE_EXHAUSTED with a
 * retry-after trailer), bounded so a wrong value cannot park an agent for long; undefined otherwise.
 */
export function retryAfterHint(error: Pick<ServiceError, 'code' | 'metadata'> | undefined): number | undefined {
  if (error?.code !== grpcStatus.RESOURCE_EXHAUSTED || !error.metadata) return undefined;
  const value = Number(error.metadata.get(RETRY_AFTER_METADATA)[0]);
  if (!Number.isFinite(value) || value < 0) return undefined;
  return Math.min(MAX_RETRY_AFTER_MS, Math.round(value));
}

/**
 * Delay before reconnect attempt number `attempt` (0-based) after failures: exponential
 * backoff with full jitter (uniform in [0, min(max, initial * 2^attempt)]), which spreads
 * a herd of failing agents instead of synchronising their retries.
 */
export function backoffDelayMs(attempt: number, policy: ReconnectPolicy, random: () => number = Math.random): number {
  const cap = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** Math.min(attempt, 30));
  return Math.floor(random() * cap);
}

/** The first backoff attempt whose cap reaches `windowMs`. */
export function attemptReaching(windowMs: number, policy: ReconnectPolicy): number {
  let attempt = 0;
  while (attempt < 30 && policy.initialDelayMs * 2 ** attempt < windowMs) attempt++;
  return attempt;
}
