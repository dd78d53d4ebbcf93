import { EventEmitter } from 'node:events';
import {
  Metadata,
  credentials as grpcCredentials,
  status as grpcStatus,
  type ChannelCredentials,
  type ClientDuplexStream,
  type ServiceError,
} from '@grpc/grpc-js';
import {
  attemptReaching,
  backoffDelayMs,
  controllerAddresses,
  DEFAULT_RECONNECT_POLICY,
  homeAddressIndex,
  retryAfterHint,
  type ReconnectPolicy,
} from './reconnect-policy.js';
import { refusalMessage, refusedForGood, type Refusal } from './controller-refusal.js';
export type { Refusal } from './controller-refusal.js';
import {
  AgentServiceClient,
  type AgentMessage,
  type ControllerMessage,
  type Hello,
  type Welcome,
} from '../proto/gen/wrtfleet/agent/v1/agent.js';
import type { DownloadFirmwareRequest, FirmwareChunk } from '../proto/gen/wrtfleet/agent/v1/firmware.js';
import { controllerChannelOptions } from './enrollment/controller-server-name.js';

/** What an agent sends up the stream, minus the envelope the link fills in. */
export type AgentBody = NonNullable<AgentMessage['body']>;

export interface ControllerLinkOptions {
  /** host:port of the controller's gRPC endpoint, or several, comma-separated (controllerAddresses). */
  address: string;
  /** Picks the home address among several (homeAddressIndex); the router's identity. Default: random. */
  homeKey?: string;
  /** A function is read at each new channel: the channel after a renewal gets the new certificate. */
  credentials?: ChannelCredentials | (() => ChannelCredentials);
  /** Builds the Hello for each (re)connection, so it always carries current facts and state. */
  hello: () => Promise<Hello>;
  reconnect?: Partial<ReconnectPolicy>;
  /** Fallback heartbeat period until the controller's Welcome names one. */
  heartbeatIntervalMs?: number;
  random?: () => number;
}

/** `refused`: the controller refused the router for good; the link only checks now and then. */
export type LinkState = 'idle' | 'connecting' | 'connected' | 'waiting' | 'refused' | 'stopped';

/**
 * The agent's one long-lived stream to the controller: dials out (routers sit behind
 * NAT), says Hello, heartbeats, and reconnects with backoff and jitter for as long as it
 * runs. Messages from the controller are emitted as 'message'; lifecycle as 'state',
 * 'welcome' and 'disconnected' (with the gRPC status that ended the stream); 'refused' (a
 * Refusal) once when the controller refuses the router for good, after which it stops
 * dialling but for a rare check (ReconnectPolicy.refusedCheckMs).
 */
export class ControllerLink extends EventEmitter {
  readonly addresses: string[];
  private readonly home: number;
  /** Index into `addresses` of the one the next (or current) stream uses. */
  private current: number;
  /** One channel per address, opened when first used. */
  private readonly clients = new Map<number, AgentServiceClient>();
  /** Set after a certificate renewal: the next connection opens a new channel (a new TLS handshake). */
  private freshChannel = false;
  private readonly policy: ReconnectPolicy;
  private readonly random: () => number;
  private stream: ClientDuplexStream<AgentMessage, ControllerMessage> | undefined;
  private seq = 0;
  private failures = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private heartbeatTimer: NodeJS.Timeout | undefined;
  private homeTimer: NodeJS.Timeout | undefined;
  /** Set when the stream is closed on purpose to move home: reconnect at once, no jitter. */
  private movingHome = false;
  private readonly startedAt = Date.now();
  private _state: LinkState = 'idle';
  private _welcome: Welcome | undefined;
  /** No reconnect before this time (epoch ms): set by drop(). */
  private holdUntil = 0;
  private identity = '';
  /** Number of streams that reached Welcome; tests and telemetry read it. */
  sessions = 0;
  /** Set while the controller refuses this router for good (cleared by a Welcome). */
  private _refusal: Refusal | undefined;

  constructor(private readonly options: ControllerLinkOptions) {
    super();
    this.policy = { ...DEFAULT_RECONNECT_POLICY, ...options.reconnect };
    this.random = options.random ?? Math.random;
    this.addresses = controllerAddresses(options.address);
    this.home =
      options.homeKey !== undefined
        ? homeAddressIndex(options.homeKey, this.addresses.length)
        : Math.floor(this.random() * this.addresses.length);
    this.current = this.home;
  }

  /** The address this agent returns to when it answers (homeAddressIndex). */
  get homeAddress(): string {
    return this.addresses[this.home]!;
  }

  /** The address the current (or next) stream uses. */
  get address(): string {
    return this.addresses[this.current]!;
  }

  private clientFor(index: number): AgentServiceClient {
    let client = this.clients.get(index);
    if (!client) {
      client = this.newClient(this.addresses[index]!);
      this.clients.set(index, client);
    }
    return client;
  }

  /**
   * Forgets the channel to an address that failed. A gRPC channel left in transient failure
   * redials on its own short backoff, whatever the link's backoff says: ten thousand of them
   * are a SYN storm against a controller that is starting or overloaded. A fresh channel per
   * attempt makes the link's jittered backoff the only schedule there is.
   */
  private dropClient(index: number): void {
    this.clients.get(index)?.close();
    this.clients.delete(index);
  }

  private closeClients(): void {
    for (const client of this.clients.values()) client.close();
    this.clients.clear();
  }

  /**
   * The next (re)connection uses a new channel, hence a new TLS handshake presenting the
   * current client certificate (after a renewal). Streams on the old connection would keep
   * presenting the certificate the connection was opened with.
   */
  renewChannel(): void {
    this.freshChannel = true;
  }

  private newClient(address: string): AgentServiceClient {
    const options = this.options;
    const credentials = typeof options.credentials === 'function' ? options.credentials() : options.credentials;
    return new AgentServiceClient(address, credentials ?? grpcCredentials.createInsecure(), {
      ...controllerChannelOptions(address),
      // Keepalives notice a dead path (NAT timeout, unplugged WAN) without waiting for TCP.
      'grpc.keepalive_time_ms': 30_000,
      'grpc.keepalive_timeout_ms': 10_000,
      'grpc.keepalive_permit_without_calls': 1,
      // A refused dial fails the stream at once and the link drops the channel (dropClient).
      // grpc-js (1.14) still dials once more after the channel's backoff, for no one: were the
      // controller back by then, that connection would be an orphan, opened and never used,
      // holding a handshake slot there (a thousand of them stalled a 10,000-agent restart).
      // With a 1 ms backoff that dial meets the same refusing port.
      'grpc.initial_reconnect_backoff_ms': 1,
      'grpc.max_reconnect_backoff_ms': 2_000,
      // Each agent owns its connection, even when many run in one process (a proxy, the
      // simulated fleet): one router's broken stream must not take the others down.
      'grpc.use_local_subchannel_pool': 1,
    });
  }

  get state(): LinkState {
    return this._state;
  }

  get welcome(): Welcome | undefined {
    return this._welcome;
  }

  /** The controller's refusal of this router, while it lasts. */
  get refusal(): Refusal | undefined {
    return this._refusal;
  }

  start(): void {
    if (this._state !== 'idle') return;
    void this.connect();
  }

  /**
   * Sends a message on the live stream. Returns its seq on this stream (what the controller's
   * Ack names), or 0 when there is no stream. Written is not delivered: a stream can break
   * with messages still in flight, which is why apply results wait for their Ack.
   */
  send(body: AgentBody): number {
    if (!this.stream || this._state !== 'connected') return 0;
    this.seq += 1;
    this.stream.write({ seq: this.seq, sentAt: new Date(), body });
    return this.seq;
  }

  /** DownloadFirmware on the channel the stream uses (its address, its client certificate); cancelled when left early. */
  async *downloadFirmware(request: DownloadFirmwareRequest, signal?: AbortSignal): AsyncGenerator<FirmwareChunk> {
    // The router the call speaks for (the last Hello's): its certificate must name it.
    const metadata = new Metadata();
    metadata.set('wrtfleet-identity', this.identity);
    const call = this.clientFor(this.current).downloadFirmware(request, metadata);
    signal?.addEventListener('abort', () => call.cancel(), { once: true });
    try {
      for await (const chunk of call) yield chunk as FirmwareChunk;
    } finally {
      call.cancel();
    }
  }

  /**
   * Ends the current stream as a router going down would, and dials again no sooner than
   * `reconnectAfterMs` from now (a simulated reboot: the agent is gone, then back).
   */
  drop(reconnectAfterMs: number): void {
    this.holdUntil = Date.now() + reconnectAfterMs;
    // Without a stream, the reconnect already scheduled (or in progress) keeps the hold.
    this.stream?.cancel();
  }

  async stop(): Promise<void> {
    this.setState('stopped');
    clearTimeout(this.retryTimer);
    clearInterval(this.heartbeatTimer);
    clearTimeout(this.homeTimer);
    const stream = this.stream;
    this.stream = undefined;
    if (stream) {
      stream.end();
      stream.cancel();
    }
    this.closeClients();
  }

  private setState(state: LinkState): void {
    if (this._state === 'stopped' && state !== 'stopped') return;
    this._state = state;
    this.emit('state', state);
  }

  private async connect(): Promise<void> {
    if (this._state === 'stopped') return;
    this.setState('connecting');
    let hello: Hello;
    try {
      hello = await this.options.hello();
      this.identity = hello.router?.identity ?? '';
    } catch (err) {
      this.emit('error', err);
      this.scheduleReconnect(false);
      return;
    }
    if ((this._state as LinkState) === 'stopped') return;
    if (this.freshChannel) {
      this.freshChannel = false;
      this.closeClients();
    }
    const stream = this.clientFor(this.current).connect();
    this.stream = stream;
    this.seq = 0;
    let established = false;
    let finished = false;

    const finish = (error: ServiceError | undefined) => {
      if (finished) return;
      finished = true;
      clearInterval(this.heartbeatTimer);
      clearTimeout(this.homeTimer);
      if (this.stream === stream) this.stream = undefined;
      this.emit('disconnected', { code: error?.code ?? grpcStatus.OK, details: error?.details ?? 'stream ended' });
      if (refusedForGood(error)) this.scheduleRefusedCheck(error!);
      else this.scheduleReconnect(established, retryAfterHint(error));
    };

    stream.on('data', (message: ControllerMessage) => {
      if (message.body?.$case === 'welcome' && !established) {
        established = true;
        this.failures = 0;
        this._refusal = undefined;
        this.sessions += 1;
        this._welcome = message.body.value;
        this.setState('connected');
        this.startHeartbeats(message.body.value.heartbeatIntervalSeconds);
        this.scheduleHomeCheck();
        this.emit('welcome', message.body.value);
      }
      this.emit('message', message);
    });
    stream.on('error', (err: ServiceError) => finish(err));
    stream.on('end', () => finish(undefined));
    stream.on('close', () => finish(undefined));

    this.seq += 1;
    stream.write({ seq: this.seq, sentAt: new Date(), body: { $case: 'hello', value: hello } });
  }

  private startHeartbeats(intervalSeconds: number): void {
    clearInterval(this.heartbeatTimer);
    const ms = intervalSeconds > 0 ? intervalSeconds * 1000 : (this.options.heartbeatIntervalMs ?? 15_000);
    this.heartbeatTimer = setInterval(() => {
      this.send({ $case: 'heartbeat', value: { uptimeSeconds: Math.floor((Date.now() - this.startedAt) / 1000) } });
    }, ms);
    this.heartbeatTimer.unref();
  }

  /**
   * Connected away from home: check now and then whether home answers (a TCP and TLS
   * handshake, no stream), and move back when it does, so a returning replica gets its
   * share of the fleet again.
   */
  private scheduleHomeCheck(): void {
    clearTimeout(this.homeTimer);
    if (this.current === this.home || this.policy.homeCheckMs <= 0) return;
    const delay = Math.floor(this.policy.homeCheckMs * (0.5 + this.random()));
    this.homeTimer = setTimeout(() => {
      const probe = this.clientFor(this.home);
      probe.waitForReady(Date.now() + Math.min(10_000, this.policy.homeCheckMs), (err) => {
        if (err && this.current !== this.home) this.dropClient(this.home);
        if (this._state !== 'connected' || this.current === this.home) return;
        if (err) return this.scheduleHomeCheck();
        this.emit('moving-home', this.addresses[this.home]);
        this.movingHome = true;
        this.current = this.home;
        const stream = this.stream;
        stream?.end();
        stream?.cancel();
      });
    }, delay);
    this.homeTimer.unref();
  }

  /**
   * Over how long a lost session's first reconnection is spread: the agent's own jitter window,
   * or the controller's spread if longer. A controller holding 10,000 streams admits them in
   * about 50 s; all of them inside 10 s overflow its accept queue.
   */
  private reconnectSpreadMs(): number {
    return Math.max(this.policy.jitterWindowMs, (this._welcome?.reconnectSpreadSeconds ?? 0) * 1000);
  }

  /**
   * Refused for good: one report, then only a rare check. A decommissioned router retrying on
   * the usual backoff was a warning in the controller's log every few seconds, forever, and
   * nothing on the agent's side said why or what to do.
   */
  private scheduleRefusedCheck(error: ServiceError): void {
    if (this._state === 'stopped') return;
    // Nothing will change on this channel's side; the check opens a fresh one.
    this.dropClient(this.current);
    this.setState('refused');
    const checkInMs = Math.floor(this.policy.refusedCheckMs * (0.5 + this.random()));
    const first = this._refusal === undefined;
    this._refusal = {
      code: error.code,
      details: error.details,
      message: refusalMessage(error.details, this.policy.refusedCheckMs),
      checkInMs,
    };
    if (first) this.emit('refused', this._refusal);
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => void this.connect(), checkInMs);
  }

  private scheduleReconnect(afterEstablishedSession: boolean, retryAfterMs?: number): void {
    if (this._state === 'stopped') return;
    this.setState('waiting');
    // An attempt that did not reach Welcome tries the next address; a session that ended
    // tries its own address once more first (most drops are blips, not a dead replica). A busy
    // controller that named a time is tried again then: it answers, it only asked for patience.
    // A controller that asked for patience answered over this connection: keep it, the retry
    // then costs no new handshake.
    if (!afterEstablishedSession && retryAfterMs === undefined) {
      this.dropClient(this.current);
      if (this.addresses.length > 1) this.current = (this.current + 1) % this.addresses.length;
    }
    const movingHome = this.movingHome;
    this.movingHome = false;
    // A lost session's retries go on at the scale of its jitter window, not from the first
    // step: after a controller's kill, a fleet retrying every 0.5-2 s while it restarts spent
    // the machine's CPU on refused dials (each a new channel) that the restart needed.
    // With several addresses the next try goes elsewhere, and failing over is not held back.
    if (afterEstablishedSession && this.addresses.length === 1)
      this.failures = attemptReaching(this.policy.jitterWindowMs, this.policy);
    const delay = movingHome
      ? 0
      : Math.max(
          this.holdUntil - Date.now(),
          retryAfterMs !== undefined
            ? retryAfterMs
            : afterEstablishedSession
              ? Math.floor(this.random() * this.reconnectSpreadMs())
              : backoffDelayMs(this.failures++, this.policy, this.random),
        );
    this.emit('retry', delay);
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => void this.connect(), delay);
  }
}
