import net from 'node:net';
import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import type { Controller } from '../../../server/controller.js';
import { enrollTestAgent, openStream, type OpenStream } from '../../support/agents.js';
import { eventually, startTestController } from '../../support/controller.js';
import { createPgliteDatabase, type TestDatabase } from '../../support/databases.js';

const LIMIT = 3;
const WAITING = 2;

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

/** What a test opened, closed after all of them. */
const dbs: TestDatabase[] = [];
const controllers: Controller[] = [];
const sockets: net.Socket[] = [];
const streams: OpenStream[] = [];
afterAll(async () => {
  for (const s of streams) s.close();
  for (const s of sockets) s.destroy();
  for (const c of controllers) await c.close();
  for (const d of dbs) await d.drop();
});

async function controllerWith(overrides: Parameters<typeof startTestController>[1]) {
  const db = await createPgliteDatabase();
  dbs.push(db);
  const started = await startTestController(db, { security: { insecureAgents: false }, ...overrides });
  controllers.push(started.controller);
  return started;
}

describe('connection admission before TLS (a real controller with mutual TLS)', () => {
  let controller: Controller | undefined;
  let stream: OpenStream | undefined;

  it('hands connections to TLS a few at a time, keeps the rest waiting in order, and resets only past its queue', async () => {
    const started = await controllerWith({ maxHandshakingConnections: LIMIT, maxWaitingConnections: WAITING });
    controller = started.controller;
    const credentials = await enrollTestAgent(controller, 'admission-1');
    const port = controller.gateway.port;
    const counts = () => controller!.gateway.connectionCounts;

    // LIMIT connections stall in their handshake (they never send a ClientHello).
    const stalled = Array.from({ length: LIMIT }, () => silentConnection(port));
    sockets.push(...stalled.map((c) => c.socket));
    await Promise.all(stalled.map((c) => c.connected));
    await eventually(() => Promise.resolve(counts().handshaking === LIMIT), 5_000, `${LIMIT} handshaking`);

    // The next ones wait, accepted: first a real agent (its TLS hello sits in the socket), then
    // a silent connection; past WAITING, connections are reset at once without a byte from us.
    stream = openStream(controller.grpcAddress, credentials.channelCredentials, 'admission-1');
    streams.push(stream);
    await eventually(() => Promise.resolve(counts().waiting === 1), 5_000, 'the agent waiting');
    const queued = silentConnection(port);
    sockets.push(queued.socket);
    await eventually(() => Promise.resolve(counts().waiting === WAITING), 5_000, 'two waiting');
    const refusedBefore = counts().refused;
    const extra = Array.from({ length: 4 }, () => silentConnection(port));
    sockets.push(...extra.map((c) => c.socket));
    const since = Date.now();
    const ends = await Promise.all(extra.map((c) => c.ended));
    for (const end of ends) {
      expect(end.reset).toBe(true);
      expect(end.at - since).toBeLessThan(2_000);
    }
    expect(counts().refused - refusedBefore).toBe(4);
    // Waiting is not refused: no Welcome yet, and the stream is still open.
    await new Promise((r) => setTimeout(r, 500));
    expect(stream.received()).toEqual([]);
    expect(queued.socket.destroyed).toBe(false);

    // One stalled handshake goes away: the first in line, the agent, is handed over and welcomed,
    // and once its stream carries a call it no longer counts as handshaking, though it stays open.
    stalled[0]!.socket.destroy();
    const welcome = await stream.welcome;
    expect(welcome.body?.$case).toBe('welcome');
    await eventually(
      () => Promise.resolve(counts().handshaking === LIMIT && counts().waiting === 0),
      5_000,
      'the silent one handed over after the agent',
    );
    expect(controller.gateway.sessions.size).toBe(1);

    const metrics = await started.fetch('/metrics');
    expect(String(metrics.body)).toMatch(new RegExp(`wrtfleet_agent_connections_refused_total ${counts().refused}\\b`));
    expect(String(metrics.body)).toMatch(/wrtfleet_agent_connections_waiting 0\b/);
  });
});

describe('a connection that holds a handshake slot without a call (a real controller with mutual TLS)', () => {
  it('stops counting after the handshake timeout: the next in line is handed over, the silent one stays open and is counted', async () => {
    const started = await controllerWith({ maxHandshakingConnections: 1, handshakeTimeoutSeconds: 1 });
    const controller = started.controller;
    const credentials = await enrollTestAgent(controller, 'admission-2');
    const counts = () => controller.gateway.connectionCounts;
    const silent = silentConnection(controller.gateway.port);
    sockets.push(silent.socket);
    await silent.connected;
    await eventually(() => Promise.resolve(counts().handshaking === 1), 5_000, 'the silent one handshaking');
    const since = Date.now();
    const stream = openStream(controller.grpcAddress, credentials.channelCredentials, 'admission-2');
    streams.push(stream);
    const welcome = await stream.welcome;
    expect(welcome.body?.$case).toBe('welcome');
    expect(Date.now() - since).toBeGreaterThanOrEqual(800);
    expect(counts().handshakesTimedOut).toBe(1);
    expect(silent.socket.destroyed).toBe(false);
    const metrics = await started.fetch('/metrics');
    expect(String(metrics.body)).toMatch(/wrtfleet_agent_handshakes_timed_out_total 1\b/);
  });
});

describe('accepting while the event loop is busy (a real controller with mutual TLS)', () => {
  it('takes several connections per event-loop turn: libuv accepts one per listening handle, and there are several', async () => {
    const CONNECTIONS = 600;
    const started = await controllerWith({ maxHandshakingConnections: 1, handshakeTimeoutSeconds: 30 });
    const counts = () => started.controller.gateway.connectionCounts;
    const accepted = () => counts().waiting + counts().handshaking;
    let flood: ReturnType<typeof spawn> | undefined;
    try {
      // Every turn of this loop (the controller's too: it runs in this process) costs 5 ms from
      // before the first connection arrives. They come from another process, which these busy
      // turns do not slow.
      const turns = await new Promise<number>((resolve) => {
        let n = 0;
        const turn = () => {
          const start = Date.now();
          while (Date.now() - start < 5);
          if (accepted() > 0) n += 1;
          if (accepted() >= CONNECTIONS || n >= 2_000 || Date.now() - began > 20_000) resolve(n);
          else setImmediate(turn);
        };
        const began = Date.now();
        flood = spawn(
          process.execPath,
          [
            '-e',
            `const net = require('node:net');
             for (let i = 0; i < ${CONNECTIONS}; i++) net.connect(${started.controller.gateway.port}, '127.0.0.1').on('error', () => {});
             setTimeout(() => {}, 60000);`,
          ],
          { stdio: 'ignore' },
        );
        turn();
      });
      expect(accepted()).toBe(CONNECTIONS);
      // One listening handle takes one connection a turn: 600 turns at least.
      expect(turns).toBeLessThan(CONNECTIONS / 3);
    } finally {
      flood?.kill();
    }
  });
});
