/**
 * What the agent gateway hands on: to the fleet (every report an agent sends) and to the rest
 * of the controller (streams coming and going, command answers). The registry implements the
 * sink; rollouts and commands listen to the events.
 */
import type { status as GrpcStatus } from '@grpc/grpc-js';
import type {
  ApplyResult,
  CommandResult,
  DriftReport,
  Hello,
  Telemetry,
} from '../../proto/gen/wrtfleet/agent/v1/agent.js';
import type { AgentSession, ApplyResultTiming } from './agent-session.js';
import type { FirmwareProgress } from '../../proto/gen/wrtfleet/agent/v1/firmware.js';

/** Raised by the session store when an identity may not connect (decommissioned, unknown). */
export class IdentityRefused extends Error {
  constructor(
    readonly code: GrpcStatus.PERMISSION_DENIED | GrpcStatus.UNAUTHENTICATED,
    message: string,
  ) {
    super(message);
  }
}

/** What the gateway needs from the fleet: everything an agent reports lands here. */
export interface AgentReportSink {
  registerHello(hello: Hello, peer: string): Promise<{ routerId: string }>;
  markSeen(routerId: string): Promise<void>;
  markDisconnected(routerId: string, sessionStartedAt: Date): Promise<void>;
  recordApplyResult(routerId: string, result: ApplyResult, timing?: ApplyResultTiming): Promise<void>;
  recordTelemetry(routerId: string, telemetry: Telemetry): Promise<void>;
  recordDrift(routerId: string, report: DriftReport): Promise<void>;
}

export interface AgentGatewayEvents {
  /** A stream completed its Hello; `applied` is what the agent says it runs. */
  connected?(session: AgentSession, hello: Hello): void;
  /**
   * The stream's first heartbeat was handled. An agent sends what it kept from before the
   * stream (results of applies and rollbacks done while it was cut off) as soon as it is
   * welcomed, ahead of its first heartbeat, so by now all of it is stored: what the agent
   * did while away is known before anything is decided for it.
   */
  caughtUp?(session: AgentSession): void;
  /** An agent answered a command; awaited, so its answers are stored in the order they came. */
  commandResult?(routerId: string, result: CommandResult): Promise<void>;
  /** An agent reported where a firmware upgrade stands; awaited, so its reports are stored in order. */
  firmwareProgress?(session: AgentSession, progress: FirmwareProgress): Promise<void>;
}
