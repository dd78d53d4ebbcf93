import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ControllerLink } from '../../agent/controller-link.js';
import { helloFor } from '../support/agents.js';
import { FakeController } from '../support/fake-controller.js';

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
    // One attempt (gRPC's own extra dial of a dropped channel comes 1 ms later, to the same
    // port), then the link waits its 3 s. A channel kept alive would go on redialing at
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

  /**
   * Connects a link to a fake controller naming `spreadSeconds` in its Welcome, stops the
   * controller (it stays down), and returns the link's first `count` retry delays.
   */
  async function retriesAfterLoss(
    identity: string,
    {
      spreadSeconds,
      jitterWindowMs,
      random,
      count,
    }: { spreadSeconds: number; jitterWindowMs: number; random: number; count: number },
  ) {
    const controller = new FakeController();
    controller.reconnectSpreadSeconds = spreadSeconds;
    await controller.start();
    link = new ControllerLink({
      address: controller.address,
      hello: async () => helloFor(identity).body!.value as never,
      reconnect: { jitterWindowMs, initialDelayMs: 100, maxDelayMs: 5_000 },
      random: () => random,
    });
    const retries: number[] = [];
    link.on('retry', (delay: number) => retries.push(delay));
    link.on('error', () => {});
    link.start();
    const deadline = Date.now() + 10_000;
    while (link.sessions < 1 && Date.now() < deadline) await sleep(50);
    expect(link.sessions).toBe(1);
    expect(link.welcome?.reconnectSpreadSeconds).toBe(spreadSeconds);
    await controller.stop();
    while (retries.length < count && Date.now() < deadline + 10_000) await sleep(50);
    return retries.slice(0, count);
  }

  it('after a lost session, retries against a controller that stays down go on at the jitter window’s scale', async () => {
    // random() near 1 takes each cap: the jitter window first (999 ms); then, the controller
    // refusing, 1.6 s and 3.2 s: the backoff goes on from the step that reaches the window, not
    // from 100 ms, 200 ms ...
    const retries = await retriesAfterLoss('redial-2', {
      spreadSeconds: 0,
      jitterWindowMs: 1_000,
      random: 0.9999,
      count: 3,
    });
    expect(retries).toEqual([999, 1599, 3199]);
  }, 30_000);

  it('after a lost session, the first reconnection is spread over the controller’s reconnect spread when longer', async () => {
    // Half of the controller's 40 s, not of the agent's own 1 s window.
    const retries = await retriesAfterLoss('redial-3', {
      spreadSeconds: 40,
      jitterWindowMs: 1_000,
      random: 0.5,
      count: 1,
    });
    expect(retries).toEqual([20_000]);
  }, 30_000);

  it('a controller naming a shorter spread than the agent’s own window does not shorten it', async () => {
    const retries = await retriesAfterLoss('redial-4', {
      spreadSeconds: 1,
      jitterWindowMs: 8_000,
      random: 0.5,
      count: 1,
    });
    expect(retries).toEqual([4_000]);
  }, 30_000);

  it('a dropped channel leaves no orphan: a controller back 50 ms after a refusal gets no connection nobody uses', async () => {
    const probe = net.createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as net.AddressInfo).port;
    await new Promise((r) => probe.close(r));
    link = new ControllerLink({
      address: `127.0.0.1:${port}`,
      hello: async () => helloFor('redial-3').body!.value as never,
      reconnect: { initialDelayMs: 5_000, maxDelayMs: 5_000 },
      random: () => 0.9999,
    });
    link.on('error', () => {});
    const refused = new Promise((r) => link!.once('retry', r));
    link.start();
    await refused;
    await sleep(50);
    const arrived: number[] = [];
    server = net.createServer((socket) => {
      arrived.push(Date.now());
      socket.destroy();
    });
    await new Promise<void>((r) => server!.listen(port, '127.0.0.1', r));
    // grpc-js dials a closed channel's address once more after its reconnect backoff (200 ms
    // here before): such a connection would reach this controller and never carry a call.
    await sleep(1_500);
    expect(arrived).toEqual([]);
  });
});
