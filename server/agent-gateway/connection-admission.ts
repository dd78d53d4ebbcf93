import net from 'node:net';
import type { Server, ServerCredentials } from '@grpc/grpc-js';
import { duplicateListener } from './listener-handles.js';

/**
 * Admission control for connections, before TLS. A returning fleet dials thousands of
 * connections in seconds; handshaking all of them at once interleaves thousands of TLS
 * handshakes on the one event loop, so none finishes early (the first 10 % of a 10,000-agent
 * restart came back only after 103 s), and while the loop is busy the kernel's accept queue
 * overflows and drops connections, which the agents then redial.
 *
 * Here the gateway accepts every connection itself at once, without reading from it, and
 * hands at most `maxHandshaking` at a time to gRPC, the others waiting in arrival order. A
 * connection counts as handshaking from its hand-over until its first call (TLS, HTTP/2 and
 * the stream are set up then), its close, or `handshakeTimeoutMs`. A waiting agent only waits:
 * its TLS hello sits in the socket until its turn, and nothing is redialled. Past `maxWaiting`
 * a connection is reset, which costs an accept, and the agent retries on its backoff.
 *
 * Resetting every connection past the handshake limit was tried first: at 10,000 agents their
 * redials (each a new channel and TLS context on the agent) took the CPU the handshakes needed.
 */
export interface ConnectionAdmissionOptions {
  host: string;
  port: number;
  maxHandshaking: number;
  /** Connections accepted and waiting for a handshake slot, at most; past it they are reset. */
  maxWaiting?: number;
  /** A connection without a call after this long no longer counts as handshaking. */
  handshakeTimeoutMs?: number;
  /** The listen backlog (the kernel caps it at net.core.somaxconn). */
  backlog?: number;
}

/**
 * Connections in handshake at once unless configured (WRTFLEET_MAX_HANDSHAKING_CONNECTIONS):
 * enough to keep both cores busy handshaking, few enough that each handshake ends in well
 * under a second.
 */
export const DEFAULT_MAX_HANDSHAKING = 128;
/** Connections waiting for a slot, at most, unless configured (WRTFLEET_MAX_WAITING_CONNECTIONS). */
export const DEFAULT_MAX_WAITING = 20_000;
/**
 * How long a connection may hold a handshake slot without a call, unless configured
 * (WRTFLEET_HANDSHAKE_TIMEOUT_SECONDS). It stays open after; it only stops counting. A real
 * handshake takes well under a second; a connection its agent opened and abandoned (an orphan)
 * would otherwise hold the slot the whole time.
 */
export const DEFAULT_HANDSHAKE_TIMEOUT_SECONDS = 3;
const DEFAULT_BACKLOG = 4_096;
/**
 * Listening handles on the agent port, all for its one socket. libuv (1.46, in Node 20) accepts
 * one connection per handle per event-loop turn, so with few handles a returning fleet waits in
 * the kernel's accept queue with handshake slots free, and past net.core.somaxconn its
 * connections are dropped (a TCP retransmission wait each). Each handle is one accept more per
 * turn, for one descriptor. Why 64: fewer still overflowed in a fleet's restart; measured in
 * docs/BENCHMARKS.md#connect-storms-and-the-accept-queue.
 */
const ACCEPT_HANDLES = 64;
/**
 * Agent connects one replica admits a second unless configured (WRTFLEET_AGENT_ADMISSION_RATE).
 * Why 200: near the connect rate a replica sustained with mutual TLS on two cores shared with the agents;
 * measured in docs/BENCHMARKS.md#connect-storms-and-the-accept-queue.
 */
export const DEFAULT_ADMISSION_RATE = 200;
const MAX_RECONNECT_SPREAD_SECONDS = 600;

/**
 * The Welcome's reconnect spread: how long `streams` agents need to come back through a replica
 * admitting `rate` a second. Arriving faster only queues them, and past the queues (the waiting
 * list, then the kernel's, net.core.somaxconn) connections are dropped, each drop costing its
 * agent a TCP retransmission timeout (1 s, then 3, 7 ...).
 */
export function reconnectSpreadSeconds(streams: number, rate: number): number {
  // Rounded down: a fleet the replica admits within a second needs no spread beyond the agents' own.
  return Math.min(MAX_RECONNECT_SPREAD_SECONDS, Math.floor(streams / rate));
}

/** The key grpc-js's `call.getPeer()` gives the connection a call came on. */
function peerKey(socket: net.Socket): string {
  return `${socket.remoteAddress}:${socket.remotePort}`;
}

export class ConnectionAdmission {
  private readonly listener: net.Server;
  /** The same socket's other listening handles (duplicateListener). */
  private extraListeners: net.Server[] = [];
  private injector: ReturnType<Server['createConnectionInjector']> | undefined;
  /** The injector after stop(): its sessions can still be destroyed. */
  private stoppedInjector: ReturnType<Server['createConnectionInjector']> | undefined;
  /** Connections handed to gRPC without a call yet, by peer, with the timer that expires them. */
  private readonly handshaking = new Map<string, { socket: net.Socket; timer: NodeJS.Timeout }>();
  /** Accepted, not read from, in arrival order; `head` is the next to hand over (those before it are cleared). */
  private waiting: (net.Socket | undefined)[] = [];
  private head = 0;
  /** Connections reset because too many were waiting (/metrics). */
  refused = 0;
  /** Connections that held a handshake slot for `handshakeTimeoutMs` without a call or a close (/metrics). */
  handshakesTimedOut = 0;

  constructor(
    private readonly grpcServer: Server,
    private readonly credentials: ServerCredentials,
    private readonly options: ConnectionAdmissionOptions,
  ) {
    this.listener = this.createListener();
  }

  private createListener(): net.Server {
    // Not read from until handed over: TLS reads the agent's hello from the socket then.
    return net.createServer({ noDelay: true, pauseOnConnect: true }, (socket) => this.admit(socket));
  }

  get inHandshake(): number {
    return this.handshaking.size;
  }

  get waitingCount(): number {
    return this.waiting.length - this.head;
  }

  async start(): Promise<number> {
    this.injector = this.grpcServer.createConnectionInjector(this.credentials);
    await new Promise<void>((resolve, reject) => {
      this.listener.once('error', reject);
      this.listener.listen(
        { host: this.options.host, port: this.options.port, backlog: this.options.backlog ?? DEFAULT_BACKLOG },
        () => {
          this.listener.off('error', reject);
          resolve();
        },
      );
    });
    this.extraListeners = await duplicateListener(
      this.listener,
      ACCEPT_HANDLES - 1,
      this.options.backlog ?? DEFAULT_BACKLOG,
      () => this.createListener(),
    );
    return (this.listener.address() as net.AddressInfo).port;
  }

  /** The connection `peer` (as `call.getPeer()` names it) carries a call: its handshake is over. */
  callArrived(peer: string): void {
    this.forget(peer);
  }

  /**
   * Stops accepting and resets the waiting connections. Those already handed over are the
   * gRPC server's to close: its graceful shutdown closes them, and `destroyHandedOver` ends
   * those still open after it.
   */
  stop(): void {
    for (const { timer } of this.handshaking.values()) clearTimeout(timer);
    this.handshaking.clear();
    for (let i = this.head; i < this.waiting.length; i++) this.waiting[i]?.resetAndDestroy();
    this.waiting = [];
    this.head = 0;
    this.listener.close();
    for (const extra of this.extraListeners) extra.close();
    this.extraListeners = [];
    this.stoppedInjector = this.injector;
    this.injector = undefined;
  }

  /**
   * Destroys every connection handed to gRPC that is still open. grpc-js's forceShutdown
   * destroys only the sessions it records for channelz, which the agent port turns off.
   */
  destroyHandedOver(): void {
    this.stoppedInjector?.drain(0);
  }

  private admit(socket: net.Socket): void {
    // A waiting connection's errors (the agent gave up) must not go unhandled; TLS takes it over later.
    socket.on('error', () => undefined);
    if (!this.injector || this.waitingCount >= (this.options.maxWaiting ?? DEFAULT_MAX_WAITING)) {
      this.refused += 1;
      // A reset, not a FIN: no TIME_WAIT left here, and the agent sees the refusal at once.
      socket.resetAndDestroy();
      return;
    }
    this.waiting.push(socket);
    this.handOver();
  }

  /** Hands waiting connections to gRPC while handshake slots are free. */
  private handOver(): void {
    while (this.handshaking.size < this.options.maxHandshaking && this.head < this.waiting.length) {
      const socket = this.waiting[this.head]!;
      this.waiting[this.head++] = undefined;
      if (this.head > 1024 && this.head * 2 > this.waiting.length) {
        this.waiting = this.waiting.slice(this.head);
        this.head = 0;
      }
      // Gone while waiting (reset by the agent): nothing to hand over.
      if (socket.destroyed || !this.injector) continue;
      const key = peerKey(socket);
      const timeoutMs = this.options.handshakeTimeoutMs ?? DEFAULT_HANDSHAKE_TIMEOUT_SECONDS * 1000;
      const timer = setTimeout(() => {
        this.handshakesTimedOut += 1;
        this.forget(key, socket);
      }, timeoutMs);
      timer.unref();
      this.handshaking.set(key, { socket, timer });
      socket.once('close', () => this.forget(key, socket));
      // Reading starts now (accepted paused). TLS would start it by itself; plaintext HTTP/2 does not.
      socket.resume();
      this.injector.injectConnection(socket);
    }
  }

  /** `socket`: only if the entry is still that connection's (a later one may reuse the peer). */
  private forget(key: string, socket?: net.Socket): void {
    const entry = this.handshaking.get(key);
    if (!entry || (socket && entry.socket !== socket)) return;
    clearTimeout(entry.timer);
    this.handshaking.delete(key);
    this.handOver();
  }
}
