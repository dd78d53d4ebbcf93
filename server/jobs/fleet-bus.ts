import { EventEmitter } from 'node:events';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';

/**
 * Tells every replica that some routers' desired state changed, so the replica holding a
 * router's stream pushes it. In-process on the embedded default; Redis pub/sub across
 * replicas. A lost message costs only latency: agents also get their desired state on
 * every (re)connection.
 */
export interface FleetBus {
  publishDesired(routerIds: string[]): Promise<void>;
  onDesired(listener: (routerIds: string[]) => void): void;
  close(): Promise<void>;
}

export class InProcessFleetBus implements FleetBus {
  private readonly events = new EventEmitter().setMaxListeners(0);

  async publishDesired(routerIds: string[]): Promise<void> {
    if (routerIds.length) this.events.emit('desired', routerIds);
  }

  onDesired(listener: (routerIds: string[]) => void): void {
    this.events.on('desired', listener);
  }

  async close(): Promise<void> {
    this.events.removeAllListeners();
  }
}

const CHANNEL = 'wrtfleet:desired';

export class RedisFleetBus implements FleetBus {
  private readonly pub: Redis;
  private readonly sub: Redis;
  private readonly events = new EventEmitter().setMaxListeners(0);

  constructor(redisUrl: string, private readonly log: Logger) {
    this.pub = new Redis(redisUrl, { lazyConnect: false });
    this.sub = new Redis(redisUrl, { lazyConnect: false });
    this.sub.on('message', (_channel: string, message: string) => {
      try {
        const ids = JSON.parse(message) as unknown;
        if (Array.isArray(ids)) this.events.emit('desired', ids.filter((x) => typeof x === 'string'));
      } catch (err) {
        this.log.warn({ err }, 'ignoring a malformed fleet bus message');
      }
    });
  }

  async start(): Promise<void> {
    await this.sub.subscribe(CHANNEL);
  }

  async publishDesired(routerIds: string[]): Promise<void> {
    // Chunked so one huge batch does not become one huge Redis message.
    for (let i = 0; i < routerIds.length; i += 500) await this.pub.publish(CHANNEL, JSON.stringify(routerIds.slice(i, i + 500)));
  }

  onDesired(listener: (routerIds: string[]) => void): void {
    this.events.on('desired', listener);
  }

  async close(): Promise<void> {
    this.events.removeAllListeners();
    this.sub.disconnect();
    this.pub.disconnect();
  }
}
