import type { ChildProcess } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Controller } from '../../server/controller.js';
import { createPgliteDatabase, type TestDatabase } from '../support/databases.js';
import { spawnAgent } from '../support/agent-process.js';
import { eventually, startTestController, type authedFetch } from '../support/controller.js';

const PER_MODEL = 2;
const ROUTERS = 3 * PER_MODEL;

describe('`agent fleet --credentials-dir` enrolls each simulated router and runs over mTLS', () => {
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

  const runFleet = (args: string[]) =>
    spawnAgent(['fleet', '--controller', controller.grpcAddress, '--per-model', String(PER_MODEL), ...args], children);
  const mtlsSessions = () => [...controller.gateway.sessions.values()].filter((s) => s.identity.startsWith('sim.'));

  it('enrolls with one token per router, restarts on the saved certificates, and says what is missing', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'wrtfleet-fleet-'));
    const minted = [];
    for (let i = 0; i < ROUTERS; i++) {
      const res = await api('/v1/enrollment-tokens', { method: 'POST', body: {} });
      expect(res.status).toBe(201);
      minted.push(res.body);
    }
    const tokenFile = path.join(dir, 'tokens');
    await writeFile(tokenFile, minted.map((m) => m.token).join('\n') + '\n', { mode: 0o600 });
    const credentials = path.join(dir, 'credentials');
    const fingerprint = minted[0].caFingerprint as string;

    const first = runFleet([
      '--credentials-dir',
      credentials,
      '--enroll-token-file',
      tokenFile,
      '--ca-fingerprint',
      fingerprint,
    ]);
    await eventually(async () => mtlsSessions().length === ROUTERS, 60_000, `${ROUTERS} simulated routers over mTLS`);
    expect(first.stderr()).toMatch(new RegExp(`started ${ROUTERS} simulated routers .* over mTLS`));
    const tokens = (await api('/v1/enrollment-tokens')).body.items as { usedAt: string | null }[];
    expect(tokens.filter((t) => t.usedAt !== null)).toHaveLength(ROUTERS);
    first.child.kill('SIGTERM');
    await first.exited;
    await eventually(async () => mtlsSessions().length === 0, 20_000, 'fleet gone');

    // The saved certificates are enough: no tokens the second time.
    const second = runFleet(['--credentials-dir', credentials]);
    await eventually(async () => mtlsSessions().length === ROUTERS, 60_000, 'back on the saved certificates');
    second.child.kill('SIGTERM');
    await second.exited;

    // A router with neither credentials nor a token left: the fleet says so and stops.
    const short = runFleet([
      '--credentials-dir',
      path.join(dir, 'empty'),
      '--enroll-token-file',
      tokenFile,
      '--ca-fingerprint',
      fingerprint,
    ]);
    expect(await short.exited).toBe(2);
    expect(short.stderr()).toMatch(/enrollment refused|has no credentials/);
  }, 180_000);
});
