/**
 * Compatibility tier (test/compat/run.sh), on each Node line: a controller on this process's
 * Node, an `agent fleet` process on the same Node that enrolls with a one-time token and the
 * controller CA pinned by fingerprint, connects over mutual TLS, and applies a profile rolled
 * out to it. Once dialing 127.0.0.1 and once localhost: an IP address and a host name reach
 * the TLS server name differently, and Node 26 refuses an IP address there outright.
 */
import type { ChildProcess } from 'node:child_process';
import { cpSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultFixturesDir } from '../../agent/sim/fixtures.js';
import type { Controller } from '../../server/controller.js';
import { spawnAgent } from '../support/agent-process.js';
import { startTestController, type authedFetch } from '../support/controller.js';
import { createPgliteDatabase, type TestDatabase } from '../support/databases.js';
import { expectNodeOfTheRunner, whileRunning } from './node-line.js';

const MODEL = 'kt-km14-102h-mt7621';
const PROFILE = 'compat';

type RouterView = { status: string; lastApplyStatus: string | null; appliedRevision: unknown };

describe(`Node ${process.versions.node}: enrollment, mutual TLS and an apply against a live controller`, () => {
  let db: TestDatabase;
  let controller: Controller;
  let api: ReturnType<typeof authedFetch>;
  let work: string;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    expectNodeOfTheRunner();
    work = await mkdtemp(path.join(os.tmpdir(), 'wrtfleet-compat-'));
    // One model in the fleet's fixtures: one simulated router per agent process.
    cpSync(path.join(defaultFixturesDir(), MODEL), path.join(work, 'fixtures', MODEL), { recursive: true });
    db = await createPgliteDatabase();
    ({ controller, fetch: api } = await startTestController(db, { security: { insecureAgents: false } }));
    const profile = await api(`/v1/profiles/${PROFILE}`, {
      method: 'PUT',
      body: { spec: { l3Rewrite: { ttl: { value: 65 } } } },
    });
    expect(profile.status, JSON.stringify(profile.body)).toBeLessThan(300);
  });
  afterAll(async () => {
    for (const c of children) c.kill('SIGKILL');
    await controller?.close();
    await db?.drop();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it.each([
    ['an IP address', '127.0.0.1', 1],
    ['a host name', 'localhost', 2],
  ] as const)('dialing the controller by %s (%s)', async (_kind, host, serial) => {
    const port = controller.grpcAddress.split(':').at(-1)!;
    const minted = await api('/v1/enrollment-tokens', { method: 'POST', body: {} });
    expect(minted.status).toBe(201);
    const tokenFile = path.join(work, `token-${serial}`);
    await writeFile(tokenFile, `${minted.body.token}\n`, { mode: 0o600 });
    const identity = `sim.${MODEL}:${String(serial).padStart(3, '0')}`;
    const agent = spawnAgent(
      [
        'fleet',
        '--controller',
        `${host}:${port}`,
        '--fixtures',
        path.join(work, 'fixtures'),
        '--per-model',
        '1',
        '--first-serial',
        String(serial),
        '--credentials-dir',
        path.join(work, `credentials-${serial}`),
        '--enroll-token-file',
        tokenFile,
        '--ca-fingerprint',
        minted.body.caFingerprint,
      ],
      children,
    );
    try {
      const session = await whileRunning(
        agent.child,
        agent.stderr,
        async () => [...controller.gateway.sessions.values()].find((s) => s.identity === identity),
        30_000,
        `${identity} connected over mTLS to ${host}:${port}`,
      );
      // A stream authenticated by the certificate enrollment issued, not merely an open one.
      expect(session.certificateSerial).toBeTruthy();

      const rollout = await api('/v1/rollouts', {
        method: 'POST',
        body: {
          profile: PROFILE,
          revision: 1,
          selector: { ids: [session.routerId] },
          strategy: { canary: 0, batchSize: 1 },
        },
      });
      expect(rollout.status, JSON.stringify(rollout.body)).toBe(201);
      await whileRunning(
        agent.child,
        agent.stderr,
        async () => {
          const { state, pauseReason } = (await api(`/v1/rollouts/${rollout.body.id}`)).body;
          if (state === 'paused' || state === 'cancelled') throw new Error(`rollout ${state}: ${pauseReason}`);
          return state === 'completed';
        },
        30_000,
        `the rollout of ${PROFILE}@1 to ${identity} completed`,
      );
      const router = (await api<RouterView>(`/v1/routers/${session.routerId}`)).body;
      expect(router).toMatchObject({
        status: 'online',
        lastApplyStatus: 'applied',
        appliedRevision: { profile: PROFILE, revision: 1 },
      });
    } finally {
      agent.child.kill('SIGTERM');
      await agent.exited;
    }
  });
});
