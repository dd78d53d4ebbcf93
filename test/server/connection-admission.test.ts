import net from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import type { Controller } from '../../server/controller.js';
import { enrollTestAgent, openStream, type OpenStream } from '../support/agents.js';
import { eventually, startTestController } from '../support/controller.js';
import { createPgliteDatabase, type TestDatabase } from '../support/databases.js';

const LIMIT = 3;

/** A TCP connection that never starts its TLS handshake; resolves how it ended, if it did. */
function silentConnection(port: number) {
  const socket = net.connect({ host: '127.0.0.1', port });
  const ended = new Promise<{ reset: boolean; at: number }>((resolve) => {
    let reset = false;
    socket.on('error', (err: NodeJS.ErrnoException) => (reset = err.code === 'ECONNRESET'));
    socket.on('close', () => resolve({ reset, at: Date.now() }));
  });
  const connected = new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  return { socket, ended, connected };
}

describe('connection admission before TLS (a real controller with mutual TLS)', () => {
  let db: TestDatabase | undefined;
  let controller: Controller | undefined;
  const sockets: net.Socket[] = [];
  let stream: OpenStream | undefined;
  afterAll(async () => {
    stream?.close();
    for (const s of sockets) s.destroy();
    await controller?.close();
    await db?.drop();
  });

  it('resets connections past its handshake limit at once, and admits again when handshakes end', async () => {
    db = await createPgliteDatabase();
    const started = await startTestController(db, {
      security: { insecureAgents: false },
      maxHandshakingConnections: LIMIT,
    });
    controller = started.controller;
    const credentials = await enrollTestAgent(controller, 'admission-1');
    const port = controller.gateway.port;

    // LIMIT connections stall in their handshake (they never send a ClientHello).
    const stalled = Array.from({ length: LIMIT }, () => silentConnection(port));
    sockets.push(...stalled.map((c) => c.socket));
    await Promise.all(stalled.map((c) => c.connected));
    await eventually(
      () => Promise.resolve(controller!.gateway.connectionCounts.handshaking === LIMIT),
      5_000,
      `${LIMIT} connections handshaking`,
    );

    // Every one past the limit is reset by the controller without a byte from us, promptly.
    const refusedBefore = controller.gateway.connectionCounts.refused;
    const extra = Array.from({ length: 5 }, () => silentConnection(port));
    sockets.push(...extra.map((c) => c.socket));
    const since = Date.now();
    const ends = await Promise.all(extra.map((c) => c.ended));
    for (const end of ends) {
      expect(end.reset).toBe(true);
      expect(end.at - since).toBeLessThan(2_000);
    }
    expect(controller.gateway.connectionCounts.refused - refusedBefore).toBe(5);
    // A real agent is refused too while the limit is taken: its stream ends without a Welcome.
    const refusedAgent = openStream(controller.grpcAddress, credentials.channelCredentials, 'admission-1');
    await expect(refusedAgent.welcome).rejects.toThrow(/before Welcome/);
    refusedAgent.close();
    // The stalled ones were handed to TLS and are still open: only the extra ones were refused.
    expect(stalled.every((c) => !c.socket.destroyed)).toBe(true);

    // The stalled connections go away; the next agent is handshaken and welcomed, and once its
    // stream carries a call it no longer counts as handshaking, though it stays open.
    for (const c of stalled) c.socket.destroy();
    await eventually(
      () => Promise.resolve(controller!.gateway.connectionCounts.handshaking === 0),
      5_000,
      'stalled handshakes forgotten',
    );
    stream = openStream(controller.grpcAddress, credentials.channelCredentials, 'admission-1');
    const welcome = await stream.welcome;
    expect(welcome.body?.$case).toBe('welcome');
    expect(controller.gateway.connectionCounts.handshaking).toBe(0);
    expect(controller.gateway.sessions.size).toBe(1);

    const metrics = await started.fetch('/metrics');
    expect(String(metrics.body)).toMatch(
      new RegExp(`wrtfleet_agent_connections_refused_total ${controller.gateway.connectionCounts.refused}\\b`),
    );
  });
});
