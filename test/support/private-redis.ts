import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { access, constants, mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './ports.js';

/** Debian's Redis server (test/system-deps.sh installs it). */
export const REDIS_SERVER = process.env.WRTFLEET_TEST_REDIS_SERVER ?? '/usr/bin/redis-server';

/**
 * A redis-server of one test's own, on a free loopback port, keeping nothing on disk (`--save ""
 * --appendonly no`): killed and started again it comes back empty, as a Redis without
 * persistence does after a crash. The shared Redis on 6379 is never touched.
 */
export class PrivateRedis {
  private process: ChildProcess | undefined;
  private dir = '';
  port = 0;

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Starts it (a missing binary fails the test: it is a dependency of the suite, not optional). */
  async start(): Promise<this> {
    await access(REDIS_SERVER, constants.X_OK).catch(() => {
      throw new Error(`${REDIS_SERVER} is missing: install redis-server (test/system-deps.sh does)`);
    });
    this.dir = await mkdtemp(path.join(os.tmpdir(), 'wrtfleet-redis-'));
    this.port = await freePort();
    await this.launch();
    return this;
  }

  /** SIGKILL: no shutdown, no save; clients see their connections reset. */
  async kill(): Promise<void> {
    const child = this.process;
    this.process = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGKILL');
    await exited;
  }

  /** Starts it again on the same port, empty. */
  async restart(): Promise<void> {
    await this.kill();
    await this.launch();
  }

  /** Stops it and removes its directory; safe to call more than once and after a failed start. */
  async stop(): Promise<void> {
    await this.kill();
    if (this.dir) await rm(this.dir, { recursive: true, force: true });
    this.dir = '';
  }

  private async launch(): Promise<void> {
    const args = ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
    const child = spawn(REDIS_SERVER, [...args, '--dir', this.dir], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    for (const s of [child.stdout, child.stderr]) s?.on('data', (d: Buffer) => (output = (output + d).slice(-4_000)));
    const failed = new Promise<never>((_, reject) =>
      child.once('exit', (code, signal) =>
        reject(new Error(`redis-server on port ${this.port} exited (${code ?? signal}): ${output}`)),
      ),
    );
    failed.catch(() => {});
    this.process = child;
    // A test process that ends without its afterAll (a crash, process.exit) takes the server along.
    const orphaned = () => {
      child.kill('SIGKILL');
      rmSync(this.dir, { recursive: true, force: true });
    };
    process.once('exit', orphaned);
    child.once('exit', () => process.off('exit', orphaned));
    await Promise.race([waitForPort(this.port, 10_000), failed]);
  }
}

/** Resolves once something accepts TCP connections on 127.0.0.1:port. */
export async function waitForPort(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`nothing listens on 127.0.0.1:${port} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
