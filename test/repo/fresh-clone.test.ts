/**
 * The README's first command on a clone with nothing beside it: the repository must stand
 * alone (fixtures, docs, tools), so `npm install && npm run demo` in an empty folder serves the
 * demo's 12 routers. It clones what is committed (HEAD), not the working tree.
 *
 * The trade-off: the third-party packages are not unpacked again. `npm ci` in the clone spent
 * most of this test (70-140 s) extracting the same 27,000 files this checkout already has from
 * the same lockfile, which is npm's work, not the repository's (and CI's own `npm ci` of a clean
 * clone does it every run). So the clone's node_modules starts as hard links to this checkout's
 * packages, and the README's `npm install` then reconciles it with the clone's lockfile (adding,
 * replacing or removing whatever differs) and runs the clone's postinstall from nothing: the
 * Prisma client, the PGlite template and the console are built in the clone as before. What is
 * no longer exercised here: unpacking every tarball and the packages' own install scripts.
 * Hard links share file contents, so the test fails if anything wrote into a shared file.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
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
    'installs with npm install and serves the demo fleet from npm run demo',
    async () => {
      parent = await mkdtemp(path.join(os.tmpdir(), 'wrtfleet-clone-'));
      const clone = path.join(parent, 'wrtfleet');
      execFileSync('git', ['clone', '--quiet', '--no-hardlinks', repo, clone], { stdio: 'pipe' });
      expect(readdirSync(parent)).toEqual(['wrtfleet']);
      // The packages only: dot entries other than .bin (.cache with this checkout's PGlite
      // template, npm's hidden lockfile, Vite's temp files) are rewritten in place by tools.
      const modules = path.join(repo, 'node_modules');
      const packages = readdirSync(modules).filter((name) => name === '.bin' || !name.startsWith('.'));
      const cloneModules = path.join(clone, 'node_modules');
      mkdirSync(cloneModules);
      try {
        execFileSync('cp', ['-al', ...packages.map((name) => path.join(modules, name)), cloneModules], {
          stdio: 'pipe',
        });
      } catch {
        // Another file system than this checkout's (no hard links across them): a plain copy.
        await rm(cloneModules, { recursive: true, force: true });
        mkdirSync(cloneModules);
        execFileSync('cp', ['-a', ...packages.map((name) => path.join(modules, name)), cloneModules]);
      }
      const linkedAt = path.join(parent, 'linked-at');
      await writeFile(linkedAt, '');
      execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline'], {
        cwd: clone,
        stdio: 'pipe',
        timeout: 600_000,
      });
      // npm install rewrites a lockfile that is out of step with package.json (npm ci would
      // refuse it), and postinstall must write only ignored files: the clone is still HEAD.
      expect(execFileSync('git', ['status', '--porcelain'], { cwd: clone, encoding: 'utf8' })).toBe('');

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
      // A file still linked to this checkout's node_modules and modified since: the install or
      // the demo wrote into a shared file, which changed this checkout's packages too.
      const written = execFileSync('find', ['node_modules', '-newer', linkedAt, '-links', '+1', '!', '-type', 'd'], {
        cwd: clone,
        encoding: 'utf8',
      });
      expect(written).toBe('');
    },
    15 * 60_000,
  );
});
