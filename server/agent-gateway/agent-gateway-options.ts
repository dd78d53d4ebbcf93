import type { ServerCredentials } from '@grpc/grpc-js';
import type { AgentSecurity } from './agent-security.js';

/** The agent gateway's settings: where it listens, how patient it is, how much it admits at once. */
export interface AgentGatewayOptions {
  host: string;
  port: number;
  heartbeatIntervalSeconds: number;
  missedHeartbeatsBeforeOffline: number;
  /** How long a new stream may stay silent before its Hello. */
  helloTimeoutMs?: number;
  /**
   * How long a message that must be stored (an apply result, a drift report) is retried while
   * the database cannot be reached before its stream is closed (UNAVAILABLE). Default 120 s.
   */
  storeRetryMs?: number;
  /**
   * Hellos being admitted at once (certificate check, router refresh); past it a stream is
   * refused with RESOURCE_EXHAUSTED and told when to come back (hello-admission.ts). Default 1,000.
   */
  maxPendingHellos?: number;
  /**
   * Connections in their TLS handshake at once; past it a connection waits, accepted but not
   * read from, for a slot (connection-admission.ts). Default 128.
   */
  maxHandshakingConnections?: number;
  /** Connections waiting for a handshake slot, at most; past it they are reset. Default 20,000. */
  maxWaitingConnections?: number;
  /** How long a connection holds a handshake slot without a call. Default 3 s. */
  handshakeTimeoutSeconds?: number;
  /** Agent connects this replica admits a second: the Welcome spreads reconnections by it. Default 200. */
  admissionRatePerSecond?: number;
  credentials?: ServerCredentials;
  /** Client-certificate checks, enrollment and renewal (server/pki); absent only with insecure agents. */
  security?: AgentSecurity;
}

/** The agent port's gRPC server options (`bench:transport-floor` measures the transport with them). */
export const AGENT_SERVER_OPTIONS = {
  // Agents behind NAT keep the stream idle between heartbeats; allow their keepalives.
  'grpc.keepalive_permit_without_calls': 1,
  'grpc.http2.min_ping_interval_without_data_ms': 10_000,
  // A Hello with facts is a few KiB; nothing legitimate comes near this.
  'grpc.max_receive_message_length': 1024 * 1024,
  // Channelz keeps a registry entry, call counters and closures for every connection, and the
  // controller serves no channelz: off, a connection holds 1.5 KiB less (docs/BENCHMARKS.md).
  // grpc-js's forceShutdown then destroys no session; stop() destroys them through admission.
  'grpc.enable_channelz': 0,
} as const;
