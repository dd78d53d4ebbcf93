import type { ChildProcess } from 'node:child_process';
import { mkdtemp, readdir, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Controller } from '../../server/controller.js';
import { defaultFixturesDir } from '../../agent/sim/fixtures.js';
import { createPgliteDatabase, type TestDatabase } from '../support/databases.js';
import { spawnAgent } from '../support/agent-process.js';
import { eventually, startTestController, type authedFetch } from '../support/controller.js';

describe('`agent run` enrolls with a one-time token, then reconnects over mTLS with its saved certificate', () => {
  let db: TestDatabase;
  let controller: Controller;
  let api: ReturnType<typeof authedFetch>;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    db = await createPgliteDatabase();
    ({ controller, fetch: api } = await startTestController(db, { security: { insecureAgents: false } }));
  });
  afterAll(async () => {
    for (const c of children) c.kill('SIGKILL');
    await controller?.close();
    await db?.drop();
  });

  const runAgent = (args: string[]) =>
    spawnAgent(
      ['run', '--controller', controller.grpcAddress, '--root', `${defaultFixturesDir()}/kt-km14-102h-mt7621`, ...args],
      children,
    );

  it('enrolls, connects, survives a restart without the token, and a reused token is refused', async () => {
    const minted = await api('/v1/enrollment-tokens', { method: 'POST', body: { routerName: 'cli-router' } });
    expect(minted.status).toBe(201);
    const dir = await mkdtemp(path.join(os.tmpdir(), 'wrtfleet-agent-'));
    const tokenFile = path.join(dir, 'token');
    await writeFile(tokenFile, minted.body.token, { mode: 0o600 });
    const credentials = path.join(dir, 'credentials');
    const first = runAgent([
      '--identity',
      'cli:router:1',
      '--name',
      'cli-router',
      '--credentials-dir',
      credentials,
      '--enroll-token-file',
      tokenFile,
      '--ca-fingerprint',
      minted.body.caFingerprint,
    ]);
    await eventually(
      async () => [...controller.gateway.sessions.values()].some((s) => s.identity === 'cli:router:1'),
      30_000,
      'agent connected over mTLS',
    );
    expect(first.stderr()).toMatch(/enrolled as cli:router:1/);
    const keyFile = (await readdir(credentials)).find((f) => f.includes('key'))!;
    expect((await stat(path.join(credentials, keyFile))).mode & 0o077).toBe(0);
    first.child.kill('SIGTERM');
    await first.exited;

    // Restarted without a token: the saved certificate is enough.
    const second = runAgent(['--credentials-dir', credentials]);
    await eventually(
      async () => [...controller.gateway.sessions.values()].some((s) => s.identity === 'cli:router:1'),
      30_000,
      'reconnected with the saved certificate',
    );
    second.child.kill('SIGTERM');
    await second.exited;

    // The token was single-use.
    const reuse = runAgent([
      '--identity',
      'cli:router:2',
      '--credentials-dir',
      path.join(dir, 'other'),
      '--enroll-token-file',
      tokenFile,
      '--ca-fingerprint',
      minted.body.caFingerprint,
    ]);
    expect(await reuse.exited).toBe(2);
    expect(reuse.stderr()).toMatch(/enrollment failed/);
    // Without credentials or a token the agent says what to do instead of trying plaintext.
    const none = runAgent(['--credentials-dir', path.join(dir, 'none')]);
    expect(await none.exited).toBe(2);
    expect(none.stderr()).toMatch(/enroll once with --enroll-token-file/);
  }, 120_000);
});
