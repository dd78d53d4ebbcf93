import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { eventually } from '../support/controller.js';
import { freePort } from '../support/ports.js';

const repo = path.resolve(import.meta.dirname, '../..');
const launch = 'node server/launch.mjs server/main.ts';

interface Started {
  /** The controller's own pid (node running server/main.ts). */
  pid: number;
  /** The process group to kill at the end (the controller, or its parent and it). */
  group: ChildProcess;
  httpPort: number;
  exited: Promise<number | null>;
  err: () => string;
}

/**
 * `npm run server`'s process on embedded PGlite. With `unreapedParent`, its parent is a process
 * that never waits for children (`exec sleep`), so once killed the controller stays a zombie.
 */
async function startServer(dataDir: string, options: { unreapedParent?: boolean } = {}): Promise<Started> {
  const [httpPort, grpcPort] = [await freePort(), await freePort()];
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    WRTFLEET_DATA_DIR: dataDir,
    WRTFLEET_HTTP_PORT: String(httpPort),
    WRTFLEET_GRPC_PORT: String(grpcPort),
  };
  delete env.DATABASE_URL;
  const command = options.unreapedParent ? `${launch} & echo $!; exec sleep 600` : `echo $$; exec ${launch}`;
  const group = spawn('sh', ['-c', command], { cwd: repo, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let stdout = '';
  let stderr = '';
  group.stdout!.on('data', (d) => (stdout += d));
  group.stderr!.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => group.on('close', (code) => resolve(code)));
  const pid = await eventually(async () => Number(/^(\d+)\n/.exec(stdout)?.[1]) || undefined, 10_000, 'its pid');
  return { pid, group, httpPort, exited, err: () => stderr };
}

/** Resolves once /healthz answers; rejects at once if the controller exits first. */
function healthy(server: Started): Promise<true> {
  const serving = eventually(
    async () => {
      const res = await fetch(`http://127.0.0.1:${server.httpPort}/healthz`).catch(() => undefined);
      return res?.ok ? true : undefined;
    },
    120_000,
    `the controller ${server.pid} serving /healthz`,
  );
  const exited = server.exited.then((code): true => {
    throw new Error(`the controller ${server.pid} exited with ${code}: ${server.err()}`);
  });
  return Promise.race([serving, exited]);
}

function processState(pid: number): string | undefined {
  try {
    return /\) (\S) /.exec(readFileSync(`/proc/${pid}/stat`, 'utf8'))?.[1];
  } catch {
    return undefined;
  }
}

function killGroup(server: Started | undefined) {
  try {
    if (server) process.kill(-server.group.pid!, 'SIGKILL');
  } catch {
    /* already gone */
  }
}

describe('restarting the controller on embedded PGlite', () => {
  it('comes back at once after kill -9, its predecessor still an unreaped zombie; a second live one is refused', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'wrtfleet-restart-'));
    let crashed: Started | undefined;
    let restarted: Started | undefined;
    let second: Started | undefined;
    try {
      crashed = await startServer(dataDir, { unreapedParent: true });
      await healthy(crashed);
      process.kill(crashed.pid, 'SIGKILL');
      const pid = crashed.pid;
      await eventually(async () => (processState(pid) === 'Z' ? true : undefined), 5_000, 'a zombie');
      const killedAt = Date.now();

      restarted = await startServer(dataDir);
      expect(Date.now() - killedAt).toBeLessThan(1_000);
      await healthy(restarted);
      // The lock went with the process, not with its exit status being collected.
      expect(processState(crashed.pid)).toBe('Z');

      second = await startServer(dataDir);
      expect(await second.exited).toBe(1);
      expect(second.err()).toBe(
        `wrtfleet: The data directory ${path.join(dataDir, 'pglite')} is in use by process ${restarted.pid}; stop it or choose another data directory.\n`,
      );
      // The refused start left the running controller and its lock alone.
      expect((await fetch(`http://127.0.0.1:${restarted.httpPort}/healthz`)).ok).toBe(true);
    } finally {
      for (const server of [second, restarted, crashed]) killGroup(server);
      await Promise.all([second, restarted, crashed].map((server) => server?.exited ?? Promise.resolve(null)));
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 300_000);
});
