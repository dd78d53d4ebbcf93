import type { AlertsConfig } from './alerts/alerts-config.js';
import path from 'node:path';
import {
  DEFAULT_ADMISSION_RATE,
  DEFAULT_HANDSHAKE_TIMEOUT_SECONDS,
  DEFAULT_MAX_HANDSHAKING,
  DEFAULT_MAX_WAITING,
} from './agent-gateway/connection-admission.js';
import { DEFAULT_MAX_PENDING_HELLOS } from './agent-gateway/hello-admission.js';
import { DEFAULT_SECURITY, type SecurityConfig } from './auth/security-config.js';
import { parseCidr } from './onboarding/target-policy.js';

/**
 * Controller configuration, read once from the environment at start.
 *
 * The embedded default (no DATABASE_URL, no REDIS_URL) needs nothing but a writable data
 * directory; production sets both and may run several replicas against them.
 */
export interface ControllerConfig {
  /** postgresql://… ; absent means embedded PGlite under dataDir. */
  databaseUrl?: string;
  /** redis://… ; absent means jobs run in-process. */
  redisUrl?: string;
  /**
   * Prefix of every Redis key and pub/sub channel (BullMQ queues, the fleet bus), so that two
   * installations sharing one Redis never hear each other: pub/sub ignores the DB number.
   */
  redisPrefix?: string;
  /** PostgreSQL connections this replica holds at most (WRTFLEET_DB_POOL_SIZE). */
  dbPoolSize?: number;
  dataDir: string;
  httpHost: string;
  httpPort: number;
  grpcHost: string;
  grpcPort: number;
  /**
   * Whether this replica accepts agents (WRTFLEET_SERVE_AGENTS, default true). A replica that
   * does not serves the REST API and the console only: its event loop never handshakes a
   * returning fleet, so the API answers promptly during a connect storm or a large rollout.
   */
  serveAgents?: boolean;
  /**
   * Whether this replica runs background tasks (WRTFLEET_RUN_TASKS, default true): rollout steps,
   * sweeps, command timeouts, telemetry rollups. One that does not only queues them for the
   * others, so a rollout's batches never hold up the API it serves. Needs REDIS_URL.
   */
  runTasks?: boolean;
  /**
   * The controller address onboarding gives the agents it installs (WRTFLEET_AGENT_ADDRESS: one
   * host:port, a comma-separated list of replicas, or a balancer's). Default: this replica's
   * gRPC address; required when the replica serves no agents.
   */
  agentAddress?: string;
  /** Agents are told to heartbeat this often. */
  heartbeatIntervalSeconds: number;
  /** A router whose last message is older than this many heartbeat intervals is offline. */
  missedHeartbeatsBeforeOffline: number;
  /** Agent Hellos admitted at once; past it agents are told when to come back (WRTFLEET_MAX_PENDING_HELLOS). */
  maxPendingHellos?: number;
  /** Agent connections in their TLS handshake at once; past it they wait for a slot (WRTFLEET_MAX_HANDSHAKING_CONNECTIONS). */
  maxHandshakingConnections?: number;
  /** Agent connections waiting for a handshake slot, at most; past it they are reset (WRTFLEET_MAX_WAITING_CONNECTIONS). */
  maxWaitingConnections?: number;
  /** How long an agent connection may hold a handshake slot without a call (WRTFLEET_HANDSHAKE_TIMEOUT_SECONDS). */
  handshakeTimeoutSeconds?: number;
  /** Agent connects a second this replica admits; reconnections are spread by it (WRTFLEET_AGENT_ADMISSION_RATE). */
  agentAdmissionRate?: number;
  /** Register routers on their first Hello (false: only pre-registered identities may connect). */
  autoRegister: boolean;
  logLevel: string;
  /**
   * Addresses and CIDR ranges onboarding may connect to (WRTFLEET_ONBOARDING_ALLOW, comma
   * list); absent: private ranges and loopback (server/onboarding/target-policy.ts).
   */
  onboardingAllow?: string[];
  /** The largest firmware image an upload may be (WRTFLEET_FIRMWARE_MAX_BYTES; 128 MiB). */
  firmwareMaxBytes?: number;
  /** Time limits of the REST API; absent fields take DEFAULT_HTTP_LIMITS. */
  http?: Partial<HttpLimits>;
  /** mTLS for agents, enrollment, secrets at rest, auth rate limits (server/auth/security-config.ts); absent fields take the safe defaults. */
  security?: Partial<SecurityConfig>;
  /** Telemetry history: retention, write batching, rollup; absent fields take DEFAULT_TELEMETRY. */
  telemetry?: Partial<TelemetryConfig>;
  /** What /metrics exposes beyond the fleet-wide series; absent fields take DEFAULT_METRICS. */
  metrics?: Partial<MetricsConfig>;
  /** This replica's name in its dependency alerts (WRTFLEET_REPLICA_NAME; default "<hostname>:<HTTP port>"). */
  replicaName?: string;
  /** Alert evaluation and notification delivery (server/alerts/); absent fields take DEFAULT_ALERTS. */
  alerts?: Partial<AlertsConfig>;
  /** The name the console shows in its header (WRTFLEET_FLEET_NAME, default "wrtfleet"). */
  fleetName?: string;
  /** The operator's console served at /. */
  console?: ConsoleConfig;
}

export interface ConsoleConfig {
  /** Its production build (WRTFLEET_CONSOLE_DIR, default web-admin/dist); "" serves no console. */
  distDir?: string;
  /** Build it at start when web-admin/dist is missing (the default; tests turn it off). */
  buildWhenMissing?: boolean;
}

/** How long telemetry history is kept, and how it is written (server/telemetry/). */
export interface TelemetryConfig {
  /** 1-minute points are kept this long (WRTFLEET_TELEMETRY_MINUTE_RETENTION_HOURS). */
  minuteRetentionHours: number;
  /** 1-hour points are kept this long (WRTFLEET_TELEMETRY_HOUR_RETENTION_DAYS). */
  hourRetentionDays: number;
  /** Samples are buffered and written together this often (WRTFLEET_TELEMETRY_FLUSH_SECONDS). */
  flushSeconds: number;
  /** The rollup and retention job runs this often (WRTFLEET_TELEMETRY_ROLLUP_SECONDS). */
  rollupEverySeconds: number;
}

export const DEFAULT_TELEMETRY: TelemetryConfig = {
  minuteRetentionHours: 24,
  hourRetentionDays: 30,
  flushSeconds: 5,
  rollupEverySeconds: 60,
};

export interface MetricsConfig {
  /** Also expose per-router series, labelled with the router's name (WRTFLEET_METRICS_PER_ROUTER). */
  perRouter: boolean;
  /**
   * Per-router series are left out, and wrtfleet_metrics_per_router_suppressed says so, for a
   * fleet larger than this (WRTFLEET_METRICS_PER_ROUTER_MAX, at most PER_ROUTER_MAX_LIMIT).
   */
  perRouterMax: number;
  /** The fleet is read from the database at most this often per replica (WRTFLEET_METRICS_CACHE_SECONDS). */
  cacheSeconds: number;
}

/** Past this many routers a per-router exposition is too large for one scrape to be useful. */
export const PER_ROUTER_MAX_LIMIT = 5_000;

export const DEFAULT_METRICS: MetricsConfig = { perRouter: false, perRouterMax: 500, cacheSeconds: 10 };

/**
 * Every REST request ends: a client that sends too slowly, a connection gone silent, and a
 * streamed response (audit export, event streams) each have a limit, so no caller can hold
 * sockets open indefinitely.
 */
export interface HttpLimits {
  /** A client has this long to send its whole request (WRTFLEET_HTTP_REQUEST_TIMEOUT_SECONDS). */
  requestTimeoutSeconds: number;
  /** A connection silent both ways this long is closed (WRTFLEET_HTTP_IDLE_TIMEOUT_SECONDS); event streams send a keepalive every 15 s. */
  idleTimeoutSeconds: number;
  /** A streamed response ends with an error marker after this long (WRTFLEET_HTTP_STREAM_MAX_SECONDS). */
  streamMaxSeconds: number;
  /**
   * Streamed responses one caller (an account, or a token owner) may have open at once on a
   * replica; past it, 429 (WRTFLEET_HTTP_MAX_STREAMS_PER_CALLER).
   */
  maxStreamsPerCaller: number;
}

export const DEFAULT_HTTP_LIMITS: HttpLimits = {
  requestTimeoutSeconds: 30,
  idleTimeoutSeconds: 60,
  streamMaxSeconds: 3600,
  maxStreamsPerCaller: 16,
};

export const DEFAULT_FIRMWARE_MAX_BYTES = 128 * 1024 * 1024;

export class ConfigError extends Error {}

function port(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new ConfigError(`${name} must be a TCP port (0-65535), got "${value}"`);
  return n;
}

function positive(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new ConfigError(`${name} must be a positive number, got "${value}"`);
  return n;
}

function flag(name: string, value: string | undefined): boolean {
  const v = (value ?? '').toLowerCase();
  if (v === '' || v === 'false' || v === '0') return false;
  if (v === 'true' || v === '1') return true;
  throw new ConfigError(`${name} must be true or false, got "${value}"`);
}

function list(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

function cidrList(name: string, value: string | undefined): string[] | undefined {
  const entries = list(value);
  if (entries.length === 0) return undefined;
  for (const entry of entries) {
    try {
      parseCidr(entry);
    } catch (err) {
      throw new ConfigError(`${name}: ${(err as Error).message}`);
    }
  }
  return entries;
}

function securityConfigFromEnv(env: NodeJS.ProcessEnv): SecurityConfig {
  const insecure = (env.WRTFLEET_INSECURE_AGENTS ?? '').toLowerCase();
  return {
    insecureAgents: insecure === 'true' || insecure === '1',
    grpcTlsNames: list(env.WRTFLEET_GRPC_TLS_NAMES),
    clientCertificateLifetimeSeconds: Math.round(
      positive('WRTFLEET_CLIENT_CERT_HOURS', env.WRTFLEET_CLIENT_CERT_HOURS, 24) * 3600,
    ),
    caCertFile: env.WRTFLEET_CA_CERT_FILE || undefined,
    caKeyFile: env.WRTFLEET_CA_KEY_FILE || undefined,
    tlsCertFile: env.WRTFLEET_TLS_CERT_FILE || undefined,
    tlsKeyFile: env.WRTFLEET_TLS_KEY_FILE || undefined,
    dataKey: env.WRTFLEET_DATA_KEY || undefined,
    previousDataKeys: list(env.WRTFLEET_DATA_KEY_PREVIOUS),
    authFailuresPerMinute: positive('WRTFLEET_AUTH_FAILURES_PER_MINUTE', env.WRTFLEET_AUTH_FAILURES_PER_MINUTE, 20),
    enrollFailuresPerAddress: positive(
      'WRTFLEET_ENROLL_FAILURES_PER_ADDRESS',
      env.WRTFLEET_ENROLL_FAILURES_PER_ADDRESS,
      DEFAULT_SECURITY.enrollFailuresPerAddress,
    ),
    signInFailuresPerName: positive(
      'WRTFLEET_SIGN_IN_FAILURES_PER_NAME',
      env.WRTFLEET_SIGN_IN_FAILURES_PER_NAME,
      DEFAULT_SECURITY.signInFailuresPerName,
    ),
    sessionIdleSeconds: Math.round(
      positive('WRTFLEET_SESSION_IDLE_MINUTES', env.WRTFLEET_SESSION_IDLE_MINUTES, 30) * 60,
    ),
    sessionAbsoluteSeconds: Math.round(
      positive('WRTFLEET_SESSION_MAX_HOURS', env.WRTFLEET_SESSION_MAX_HOURS, 12) * 3600,
    ),
    sessionCookieSecure: flag('WRTFLEET_SESSION_COOKIE_SECURE', env.WRTFLEET_SESSION_COOKIE_SECURE),
  };
}

export const DEFAULT_REDIS_PREFIX = 'wrtfleet';
const REDIS_PREFIX = /^[A-Za-z0-9_.-]{1,64}$/;

function redisPrefix(value: string | undefined): string {
  if (value === undefined || value === '') return DEFAULT_REDIS_PREFIX;
  if (!REDIS_PREFIX.test(value))
    throw new ConfigError(`WRTFLEET_REDIS_PREFIX must be 1-64 of A-Z a-z 0-9 _ . -, got "${value}"`);
  return value;
}

function agentPlacement(env: NodeJS.ProcessEnv): { serveAgents: boolean; agentAddress?: string } {
  const serveAgents =
    env.WRTFLEET_SERVE_AGENTS === undefined || flag('WRTFLEET_SERVE_AGENTS', env.WRTFLEET_SERVE_AGENTS);
  const agentAddress = env.WRTFLEET_AGENT_ADDRESS?.trim() || undefined;
  if (!serveAgents && !agentAddress)
    throw new ConfigError(
      'WRTFLEET_SERVE_AGENTS=false needs WRTFLEET_AGENT_ADDRESS: the replicas (or balancer) onboarded agents connect to',
    );
  return { serveAgents, agentAddress };
}

function taskPlacement(env: NodeJS.ProcessEnv): { runTasks: boolean } {
  // WRTFLEET_RUN_JOBS is the name of 0.1, still read until 0.3 (docs/DOMAIN.md, Glossary).
  const name =
    env.WRTFLEET_RUN_TASKS === undefined && env.WRTFLEET_RUN_JOBS !== undefined
      ? 'WRTFLEET_RUN_JOBS'
      : 'WRTFLEET_RUN_TASKS';
  const value = env[name];
  const runTasks = value === undefined || flag(name, value);
  if (!runTasks && !env.REDIS_URL)
    throw new ConfigError(`${name}=false needs REDIS_URL: without Redis no other replica can run this one’s tasks`);
  return { runTasks };
}

export function configFromEnv(env: NodeJS.ProcessEnv = process.env): ControllerConfig {
  return {
    ...agentPlacement(env),
    ...taskPlacement(env),
    databaseUrl: env.DATABASE_URL || undefined,
    redisUrl: env.REDIS_URL || undefined,
    replicaName: env.WRTFLEET_REPLICA_NAME || undefined,
    redisPrefix: redisPrefix(env.WRTFLEET_REDIS_PREFIX),
    dataDir: env.WRTFLEET_DATA_DIR || './data',
    httpHost: env.WRTFLEET_HTTP_HOST || '127.0.0.1',
    httpPort: port('WRTFLEET_HTTP_PORT', env.WRTFLEET_HTTP_PORT ?? env.PORT, 8080),
    grpcHost: env.WRTFLEET_GRPC_HOST || '127.0.0.1',
    grpcPort: port('WRTFLEET_GRPC_PORT', env.WRTFLEET_GRPC_PORT, 50051),
    dbPoolSize: env.WRTFLEET_DB_POOL_SIZE
      ? Math.round(positive('WRTFLEET_DB_POOL_SIZE', env.WRTFLEET_DB_POOL_SIZE, 10))
      : undefined,
    heartbeatIntervalSeconds: positive('WRTFLEET_HEARTBEAT_SECONDS', env.WRTFLEET_HEARTBEAT_SECONDS, 15),
    missedHeartbeatsBeforeOffline: positive('WRTFLEET_MISSED_HEARTBEATS', env.WRTFLEET_MISSED_HEARTBEATS, 3),
    maxPendingHellos: Math.round(
      positive('WRTFLEET_MAX_PENDING_HELLOS', env.WRTFLEET_MAX_PENDING_HELLOS, DEFAULT_MAX_PENDING_HELLOS),
    ),
    maxHandshakingConnections: Math.round(
      positive(
        'WRTFLEET_MAX_HANDSHAKING_CONNECTIONS',
        env.WRTFLEET_MAX_HANDSHAKING_CONNECTIONS,
        DEFAULT_MAX_HANDSHAKING,
      ),
    ),
    maxWaitingConnections: Math.round(
      positive('WRTFLEET_MAX_WAITING_CONNECTIONS', env.WRTFLEET_MAX_WAITING_CONNECTIONS, DEFAULT_MAX_WAITING),
    ),
    handshakeTimeoutSeconds: positive(
      'WRTFLEET_HANDSHAKE_TIMEOUT_SECONDS',
      env.WRTFLEET_HANDSHAKE_TIMEOUT_SECONDS,
      DEFAULT_HANDSHAKE_TIMEOUT_SECONDS,
    ),
    agentAdmissionRate: positive(
      'WRTFLEET_AGENT_ADMISSION_RATE',
      env.WRTFLEET_AGENT_ADMISSION_RATE,
      DEFAULT_ADMISSION_RATE,
    ),
    autoRegister: (env.WRTFLEET_AUTO_REGISTER ?? 'true') !== 'false',
    logLevel: env.LOG_LEVEL || 'info',
    onboardingAllow: cidrList('WRTFLEET_ONBOARDING_ALLOW', env.WRTFLEET_ONBOARDING_ALLOW),
    firmwareMaxBytes: Math.round(
      positive('WRTFLEET_FIRMWARE_MAX_BYTES', env.WRTFLEET_FIRMWARE_MAX_BYTES, DEFAULT_FIRMWARE_MAX_BYTES),
    ),
    http: {
      requestTimeoutSeconds: positive(
        'WRTFLEET_HTTP_REQUEST_TIMEOUT_SECONDS',
        env.WRTFLEET_HTTP_REQUEST_TIMEOUT_SECONDS,
        DEFAULT_HTTP_LIMITS.requestTimeoutSeconds,
      ),
      idleTimeoutSeconds: positive(
        'WRTFLEET_HTTP_IDLE_TIMEOUT_SECONDS',
        env.WRTFLEET_HTTP_IDLE_TIMEOUT_SECONDS,
        DEFAULT_HTTP_LIMITS.idleTimeoutSeconds,
      ),
      streamMaxSeconds: positive(
        'WRTFLEET_HTTP_STREAM_MAX_SECONDS',
        env.WRTFLEET_HTTP_STREAM_MAX_SECONDS,
        DEFAULT_HTTP_LIMITS.streamMaxSeconds,
      ),
      maxStreamsPerCaller: Math.round(
        positive(
          'WRTFLEET_HTTP_MAX_STREAMS_PER_CALLER',
          env.WRTFLEET_HTTP_MAX_STREAMS_PER_CALLER,
          DEFAULT_HTTP_LIMITS.maxStreamsPerCaller,
        ),
      ),
    },
    security: securityConfigFromEnv(env),
    fleetName: env.WRTFLEET_FLEET_NAME || undefined,
    console: {
      distDir: env.WRTFLEET_CONSOLE_DIR ? path.resolve(env.WRTFLEET_CONSOLE_DIR) : env.WRTFLEET_CONSOLE_DIR,
      buildWhenMissing: true,
    },
    telemetry: {
      minuteRetentionHours: positive(
        'WRTFLEET_TELEMETRY_MINUTE_RETENTION_HOURS',
        env.WRTFLEET_TELEMETRY_MINUTE_RETENTION_HOURS,
        DEFAULT_TELEMETRY.minuteRetentionHours,
      ),
      hourRetentionDays: positive(
        'WRTFLEET_TELEMETRY_HOUR_RETENTION_DAYS',
        env.WRTFLEET_TELEMETRY_HOUR_RETENTION_DAYS,
        DEFAULT_TELEMETRY.hourRetentionDays,
      ),
      flushSeconds: positive(
        'WRTFLEET_TELEMETRY_FLUSH_SECONDS',
        env.WRTFLEET_TELEMETRY_FLUSH_SECONDS,
        DEFAULT_TELEMETRY.flushSeconds,
      ),
      rollupEverySeconds: positive(
        'WRTFLEET_TELEMETRY_ROLLUP_SECONDS',
        env.WRTFLEET_TELEMETRY_ROLLUP_SECONDS,
        DEFAULT_TELEMETRY.rollupEverySeconds,
      ),
    },
    metrics: metricsConfigFromEnv(env),
  };
}

function metricsConfigFromEnv(env: NodeJS.ProcessEnv): MetricsConfig {
  const perRouterMax = Math.round(
    positive('WRTFLEET_METRICS_PER_ROUTER_MAX', env.WRTFLEET_METRICS_PER_ROUTER_MAX, DEFAULT_METRICS.perRouterMax),
  );
  if (perRouterMax > PER_ROUTER_MAX_LIMIT)
    throw new ConfigError(
      `WRTFLEET_METRICS_PER_ROUTER_MAX is at most ${PER_ROUTER_MAX_LIMIT} (a per-router exposition of a larger fleet is too big to scrape), got "${env.WRTFLEET_METRICS_PER_ROUTER_MAX}"`,
    );
  return {
    perRouter: flag('WRTFLEET_METRICS_PER_ROUTER', env.WRTFLEET_METRICS_PER_ROUTER),
    perRouterMax,
    cacheSeconds: positive(
      'WRTFLEET_METRICS_CACHE_SECONDS',
      env.WRTFLEET_METRICS_CACHE_SECONDS,
      DEFAULT_METRICS.cacheSeconds,
    ),
  };
}
