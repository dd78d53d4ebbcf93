import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { ApiError } from './api-error.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The streamed responses each caller has open on this replica (server/http/streamed-response.ts). */
    streamSlots: StreamSlots;
  }
}

/** A held slot; releasing it twice is harmless, so every way a stream ends may release it. */
export type StreamSlot = () => void;

/**
 * How many streamed responses (event streams, audit exports) each caller has open at once.
 * Each holds a socket and polls the database for up to the stream time limit, so one token
 * opening hundreds would tie up the replica for everyone; past the cap a caller gets 429
 * until one of its streams closes. Counted per replica, in memory.
 */
export class StreamSlots {
  private readonly held = new Map<string, number>();

  constructor(readonly perCaller: number) {}

  /** Takes a slot for `caller`, or throws the 429 that says the caller holds them all. */
  acquire(caller: string): StreamSlot {
    const count = this.held.get(caller) ?? 0;
    if (count >= this.perCaller)
      throw new ApiError(
        429,
        'too_many_streams',
        `this caller already has ${count} streams open, the most one caller may hold at once (${this.perCaller}); close one first`,
      );
    this.held.set(caller, count + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.held.get(caller) ?? 1) - 1;
      if (left > 0) this.held.set(caller, left);
      else this.held.delete(caller);
    };
  }
}

/**
 * Who a stream counts against: the actor (all tokens of one owner, all sessions of one account
 * are one caller, so minting more tokens does not raise the cap), else the client address.
 */
export function streamCaller(request: FastifyRequest): string {
  return request.actor?.id ?? `address:${request.ip}`;
}

async function streamSlotsPlugin(app: FastifyInstance, { perCaller }: { perCaller: number }) {
  app.decorate('streamSlots', new StreamSlots(perCaller));
}

export default fp(streamSlotsPlugin, { name: 'wrtfleet-stream-slots' });
