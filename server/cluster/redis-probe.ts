import type { Redis } from 'ioredis';

/**
 * A connection kept only to ask Redis whether it answers (PING): it never queues a command
 * while Redis is away, so a probe fails at once instead of waiting for the reconnect.
 */
export async function redisProbe(redisUrl: string): Promise<{ probe(): Promise<unknown>; close(): Promise<void> }> {
  const { Redis: Client } = await import('ioredis');
  const client: Redis = new Client(redisUrl, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: 2_000,
    retryStrategy: () => 1_000,
  });
  // Errors are the probe's answers; unhandled they would only be printed.
  client.on('error', () => {});
  return {
    probe: () => client.ping(),
    close: async () => {
      client.disconnect();
    },
  };
}
