/**
 * A small controller for agent tests: a real gRPC server on loopback (grpc-js and the
 * generated AgentServiceService) that records what agents send, lets the test push
 * DesiredState/Command/ConfirmApply down a router's stream, and (by default) confirms an
 * APPLIED result the way the real controller does. It can be stopped and restarted on the
 * same port to cut agents off.
 */
import { Server, ServerCredentials, status, type ServerDuplexStream, type ServerWritableStream } from '@grpc/grpc-js';
import type {
  DownloadFirmwareRequest,
  FirmwareChunk,
  FirmwareProgress,
} from '../../proto/gen/wrtfleet/agent/v1/firmware.js';
import {
  AgentServiceService,
  ApplyResult_Status,
  type AgentMessage,
  type ApplyResult,
  type CommandResult,
  type DriftReport,
  type Telemetry,
  type ControllerMessage,
  type Hello,
} from '../../proto/gen/wrtfleet/agent/v1/agent.js';

type Body = NonNullable<ControllerMessage['body']>;

export interface Received {
  identity: string;
  at: number;
  message: AgentMessage;
}

export class FakeController {
  private server: Server | undefined;
  port = 0;
  readonly received: Received[] = [];
  readonly hellos: { identity: string; hello: Hello; at: number }[] = [];
  private readonly streams = new Map<string, ServerDuplexStream<AgentMessage, ControllerMessage>>();
  private seq = 0;
  /** Answer APPLIED with ConfirmApply (the real controller does). */
  autoConfirm = true;
  /** Ack every ApplyResult once recorded (the real controller does, after storing it). */
  autoAck = true;
  telemetryIntervalSeconds = 0;
  /** The Welcome's reconnect spread (0: the agent's own jitter window). */
  reconnectSpreadSeconds = 0;

  /** Firmware images DownloadFirmware serves, by SHA-256 (any client may fetch them here). */
  readonly firmwareImages = new Map<string, Buffer>();
  /** Bytes DownloadFirmware has sent, over every call; and each call's offset. */
  firmwareBytesServed = 0;
  readonly firmwareRequests: number[] = [];
  /** Set: the next DownloadFirmware call fails with UNAVAILABLE once it sent this many bytes (a broken stream). */
  breakNextDownloadAfter: number | undefined;

  /** Loopback by default; an address on a veth we created when an agent runs in another namespace. */
  bindHost = '127.0.0.1';
  /** Plaintext by default; TLS (e.g. requiring client certificates, as the real controller does) when set. */
  credentials: ServerCredentials | undefined;

  get address(): string {
    return `${this.bindHost}:${this.port}`;
  }

  async start(port = this.port): Promise<void> {
    const server = new Server();
    server.addService(AgentServiceService, {
      connect: (stream: ServerDuplexStream<AgentMessage, ControllerMessage>) => this.onStream(stream),
      enroll: (_call: unknown, cb: (err: { code: number; details: string }) => void) =>
        cb({ code: status.UNIMPLEMENTED, details: 'no enrollment here' }),
      downloadFirmware: (call: ServerWritableStream<DownloadFirmwareRequest, FirmwareChunk>) =>
        void this.serveFirmware(call),
    });
    this.port = await new Promise<number>((resolve, reject) =>
      server.bindAsync(`${this.bindHost}:${port}`, this.credentials ?? ServerCredentials.createInsecure(), (err, p) =>
        err ? reject(err) : resolve(p),
      ),
    );
    this.server = server;
  }

  private onStream(stream: ServerDuplexStream<AgentMessage, ControllerMessage>): void {
    let identity = '';
    stream.on('data', (message: AgentMessage) => {
      if (message.body?.$case === 'hello') {
        identity = message.body.value.router?.identity ?? '';
        this.hellos.push({ identity, hello: message.body.value, at: Date.now() });
        this.streams.set(identity, stream);
        this.write(stream, {
          $case: 'welcome',
          value: {
            routerId: `r-${identity}`,
            heartbeatIntervalSeconds: 5,
            telemetryIntervalSeconds: this.telemetryIntervalSeconds,
            reconnectSpreadSeconds: this.reconnectSpreadSeconds,
          },
        });
        return;
      }
      this.received.push({ identity, at: Date.now(), message });
      if (this.autoAck && message.body?.$case === 'applyResult')
        this.write(stream, { $case: 'ack', value: { agentSeq: message.seq } });
      if (
        this.autoConfirm &&
        message.body?.$case === 'applyResult' &&
        message.body.value.status === ApplyResult_Status.STATUS_APPLIED
      ) {
        this.write(stream, {
          $case: 'confirmApply',
          value: { profile: message.body.value.profile, revision: message.body.value.revision },
        });
      }
    });
    const drop = () => {
      if (this.streams.get(identity) === stream) this.streams.delete(identity);
    };
    stream.on('end', () => {
      drop();
      stream.end();
    });
    stream.on('error', drop);
    stream.on('close', drop);
  }

  private write(stream: ServerDuplexStream<AgentMessage, ControllerMessage>, body: Body): number {
    this.seq += 1;
    stream.write({ seq: this.seq, sentAt: new Date(), body });
    return this.seq;
  }

  /** 64 KiB chunks from the request's offset, as the real controller serves them. */
  private async serveFirmware(call: ServerWritableStream<DownloadFirmwareRequest, FirmwareChunk>): Promise<void> {
    const image = this.firmwareImages.get(call.request.sha256);
    if (!image) {
      call.emit('error', { code: status.NOT_FOUND, details: 'unknown image' });
      return;
    }
    this.firmwareRequests.push(call.request.offset);
    const breakAfter = this.breakNextDownloadAfter;
    this.breakNextDownloadAfter = undefined;
    let sent = 0;
    for (let at = call.request.offset; at < image.length && !call.cancelled; at += 64 * 1024) {
      if (breakAfter !== undefined && sent >= breakAfter) {
        call.emit('error', { code: status.UNAVAILABLE, details: 'stream broken' });
        return;
      }
      const data = image.subarray(at, Math.min(image.length, at + 64 * 1024));
      sent += data.length;
      this.firmwareBytesServed += data.length;
      if (!call.write({ data })) await new Promise((r) => call.once('drain', r));
    }
    call.end();
  }

  firmwareProgress(identity: string): FirmwareProgress[] {
    return this.of(identity, 'firmwareProgress') as FirmwareProgress[];
  }

  connected(identity: string): boolean {
    return this.streams.has(identity);
  }

  /** Sends to a router; returns the message seq (CommandResult.commandSeq refers to it). */
  send(identity: string, body: Body): number {
    const stream = this.streams.get(identity);
    if (!stream) throw new Error(`router ${identity} is not connected`);
    return this.write(stream, body);
  }

  /** Apply results as the real controller records them: once per result_id, however often one was sent. */
  results(identity: string): ApplyResult[] {
    const seen = new Set<string>();
    return this.allResults(identity).filter((r) => !r.resultId || (!seen.has(r.resultId) && seen.add(r.resultId)));
  }

  /** Every ApplyResult message received, re-sent ones included. */
  allResults(identity: string): ApplyResult[] {
    return this.received
      .filter((r) => r.identity === identity && r.message.body?.$case === 'applyResult')
      .map((r) => (r.message.body as { value: ApplyResult }).value);
  }

  driftReports(identity: string): DriftReport[] {
    return this.of(identity, 'driftReport') as DriftReport[];
  }

  commandResults(identity: string): CommandResult[] {
    return this.of(identity, 'commandResult') as CommandResult[];
  }

  telemetry(identity: string): Telemetry[] {
    return this.of(identity, 'telemetry') as Telemetry[];
  }

  private of(identity: string, kind: string): unknown[] {
    return this.received
      .filter((r) => r.identity === identity && r.message.body?.$case === kind)
      .map((r) => (r.message.body as { value: unknown }).value);
  }

  /** Stops at once, cutting every stream (a crashed or unreachable controller). */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    this.streams.clear();
    if (server) server.forceShutdown();
  }
}
