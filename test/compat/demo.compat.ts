/**
 * Compatibility tier (test/compat/run.sh), on each Node line: `npm run demo` as a user starts
 * it, with this line's node first in PATH, in a scratch data directory on free ports, until
 * the REST API lists all 12 simulated routers online; then Ctrl-C stops it cleanly.
 */
import { readdirSync, readFileSync, readlinkSync, realpathSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runNpmScript } from '../support/npm-script.js';
import { freePort } from '../support/ports.js';
import { expectNodeOfTheRunner, whileRunning } from './node-line.js';

const DEMO_ROUTERS = 12;

/** The executables of a process's descendants (Linux /proc): which node npm started. */
function descendantExecutables(root: number): string[] {
  const parents = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // The command name in field 2 may hold spaces and parentheses: fields count from its end.
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      parents.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      /* gone meanwhile */
    }
  }
  const found: string[] = [];
  const visit = (pid: number) => {
    for (const [child, parent] of parents) {
      if (parent !== pid) continue;
      try {
        found.push(readlinkSync(`/proc/${child}/exe`));
      } catch {
        /* gone meanwhile */
      }
      visit(child);
    }
  };
  visit(root);
  return found;
}

describe(`Node ${process.versions.node}: the demo`, () => {
  let dataDir: string | undefined;
  afterAll(async () => {
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it(`serves ${DEMO_ROUTERS} of ${DEMO_ROUTERS} simulated routers online, then stops on Ctrl-C`, async () => {
    expectNodeOfTheRunner();
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'wrtfleet-compat-demo-'));
    const [http, grpc] = [await freePort(), await freePort()];
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      // npm's shebang and the script's `node` both find this line's node first.
      PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}`,
      WRTFLEET_DATA_DIR: dataDir,
      WRTFLEET_HTTP_PORT: String(http),
      WRTFLEET_GRPC_PORT: String(grpc),
    };
    // The embedded default a new user gets: no PostgreSQL, no Redis, the repository's fixtures.
    for (const name of ['DATABASE_URL', 'REDIS_URL', 'WRTFLEET_FIXTURES']) delete env[name];
    const started = Date.now();
    const demo = runNpmScript('demo', env, { replaceEnv: true });
    const output = () => `demo output:\n${demo.out()}${demo.err()}`;
    let stopped = false;
    try {
      const online = await whileRunning(
        demo.child,
        output,
        async () => {
          const token = (await readFile(path.join(dataDir!, 'admin-token'), 'utf8')).trim();
          const res = await fetch(`http://127.0.0.1:${http}/v1/routers?limit=100`, {
            headers: { authorization: `Bearer ${token}` },
          });
          if (!res.ok) return undefined;
          const { items } = (await res.json()) as { items: { status: string }[] };
          const count = items.filter((r) => r.status === 'online').length;
          return count === DEMO_ROUTERS ? count : undefined;
        },
        90_000,
        `${DEMO_ROUTERS} routers online`,
      );
      expect(online).toBe(DEMO_ROUTERS);
      const node = realpathSync(process.execPath);
      expect(descendantExecutables(demo.child.pid!), 'the demo runs on this line').toContain(node);
      console.log(`${DEMO_ROUTERS} routers online ${((Date.now() - started) / 1000).toFixed(1)} s after npm run demo`);
      demo.signal('SIGINT');
      const exit = await Promise.race([
        // npm itself dies of the SIGINT, as in a terminal; the demo's node says "stopped." and exits 0.
        demo.exited.then(() => demo.child.exitCode ?? demo.child.signalCode),
        new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 30_000).unref()),
      ]);
      stopped = exit !== 'timeout';
      expect([0, 'SIGINT'], `stopping the demo on Ctrl-C\n${output()}`).toContain(exit);
      expect(demo.out(), output()).toMatch(/^stopped\.$/m);
    } finally {
      if (!stopped) {
        demo.signal('SIGKILL');
        await demo.exited;
      }
    }
  });
});
