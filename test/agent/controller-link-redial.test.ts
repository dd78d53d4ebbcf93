import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ControllerLink } from '../../agent/controller-link.js';
import { helloFor } from '../support/agents.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A TCP listener that accepts and at once drops every connection (a controller failing before TLS or HTTP/2). */
async function droppingListener() {
  const dialedAt: number[] = [];
  const server = net.createServer((socket) => {
    dialedAt.push(Date.now());
    socket.destroy();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, dialedAt, address: `127.0.0.1:${(server.address() as net.AddressInfo).port}` };
}

describe('ControllerLink dials only on its own backoff', () => {
  let link: ControllerLink | undefined;
  let server: net.Server | undefined;
  afterEach(async () => {
    await link?.stop();
    server?.close();
  });

  it('a failing controller is dialed on the link’s backoff only, not on the gRPC channel’s own 0.2-2 s redials', async () => {
    const listener = await droppingListener();
    server = listener.server;
    const started = Date.now();
    link = new ControllerLink({
      address: listener.address,
      hello: async () => helloFor('redial-1').body!.value as never,
      // The link's retry waits 3 s (random() near 1 takes the cap of full jitter).
      reconnect: { initialDelayMs: 3_000, maxDelayMs: 3_000 },
      random: () => 0.9999,
    });
    const retries: number[] = [];
    link.on('retry', (delay: number) => retries.push(delay));
    link.on('error', () => {});
    link.start();
    await sleep(2_900);
    // One attempt: gRPC dials twice (its channel tries once more 0.2 s later before failing the
    // stream), then the link waits its 3 s. A channel kept alive would go on redialing at
    // 0.6, 1.2, 2.2 s ... on its own schedule, whatever the link's backoff says.
    expect(retries).toHaveLength(1);
    expect(listener.dialedAt.length).toBeGreaterThanOrEqual(1);
    expect(listener.dialedAt.length).toBeLessThanOrEqual(2);
    expect(listener.dialedAt.at(-1)! - started).toBeLessThan(1_000);
    await sleep(1_000);
    // The second attempt, on the link's schedule.
    expect(retries.length).toBeGreaterThanOrEqual(1);
    expect(listener.dialedAt.at(-1)! - started).toBeGreaterThanOrEqual(2_900);
  });
});
