import { type Metadata, type ServerDuplexStream, type ServiceError, status as GrpcStatus } from '@grpc/grpc-js';
import {
  ApplyResult_Status,
  type AgentMessage,
  type ApplyResult,
  type ControllerMessage,
  type Hello,
} from '../../proto/gen/wrtfleet/agent/v1/agent.js';

export type AgentStream = ServerDuplexStream<AgentMessage, ControllerMessage>;

/** Where an apply result stands against the Hello of the stream it came on. */
export interface ApplyResultTiming {
  /**
   * It finished before that Hello (by the agent's clock): the agent kept it through a broken
   * stream and sent it again, and its Hello, newer, said what the router runs since.
   */
  beforeHello: boolean;
  /** An APPLIED result from before the Hello whose revision the Hello no longer names: undone since (rolled back). */
  undone: boolean;
}

/** One live agent stream on this replica. */
export class AgentSession {
  private seq = 0;
  lastMessageAt = Date.now();
  readonly startedAt = new Date();
  /** The client certificate that authenticated this stream (mTLS); the revocation watch reads it. */
  certificateSerial?: string;
  certificateNotAfter?: Date;
  /** Set at the stream's first heartbeat (AgentGatewayEvents.caughtUp). */
  caughtUp = false;

  constructor(
    readonly routerId: string,
    readonly identity: string,
    private readonly stream: AgentStream,
    /**
     * What the Hello that opened the stream said the router runs, and when the agent sent it
     * (its own clock). Not the Hello itself: its facts are kilobytes, times every stream.
     */
    readonly helloApplied: Hello['applied'],
    readonly helloSentAt: Date | undefined,
  ) {}

  /** Where an apply result on this stream stands against its Hello (ApplyResultTiming). */
  timingOf(result: ApplyResult): ApplyResultTiming {
    const beforeHello = !!(result.finishedAt && this.helloSentAt && result.finishedAt < this.helloSentAt);
    const runs = this.helloApplied;
    const named = runs?.profile === result.profile && runs.revision === result.revision;
    return { beforeHello, undone: beforeHello && result.status === ApplyResult_Status.STATUS_APPLIED && !named };
  }

  send(body: NonNullable<ControllerMessage['body']>): void {
    this.seq += 1;
    this.stream.write({ seq: this.seq, sentAt: new Date(), body });
  }

  close(code: GrpcStatus, details: string): void {
    closeStream(this.stream, code, details);
  }
}

export function closeStream(stream: AgentStream, code: GrpcStatus, details: string, metadata?: Metadata): void {
  // grpc-js ends a server stream with a status when the stream emits an error object
  // carrying `code` and `details` (and `metadata`, sent as trailers).
  const error: Partial<ServiceError> = { code, details, message: details, ...(metadata ? { metadata } : {}) };
  stream.emit('error', error);
}
