/**
 * The README's first command on a clone with nothing beside it: the repository must stand
 * alone (fixtures, docs, tools), so `npm ci && npm run demo` in an empty folder serves the
 * demo's 12 routers. It clones what is committed (HEAD), not the working tree.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/controller.js';
import { freePort } from '../support/ports.js';
import { runNpmScript } from '../support/npm-script.js';

const repo = path.resolve(import.meta.dirname, '../..');
const DEMO_ROUTERS = 12;

describe('a fresh clone with nothing beside it', () => {
  let parent: string | undefined;
  afterAll(async () => {
    if (parent) await rm(parent, { recursive: true, force: true });
  });

  it(
    'installs with npm ci and serves the demo fleet from npm run demo',
    async () => {
      parent = await mkdtemp(path.join(os.tmpdir(), 'wrtfleet-clone-'));
      const clone = path.join(parent, 'wrtfleet');
      execFileSync('git', ['clone', '--quiet', '--no-hardlinks', repo, clone], { stdio: 'pipe' });
      expect(readdirSync(parent)).toEqual(['wrtfleet']);
      execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--prefer-offline'], {
        cwd: clone,
        stdio: 'pipe',
        timeout: 600_000,
      });

      const [http, grpc] = [await freePort(), await freePort()];
      // The embedded default: no PostgreSQL, no Redis, the fixtures of the clone itself.
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        WRTFLEET_HTTP_PORT: String(http),
        WRTFLEET_GRPC_PORT: String(grpc),
      };
      for (const name of ['DATABASE_URL', 'REDIS_URL', 'WRTFLEET_FIXTURES', 'WRTFLEET_DATA_DIR']) delete env[name];
      const demo = runNpmScript('demo', env, { cwd: clone, replaceEnv: true });
      try {
        const routers = await eventually(
          async () => {
            const token = (await readFile(path.join(clone, 'data/admin-token'), 'utf8')).trim();
            const res = await fetch(`http://127.0.0.1:${http}/v1/routers?limit=100`, {
              headers: { authorization: `Bearer ${token}` },
            });
            if (!res.ok) return undefined;
            const body = (await res.json()) as { items: unknown[] };
            return body.items.length === DEMO_ROUTERS ? body.items : undefined;
          },
          60_000,
          `the demo in the clone to serve ${DEMO_ROUTERS} routers`,
        ).catch((err: Error) => {
          throw new Error(`${err.message}\ndemo output:\n${demo.out()}${demo.err()}`, { cause: err });
        });
        expect(routers).toHaveLength(DEMO_ROUTERS);
        // npm ci built the console (postinstall), and the demo serves it at the URL it prints first.
        const printed = demo
          .out()
          .replace(/^\{.*\}$/gm, '')
          .trim();
        expect(printed).toMatch(new RegExp(`^wrtfleet demo: .*\\n\\s+console\\s+http://127\\.0\\.0\\.1:${http}/`));
        const page = await fetch(`http://127.0.0.1:${http}/fleet`, { headers: { accept: 'text/html' } });
        expect(page.status).toBe(200);
        expect(await page.text()).toMatch(
          /<script type="module" crossorigin src="\/assets\/index-[^"]+\.js"><\/script>/,
        );
      } finally {
        demo.signal('SIGINT');
        await demo.exited;
      }
    },
    15 * 60_000,
  );
});
