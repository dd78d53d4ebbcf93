import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { eventually } from '../support/controller.js';
import { freePort } from '../support/ports.js';
import { runNpmScript } from '../support/npm-script.js';

const repo = path.resolve(import.meta.dirname, '../..');

const run = (script: string, env: Record<string, string>) => runNpmScript(script, env);

describe('the server and demo processes', () => {
  it('an unreachable DATABASE_URL stops start-up with one clear sentence, no stack trace, no password', async () => {
    const p = run('server', {
      DATABASE_URL: 'postgresql://wrt:s3cret-pw@127.0.0.1:1/fleet',
      WRTFLEET_HTTP_PORT: '0',
      WRTFLEET_GRPC_PORT: '0',
    });
    const code = await p.exited;
    expect(code).toBe(1);
    const lines = p.err().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^wrtfleet: Cannot reach PostgreSQL at 127\.0\.0\.1:1 .*DATABASE_URL/);
    expect(p.err() + p.out()).not.toContain('s3cret-pw');
    expect(p.err()).not.toMatch(/\n\s+at /);
  }, 60_000);

  it('`npm run demo` serves the demo fleet at /v1/routers and stops cleanly on Ctrl-C', async () => {
    // server/launch.mjs removes old bundles of earlier starts, but never one a live process runs from.
    const launchDir = path.join(repo, 'node_modules/.cache/wrtfleet/launch');
    const tag = Math.random().toString(36).slice(2, 8);
    const stale = { dead: path.join(launchDir, `test-dead-${tag}`), live: path.join(launchDir, `test-live-${tag}`) };
    for (const [kind, dir] of Object.entries(stale)) {
      await mkdir(path.join(dir, 'users'), { recursive: true });
      await writeFile(path.join(dir, 'users', kind === 'live' ? String(process.pid) : '2147483646'), '');
      const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
      await utimes(dir, twoHoursAgo, twoHoursAgo);
    }
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'wrtfleet-demo-'));
    const [httpPort, grpcPort] = [await freePort(), await freePort()];
    const p = run('demo', {
      WRTFLEET_DATA_DIR: dataDir,
      WRTFLEET_HTTP_PORT: String(httpPort),
      WRTFLEET_GRPC_PORT: String(grpcPort),
    });
    try {
      const items = await eventually(
        async () => {
          const token = (await readFile(path.join(dataDir, 'admin-token'), 'utf8')).trim();
          const res = await fetch(`http://127.0.0.1:${httpPort}/v1/routers?limit=100`, {
            headers: { authorization: `Bearer ${token}` },
          });
          const body = (await res.json()) as { items: { status: string; soc: string }[] };
          return body.items.length >= 12 && body.items.every((r) => r.status === 'online') ? body.items : undefined;
        },
        // A hang guard only: the 10 s start-up bar is measured by `npm run bench:startup`
        // (docs/BENCHMARKS.md#start-up), where a loaded CI machine cannot fail it by chance.
        30_000,
        'the demo fleet online',
      );
      expect(new Set(items.map((r) => r.soc))).toEqual(new Set(['QCA9558', 'MT7621', 'MT7986']));
      expect(p.out()).toContain(`http://127.0.0.1:${httpPort}/docs`);
      expect(existsSync(stale.dead)).toBe(false);
      expect(existsSync(stale.live)).toBe(true);
      p.signal('SIGINT');
      // npm re-raises the SIGINT it received (exit code null); what matters is that the demo
      // itself shut the fleet and the controller down and printed so.
      await p.exited;
      expect(p.out()).toContain('stopped.');
      expect(p.err()).toBe('');
    } finally {
      p.signal('SIGKILL');
      await rm(dataDir, { recursive: true, force: true });
      for (const dir of Object.values(stale)) await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
