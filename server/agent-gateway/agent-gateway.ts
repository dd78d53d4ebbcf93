import {
  Metadata,
  Server,
  ServerCredentials,
  status as GrpcStatus,
  type ServerUnaryCall,
  type ServerWritableStream,
  type sendUnaryData,
} from '@grpc/grpc-js';
import type { Logger } from 'pino';
import {
  ApplyResult_Status,
  type AgentMessage,
  type EnrollRequest,
  type EnrollResponse,
} from '../../proto/gen/wrtfleet/agent/v1/agent.js';
import { HelloRejected, validateHello } from './hello-validation.js';
import { AgentServiceDefinition, isUndecodable, type UndecodableMessage } from './agent-message-decoding.js';
import type { AgentSecurity } from './agent-security.js';
import { AGENT_SERVER_OPTIONS, type AgentGatewayOptions } from './agent-gateway-options.js';
import { isDatabaseUnavailable } from '../storage/database-unavailable.js';
import { storeAgentMessage } from './agent-message-storage.js';
import { DEFAULT_MAX_PENDING_HELLOS, HelloAdmission, RETRY_AFTER_METADATA } from './hello-admission.js';
import {
  ConnectionAdmission,
  DEFAULT_ADMISSION_RATE,
  DEFAULT_MAX_HANDSHAKING,
  reconnectSpreadSeconds,
} from './connection-admission.js';
import { answerEnroll } from './enroll-call.js';
import { answerDownload, type FirmwareSource } from './firmware-download.js';
import type { DownloadFirmwareRequest, FirmwareChunk } from '../../proto/gen/wrtfleet/agent/v1/firmware.js';
import { AgentSession, closeStream, type AgentStream } from './agent-session.js';
import { IdentityRefused, type AgentGatewayEvents, type AgentReportSink } from './agent-report-sink.js';

export { AGENT_SERVER_OPTIONS, type AgentGatewayOptions } from './agent-gateway-options.js';
export { IdentityRefused, type AgentGatewayEvents, type AgentReportSink } from './agent-report-sink.js';

/** How long a stop waits for the disconnects of the streams it closed to be written. */
const DISCONNECT_WAIT_ON_STOP_MS = 3_000;

/**
 * The controller's gRPC face: accepts agent streams, checks that each starts with a valid
 * Hello, hands every report to the fleet, and keeps a map of live sessions so other parts
 * of the controller (rollouts, commands) can reach an agent.
 */
export class AgentGateway {
  readonly sessions = new Map<string, AgentSession>();
  /** The most streams this replica has held: the fleet that returns to it after a restart. */
  private peakSessions = 0;
  readonly admission: HelloAdmission;
  /** Streams this replica closed, by gRPC status name (/metrics). */
  readonly closedStreams = new Map<string, number>();
  private readonly listeners: AgentGatewayEvents[] = [];
  /** Disconnects being written: a stop waits for them, so the database closes after them. */
  private readonly disconnecting = new Set<Promise<void>>();
  private readonly server = new Server(AGENT_SERVER_OPTIONS);
  private livenessTimer: NodeJS.Timeout | undefined;
  private connections: ConnectionAdmission | undefined;
  private boundPort = 0;
  private stopping = false;
  /** Serves DownloadFirmware; set by the controller once the image store exists. */
  firmware: FirmwareSource | undefined;
  /** Bytes of firmware images this replica served (/metrics). */
  firmwareBytesServed = 0;

  constructor(
    private readonly sink: AgentReportSink,
    private readonly options: AgentGatewayOptions,
    private readonly log: Logger,
  ) {
    this.admission = new HelloAdmission(options.maxPendingHellos ?? DEFAULT_MAX_PENDING_HELLOS);
    this.server.addService(AgentServiceDefinition, {
      connect: (stream: AgentStream) => this.handleStream(stream),
      enroll: (call: ServerUnaryCall<EnrollRequest, EnrollResponse>, callback: sendUnaryData<EnrollResponse>) => {
        this.connections?.callArrived(call.getPeer());
        answerEnroll(this.options.security, call, callback, this.log);
      },
      downloadFirmware: (call: ServerWritableStream<DownloadFirmwareRequest, FirmwareChunk>) => {
        this.connections?.callArrived(call.getPeer());
        answerDownload(call, this.options.security, this.firmware, this.log).then(
          (bytes) => (this.firmwareBytesServed += bytes),
          (err: unknown) => this.log.error({ err }, 'DownloadFirmware failed'),
        );
      },
    });
  }

  on(listener: AgentGatewayEvents): void {
    this.listeners.push(listener);
  }

  get port(): number {
    return this.boundPort;
  }

  /** Connections reset before TLS, past their handshake time, in their handshake and waiting for it (/metrics). */
  get connectionCounts(): { refused: number; handshakesTimedOut: number; handshaking: number; waiting: number } {
    const c = this.connections;
    return {
      refused: c?.refused ?? 0,
      handshakesTimedOut: c?.handshakesTimedOut ?? 0,
      handshaking: c?.inHandshake ?? 0,
      waiting: c?.waitingCount ?? 0,
    };
  }

  async start(): Promise<number> {
    this.connections = new ConnectionAdmission(
      this.server,
      this.options.credentials ?? ServerCredentials.createInsecure(),
      {
        host: this.options.host,
        port: this.options.port,
        maxHandshaking: this.options.maxHandshakingConnections ?? DEFAULT_MAX_HANDSHAKING,
        maxWaiting: this.options.maxWaitingConnections,
        handshakeTimeoutMs:
          this.options.handshakeTimeoutSeconds === undefined ? undefined : this.options.handshakeTimeoutSeconds * 1000,
      },
    );
    this.boundPort = await this.connections.start();
    const silenceLimitMs = this.options.heartbeatIntervalSeconds * 1000 * this.options.missedHeartbeatsBeforeOffline;
    this.livenessTimer = setInterval(
      () => {
        const now = Date.now();
        for (const session of this.sessions.values()) {
          if (now - session.lastMessageAt > silenceLimitMs) {
            this.log.warn({ routerId: session.routerId }, 'agent missed its heartbeats; closing its stream');
            session.close(GrpcStatus.UNAVAILABLE, 'no heartbeat within the allowed window');
          }
        }
      },
      Math.min(5_000, silenceLimitMs),
    );
    this.livenessTimer.unref();
    return this.boundPort;
  }

  async stop(): Promise<void> {
    clearInterval(this.livenessTimer);
    this.stopping = true;
    this.connections?.stop();
    for (const session of this.sessions.values()) session.close(GrpcStatus.UNAVAILABLE, 'controller shutting down');
    await new Promise<void>((resolve) => {
      const force = setTimeout(() => {
        this.server.forceShutdown();
        this.connections?.destroyHandedOver();
        resolve();
      }, 2_000);
      this.server.tryShutdown(() => {
        clearTimeout(force);
        resolve();
      });
    });
    // Bounded: a stream's queue may be waiting out a database outage.
    let waited: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(this.disconnecting),
      new Promise((r) => (waited = setTimeout(r, DISCONNECT_WAIT_ON_STOP_MS).unref())),
    ]);
    clearTimeout(waited);
  }

  private handleStream(stream: AgentStream): void {
    const peer = stream.getPeer();
    this.connections?.callArrived(peer);
    let session: AgentSession | undefined;
    let closed = false;
    // Messages are handled strictly in order even though handling is async.
    let queue: Promise<void> = Promise.resolve();

    const reject = (code: GrpcStatus, reason: string, extra: Record<string, unknown> = {}, metadata?: Metadata) => {
      if (closed) return;
      closed = true;
      const name = GrpcStatus[code];
      this.closedStreams.set(name, (this.closedStreams.get(name) ?? 0) + 1);
      // A busy refusal is the admission control working, thousands at a time in a storm: counted, not logged.
      this.log[code === GrpcStatus.RESOURCE_EXHAUSTED ? 'debug' : 'warn'](
        { peer, routerId: session?.routerId, code: name, reason, ...extra },
        'closing agent stream',
      );
      closeStream(stream, code, reason, metadata);
    };

    const helloTimer = setTimeout(
      () => reject(GrpcStatus.DEADLINE_EXCEEDED, 'no Hello received in time'),
      this.options.helloTimeoutMs ?? 10_000,
    );

    const handle = async (message: AgentMessage) => {
      if (closed) return;
      if (!session) {
        if (message.body?.$case !== 'hello') {
          return reject(GrpcStatus.INVALID_ARGUMENT, 'the first message on a stream must be a Hello');
        }
        clearTimeout(helloTimer);
        const hello = message.body.value;
        try {
          validateHello(hello);
        } catch (err) {
          if (err instanceof HelloRejected)
            return reject(GrpcStatus.INVALID_ARGUMENT, `invalid Hello: ${err.message}`, { field: err.field });
          throw err;
        }
        const ticket = this.admission.tryEnter();
        if (!ticket.admitted) {
          const trailers = new Metadata();
          trailers.set(RETRY_AFTER_METADATA, String(ticket.retryAfterMs));
          return reject(
            GrpcStatus.RESOURCE_EXHAUSTED,
            `the controller is admitting other agents; retry in ${ticket.retryAfterMs} ms`,
            {},
            trailers,
          );
        }
        let routerId: string;
        let grant: Awaited<ReturnType<AgentSecurity['authorizeStream']>> | undefined;
        try {
          // mTLS: the client certificate must name the router this Hello claims, before anything is stored.
          grant = await this.options.security?.authorizeStream(stream, hello.router!.identity);
          ({ routerId } = await this.sink.registerHello(hello, peer));
        } catch (err) {
          if (err instanceof IdentityRefused)
            return reject(err.code, err.message, { identity: hello.router?.identity });
          throw err;
        } finally {
          ticket.done();
        }
        if (closed) return;
        const identity = hello.router!.identity;
        session = new AgentSession(routerId, identity, stream, hello.applied, message.sentAt);
        session.certificateSerial = grant?.certificateSerial;
        session.certificateNotAfter = grant?.certificateNotAfter;
        const previous = this.sessions.get(routerId);
        if (previous) previous.close(GrpcStatus.ABORTED, 'superseded by a newer stream from the same router');
        this.sessions.set(routerId, session);
        this.peakSessions = Math.max(this.peakSessions, this.sessions.size);
        session.send({
          $case: 'welcome',
          value: {
            routerId,
            heartbeatIntervalSeconds: this.options.heartbeatIntervalSeconds,
            telemetryIntervalSeconds: this.options.heartbeatIntervalSeconds * 4,
            reconnectSpreadSeconds: reconnectSpreadSeconds(
              this.peakSessions,
              this.options.admissionRatePerSecond ?? DEFAULT_ADMISSION_RATE,
            ),
          },
        });
        this.log.info({ routerId, identity, peer, agentVersion: hello.agent?.version }, 'agent connected');
        for (const l of this.listeners) l.connected?.(session, hello);
        return;
      }
      session.lastMessageAt = Date.now();
      const body = message.body;
      const kind = body?.$case ?? '';
      const stored = (write: () => Promise<void>) =>
        storeAgentMessage(kind, write, {
          streamClosed: () => closed,
          giveUpAfterMs: this.options.storeRetryMs,
          log: this.log,
        });
      switch (body?.$case) {
        case 'hello':
          return reject(GrpcStatus.INVALID_ARGUMENT, 'Hello may only be sent once per stream');
        case 'heartbeat':
          await stored(() => this.sink.markSeen(session!.routerId));
          if (!session.caughtUp) {
            session.caughtUp = true;
            for (const l of this.listeners) l.caughtUp?.(session);
          }
          return;
        case 'applyResult': {
          const current = session;
          const timing = current.timingOf(body.value);
          // Commit-confirmed: the result came over the stream, so the controller still reaches
          // this router; tell the agent to keep the change (without this it rolls back by
          // itself). Confirmed on receipt, not after storing: a database away for a while
          // must not roll the fleet back. The result itself is acked only once stored, so
          // the agent sends it again if this controller dies before.
          // One the router has undone since (its Hello said so) has nothing left to confirm.
          if (body.value.status === ApplyResult_Status.STATUS_APPLIED && !timing.undone) {
            current.send({
              $case: 'confirmApply',
              value: { profile: body.value.profile, revision: body.value.revision },
            });
          }
          await stored(() => this.sink.recordApplyResult(current.routerId, body.value, timing));
          current.send({ $case: 'ack', value: { agentSeq: message.seq } });
          return;
        }
        case 'telemetry':
          return stored(() => this.sink.recordTelemetry(session!.routerId, body.value));
        case 'driftReport':
          return stored(() => this.sink.recordDrift(session!.routerId, body.value));
        case 'renewRequest': {
          const current = session;
          const renewed = this.options.security
            ? await this.options.security.renew(current, body.value)
            : {
                certificatePem: '',
                caCertificatePem: '',
                notAfter: undefined,
                error: 'this controller runs with insecure agents; nothing to renew',
              };
          current.send({ $case: 'renewed', value: renewed });
          return;
        }
        case 'firmwareProgress':
          await stored(async () => {
            await this.sink.markSeen(session!.routerId);
            for (const l of this.listeners) await l.firmwareProgress?.(session!, body.value);
          });
          return;
        case 'commandResult':
          await stored(async () => {
            await this.sink.markSeen(session!.routerId);
            for (const l of this.listeners) await l.commandResult?.(session!.routerId, body.value);
          });
          return;
        default:
          // An empty or future message type: not fatal, the agent may be newer than us.
          this.log.debug({ routerId: session.routerId }, 'ignoring agent message with no known body');
      }
    };

    stream.on('data', (message: AgentMessage | UndecodableMessage) => {
      if (isUndecodable(message)) {
        const { field, reason } = message.undecodable;
        return reject(GrpcStatus.INVALID_ARGUMENT, `undecodable message: ${field}: ${reason}`, { field });
      }
      // Alive is when a message arrives, not when its turn comes: one held while the database
      // is away must not make the stream look silent.
      if (session) session.lastMessageAt = Date.now();
      queue = queue
        .then(() => handle(message))
        .catch((err: unknown) => {
          if (isDatabaseUnavailable(err)) {
            this.log.warn(
              { peer, routerId: session?.routerId, reason: (err as Error).message.split('\n').pop() },
              'database unavailable; asking the agent to come back later',
            );
            return reject(GrpcStatus.UNAVAILABLE, "the controller's database is unavailable; reconnect later");
          }
          this.log.error({ err, peer, routerId: session?.routerId }, 'failed to handle agent message');
          reject(GrpcStatus.INTERNAL, 'the controller could not process a message; reconnect later');
        });
    });

    const finished = () => {
      clearTimeout(helloTimer);
      closed = true;
      const ended = session;
      if (!ended) return;
      session = undefined;
      if (this.sessions.get(ended.routerId) === ended) {
        this.sessions.delete(ended.routerId);
        const recorded = (queue = queue
          .then(() => this.sink.markDisconnected(ended.routerId, ended.startedAt))
          .catch((err: unknown) => this.log.error({ err, routerId: ended.routerId }, 'failed to record disconnect')));
        this.disconnecting.add(recorded);
        void recorded.finally(() => this.disconnecting.delete(recorded));
        this.log.info({ routerId: ended.routerId, identity: ended.identity }, 'agent disconnected');
      }
    };
    stream.on('end', () => {
      finished();
      stream.end();
    });
    stream.on('error', (err: Error) => {
      // Corrupt frames surface here (grpc-js fails to deserialize and cancels the call).
      if (!closed && !this.stopping)
        this.log.warn({ peer, routerId: session?.routerId, reason: err.message }, 'agent stream failed');
      finished();
    });
    stream.on('cancelled', finished);
    stream.on('close', finished);
  }
}
