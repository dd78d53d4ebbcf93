import { EventEmitter } from 'node:events';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { CommandDeliveryMessage, FleetBus, UpgradeDeliveryMessage } from './fleet-bus.js';
import { RedisAvailability } from './redis-availability.js';

/** Router ids per message: one huge batch does not become one huge Redis message. */
const IDS_PER_MESSAGE = 500;

/** The fleet bus across replicas: Redis pub/sub (loaded only when REDIS_URL is set). */
export class RedisFleetBus implements FleetBus {
  private readonly pub: Redis;
  private readonly sub: Redis;
  private readonly events = new EventEmitter().setMaxListeners(0);
  private readonly desiredChannel: string;
  private readonly commandsChannel: string;
  private readonly upgradesChannel: string;

  /** `prefix` names this installation's channels (ControllerConfig.redisPrefix). */
  constructor(
    redisUrl: string,
    private readonly log: Logger,
    prefix = 'wrtfleet',
  ) {
    this.desiredChannel = `${prefix}:desired`;
    this.commandsChannel = `${prefix}:commands`;
    this.upgradesChannel = `${prefix}:upgrades`;
    this.pub = new Redis(redisUrl, { lazyConnect: false });
    this.sub = new Redis(redisUrl, { lazyConnect: false });
    // The publisher only logs its errors (the subscriber's watch says when Redis goes and returns).
    this.pub.on('error', (err: Error) => log.debug({ err }, 'fleet bus publisher error'));
    const subscriber = new RedisAvailability(this.sub, log, 'replicas may miss fleet bus messages');
    // Messages published while this replica was not subscribed are lost: once subscribed again
    // (ioredis resubscribes by itself; this reply comes after its), listeners catch up.
    subscriber.onBack(async () => {
      await this.sub.subscribe(this.desiredChannel, this.commandsChannel, this.upgradesChannel);
      this.events.emit('resubscribed');
    });
    this.sub.on('message', (channel: string, message: string) => {
      try {
        const parsed = JSON.parse(message) as unknown;
        if (channel === this.desiredChannel && Array.isArray(parsed))
          this.events.emit(
            'desired',
            parsed.filter((x) => typeof x === 'string'),
          );
        const m = parsed as Partial<CommandDeliveryMessage> | null;
        if (channel === this.commandsChannel && typeof m?.commandId === 'string' && Array.isArray(m.routerIds))
          this.events.emit('commands', {
            commandId: m.commandId,
            routerIds: m.routerIds.filter((x) => typeof x === 'string'),
          });
        const u = parsed as Partial<UpgradeDeliveryMessage> | null;
        if (channel === this.upgradesChannel && typeof u?.rolloutId === 'string' && Array.isArray(u.routerIds))
          this.events.emit('upgrades', {
            rolloutId: u.rolloutId,
            routerIds: u.routerIds.filter((x) => typeof x === 'string'),
          });
      } catch (err) {
        this.log.warn({ err }, 'ignoring a malformed fleet bus message');
      }
    });
  }

  async start(): Promise<void> {
    await this.sub.subscribe(this.desiredChannel, this.commandsChannel, this.upgradesChannel);
  }

  async publishDesired(routerIds: string[]): Promise<void> {
    for (let i = 0; i < routerIds.length; i += IDS_PER_MESSAGE)
      await this.pub.publish(this.desiredChannel, JSON.stringify(routerIds.slice(i, i + IDS_PER_MESSAGE)));
  }

  async publishCommands({ commandId, routerIds }: CommandDeliveryMessage): Promise<void> {
    for (let i = 0; i < routerIds.length; i += IDS_PER_MESSAGE)
      await this.pub.publish(
        this.commandsChannel,
        JSON.stringify({ commandId, routerIds: routerIds.slice(i, i + IDS_PER_MESSAGE) }),
      );
  }

  async publishUpgrades({ rolloutId, routerIds }: UpgradeDeliveryMessage): Promise<void> {
    for (let i = 0; i < routerIds.length; i += IDS_PER_MESSAGE)
      await this.pub.publish(
        this.upgradesChannel,
        JSON.stringify({ rolloutId, routerIds: routerIds.slice(i, i + IDS_PER_MESSAGE) }),
      );
  }

  onUpgrades(listener: (message: UpgradeDeliveryMessage) => void): void {
    this.events.on('upgrades', listener);
  }

  onCommands(listener: (message: CommandDeliveryMessage) => void): void {
    this.events.on('commands', listener);
  }

  onDesired(listener: (routerIds: string[]) => void): void {
    this.events.on('desired', listener);
  }

  onResubscribed(listener: () => void): void {
    this.events.on('resubscribed', listener);
  }

  async close(): Promise<void> {
    this.events.removeAllListeners();
    this.sub.disconnect();
    this.pub.disconnect();
  }
}
