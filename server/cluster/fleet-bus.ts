import { EventEmitter } from 'node:events';

/** A command's command to send to these routers (server/commands/command-delivery.ts). */
export interface CommandDeliveryMessage {
  commandId: string;
  routerIds: string[];
}

/** A firmware rollout's upgrade to send to these routers (server/firmware/upgrade-delivery.ts). */
export interface UpgradeDeliveryMessage {
  rolloutId: string;
  routerIds: string[];
}

/**
 * Tells every replica that some routers' desired state changed, or that a command sent
 * them a command, so the replica holding a router's stream pushes it. In-process on the
 * embedded default; Redis pub/sub across replicas. A lost desired-state message costs only
 * latency: agents also get their desired state on every (re)connection. A lost command
 * message leaves its routers to time out, as a router that never answers does.
 */
export interface FleetBus {
  publishDesired(routerIds: string[]): Promise<void>;
  onDesired(listener: (routerIds: string[]) => void): void;
  publishCommands(message: CommandDeliveryMessage): Promise<void>;
  onCommands(listener: (message: CommandDeliveryMessage) => void): void;
  publishUpgrades(message: UpgradeDeliveryMessage): Promise<void>;
  onUpgrades(listener: (message: UpgradeDeliveryMessage) => void): void;
  /** After a time this replica was not listening (Redis away): messages may have been missed. */
  onResubscribed(listener: () => void): void;
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

  async publishCommands(message: CommandDeliveryMessage): Promise<void> {
    if (message.routerIds.length) this.events.emit('commands', message);
  }

  onCommands(listener: (message: CommandDeliveryMessage) => void): void {
    this.events.on('commands', listener);
  }

  async publishUpgrades(message: UpgradeDeliveryMessage): Promise<void> {
    if (message.routerIds.length) this.events.emit('upgrades', message);
  }

  onUpgrades(listener: (message: UpgradeDeliveryMessage) => void): void {
    this.events.on('upgrades', listener);
  }

  /** Never: in one process nothing is missed. */
  onResubscribed(): void {}

  async close(): Promise<void> {
    this.events.removeAllListeners();
  }
}
