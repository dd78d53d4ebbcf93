import net from 'node:net';
import type { Server, ServerCredentials } from '@grpc/grpc-js';

/**
 * Admission control for connections, before TLS. A returning fleet dials thousands of
 * connections in seconds; handshaking all of them at once interleaves thousands of TLS
 * handshakes on the one event loop, so none finishes early (the first 10 % of a 10,000-agent
 * restart came back only after 103 s) while the kernel's accept queue overflows.
 *
 * Here the gateway accepts every connection itself and hands at most `maxHandshaking` at a
 * time to gRPC. A connection counts as handshaking from its accept until its first call (TLS,
 * HTTP/2 and the Hello's stream are set up then), its close, or `handshakeTimeoutMs`. Past the
 * limit a connection is reset at once: it costs an accept, not a TLS handshake, and the agent
 * retries on its jittered backoff. The accept queue stays short, so the kernel drops nothing.
 */
export interface ConnectionAdmissionOptions {
  host: string;
  port: number;
  maxHandshaking: number;
  /** A connection without a call after this long no longer counts as handshaking. */
  handshakeTimeoutMs?: number;
  /** The listen backlog (the kernel caps it at net.core.somaxconn). */
  backlog?: number;
}

const DEFAULT_HANDSHAKE_TIMEOUT_MS = 10_000;
const DEFAULT_BACKLOG = 4_096;

/** The key grpc-js's `call.getPeer()` gives the connection a call came on. */
function peerKey(socket: net.Socket): string {
  return `${socket.remoteAddress}:${socket.remotePort}`;
}

export class ConnectionAdmission {
  private readonly listener: net.Server;
  private injector: ReturnType<Server['createConnectionInjector']> | undefined;
  /** Connections handed to gRPC without a call yet, by peer, with the timer that expires them. */
  private readonly handshaking = new Map<string, { socket: net.Socket; timer: NodeJS.Timeout }>();
  /** Connections reset before TLS because too many were handshaking (/metrics). */
  refused = 0;
  accepted = 0;

  constructor(
    private readonly grpcServer: Server,
    private readonly credentials: ServerCredentials,
    private readonly options: ConnectionAdmissionOptions,
  ) {
    this.listener = net.createServer({ noDelay: true }, (socket) => this.admit(socket));
  }

  get inHandshake(): number {
    return this.handshaking.size;
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
    return (this.listener.address() as net.AddressInfo).port;
  }

  /** The connection `peer` (as `call.getPeer()` names it) carries a call: its handshake is over. */
  callArrived(peer: string): void {
    this.forget(peer);
  }

  /**
   * Stops accepting. The connections already handed over are the gRPC server's to close (its
   * shutdown closes the injector's sessions too); the listener's own close completes after them.
   */
  stop(): void {
    for (const { timer } of this.handshaking.values()) clearTimeout(timer);
    this.handshaking.clear();
    this.listener.close();
  }

  private admit(socket: net.Socket): void {
    if (this.handshaking.size >= this.options.maxHandshaking || !this.injector) {
      this.refused += 1;
      // A reset, not a FIN: no TIME_WAIT left here, and the agent sees the refusal at once.
      socket.resetAndDestroy();
      return;
    }
    this.accepted += 1;
    const key = peerKey(socket);
    const timeoutMs = this.options.handshakeTimeoutMs ?? DEFAULT_HANDSHAKE_TIMEOUT_MS;
    const timer = setTimeout(() => this.forget(key, socket), timeoutMs);
    timer.unref();
    this.handshaking.set(key, { socket, timer });
    socket.once('close', () => this.forget(key, socket));
    // TLS takes the socket over; an error before it does must not go unhandled.
    socket.on('error', () => undefined);
    this.injector.injectConnection(socket);
  }

  /** `socket`: only if the entry is still that connection's (a later one may reuse the peer). */
  private forget(key: string, socket?: net.Socket): void {
    const entry = this.handshaking.get(key);
    if (!entry || (socket && entry.socket !== socket)) return;
    clearTimeout(entry.timer);
    this.handshaking.delete(key);
  }
}
