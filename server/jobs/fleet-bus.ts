import { EventEmitter } from 'node:events';

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
