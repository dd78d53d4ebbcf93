import { EventEmitter } from 'node:events';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { FleetBus } from './fleet-bus.js';

/** The fleet bus across replicas: Redis pub/sub (loaded only when REDIS_URL is set). */
export class RedisFleetBus implements FleetBus {
  private readonly pub: Redis;
  private readonly sub: Redis;
  private readonly events = new EventEmitter().setMaxListeners(0);
  private readonly desiredChannel: string;

  /** `prefix` names this installation's channels (ControllerConfig.redisPrefix). */
  constructor(
    redisUrl: string,
    private readonly log: Logger,
    prefix = 'wrtfleet',
  ) {
    this.desiredChannel = `${prefix}:desired`;
    this.pub = new Redis(redisUrl, { lazyConnect: false });
    this.sub = new Redis(redisUrl, { lazyConnect: false });
    this.sub.on('message', (_channel: string, message: string) => {
      try {
        const ids = JSON.parse(message) as unknown;
        if (Array.isArray(ids))
          this.events.emit(
            'desired',
            ids.filter((x) => typeof x === 'string'),
          );
      } catch (err) {
        this.log.warn({ err }, 'ignoring a malformed fleet bus message');
      }
    });
  }

  async start(): Promise<void> {
    await this.sub.subscribe(this.desiredChannel);
  }

  async publishDesired(routerIds: string[]): Promise<void> {
    // Chunked so one huge batch does not become one huge Redis message.
    for (let i = 0; i < routerIds.length; i += 500)
      await this.pub.publish(this.desiredChannel, JSON.stringify(routerIds.slice(i, i + 500)));
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
