import { execFileSync, spawn } from 'node:child_process';
import { Server, ServerCredentials } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { ConnectionAdmission } from '../../../server/agent-gateway/connection-admission.js';
import { eventually } from '../../support/controller.js';
import { freePort } from '../../support/ports.js';

const CONNECTIONS = 300;

/** A process that dials `port` until CONNECTIONS connections are up, redialling each refusal at once. */
function dialUntilUp(port: number) {
  return spawn(
    process.execPath,
    [
      '-e',
      `const net = require('node:net');
       const dial = () => net.connect(${port}, '127.0.0.1').on('error', () => setTimeout(dial, 1));
       for (let i = 0; i < ${CONNECTIONS}; i++) dial();
       setTimeout(() => {}, 60000);`,
    ],
    { stdio: 'ignore' },
  );
}

describe('the agent port’s extra listening handles', () => {
  it('lose no connection that arrives while they are being made, and keep the configured backlog', async () => {
    const port = await freePort();
    // Already dialling when the port opens: connections land while the copies arrive one by one.
    const dialer = dialUntilUp(port);
    const admission = new ConnectionAdmission(new Server(), ServerCredentials.createInsecure(), {
      host: '127.0.0.1',
      port,
      maxHandshaking: 1,
      handshakeTimeoutMs: 60_000,
      backlog: 1_000,
    });
    try {
      await new Promise((r) => setTimeout(r, 100));
      await admission.start();
      // Every connection the kernel completed is in the admission's hands: one handshaking, the rest waiting.
      await eventually(
        () => Promise.resolve(admission.inHandshake + admission.waitingCount === CONNECTIONS),
        10_000,
        `${CONNECTIONS} admitted`,
      );
      // Each copy's listen() set the socket's backlog to Node's default; the configured one is back.
      const listening = execFileSync('ss', ['-ltnH', `( sport = :${port} )`]).toString();
      expect(listening.trim().split(/\s+/)[2]).toBe('1000');
    } finally {
      admission.stop();
      dialer.kill();
    }
  });
});
