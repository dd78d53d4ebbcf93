import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startSimulatedFleet, stopFleet } from '../../agent/sim/simulated-fleet.js';
import { defaultFixturesDir, fixtureModels } from '../../agent/sim/fixtures.js';
import type { SimulatedRouter } from '../../agent/sim/simulated-router.js';
import type { Controller } from '../../server/controller.js';
import { enrollThroughController } from '../../server/pki/local-enrollment.js';
import { eventually, startTestController, testConfig } from '../support/controller.js';
import { spawnController } from '../support/controller-process.js';
import { createPostgresDatabase, type TestDatabase } from '../support/databases.js';
import { freePort } from '../support/ports.js';

const REDIS_URL = process.env.WRTFLEET_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const HAPROXY = '/usr/sbin/haproxy';

/**
 * The balancer of docs/SCALING.md ("Load balancer in front of the replicas"), as written there:
 * HAProxy in TCP mode, TLS passed through, each replica checked on /readyz.
 */
function haproxyConfig(frontendPort: number, replicas: { name: string; grpcPort: number; httpPort: number }[]) {
  return [
    'global',
    '    maxconn 4096',
    'defaults',
    '    mode tcp',
    '    timeout connect 5s',
    '    timeout client 1h',
    '    timeout server 1h',
    'frontend agents',
    `    bind 127.0.0.1:${frontendPort}`,
    '    default_backend controllers',
    'backend controllers',
    '    balance leastconn',
    '    option httpchk GET /readyz',
    '    http-check expect status 200',
    ...replicas.map(
      (r) => `    server ${r.name} 127.0.0.1:${r.grpcPort} check port ${r.httpPort} inter 500ms fall 2 rise 2`,
    ),
    '',
  ].join('\n');
}

/**
 * Two replicas on one PostgreSQL + Redis behind Debian's HAProxy: agents know only the
 * balancer's address, enroll and connect through it with mutual TLS end to end (the controller
 * sees each agent's own certificate), and when one replica is killed (SIGKILL) its agents come
 * back through the balancer on the other.
 */
describe("agents behind HAProxy in TCP mode (Debian's haproxy, TLS passed through, two replicas)", () => {
  let haproxy: ChildProcess | undefined;
  let replicaA: ChildProcess | undefined;
  let replicaB: Controller | undefined;
  let fleet: SimulatedRouter[] = [];
  let db: TestDatabase | undefined;
  let dir: string | undefined;
  afterAll(async () => {
    replicaA?.kill('SIGKILL');
    haproxy?.kill('SIGKILL');
    await stopFleet(fleet);
    await replicaB?.close();
    await db?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('enrolls and connects every agent through it, spread over both replicas, and moves those of a killed replica to the other within 30 s', async () => {
    db = await createPostgresDatabase();
    dir = await mkdtemp(path.join(os.tmpdir(), 'wf-haproxy-'));
    // B first: it creates the CA in the shared data directory, which A then reads.
    const b = await startTestController(db, { redisUrl: REDIS_URL, security: { insecureAgents: false } });
    replicaB = b.controller;
    const [httpA, grpcA, front] = [await freePort(), await freePort(), await freePort()];
    // The installation B belongs to: the same queue and fleet bus.
    replicaA = spawnController(
      db,
      { http: httpA, grpc: grpcA },
      { WRTFLEET_REDIS_PREFIX: testConfig(db).redisPrefix! },
    );
    const exitedA = new Promise((r) => replicaA!.once('exit', r));
    await eventually(
      async () => (await fetch(`http://127.0.0.1:${httpA}/readyz`).catch(() => null))?.ok,
      60_000,
      'replica A ready',
    );

    const config = path.join(dir, 'haproxy.cfg');
    await writeFile(
      config,
      haproxyConfig(front, [
        { name: 'a', grpcPort: grpcA, httpPort: httpA },
        { name: 'b', grpcPort: replicaB.gateway.port, httpPort: Number(new URL(replicaB.httpUrl).port) },
      ]),
    );
    const stderr: string[] = [];
    haproxy = spawn(HAPROXY, ['-db', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
    haproxy.stderr!.on('data', (d: Buffer) => stderr.push(d.toString()));
    const failed = new Promise<never>((_, reject) => {
      haproxy!.once('error', (err) => reject(new Error(`${HAPROXY} could not run: ${err.message}`)));
      haproxy!.once('exit', (code) => reject(new Error(`haproxy exited (${code}): ${stderr.join('')}`)));
    });
    failed.catch(() => undefined);
    const balancer = `127.0.0.1:${front}`;
    await Promise.race([
      failed,
      eventually(
        () =>
          new Promise<boolean>((resolve) => {
            const probe = net.connect({ host: '127.0.0.1', port: front });
            probe.once('connect', () => {
              probe.destroy();
              resolve(true);
            });
            probe.once('error', () => resolve(false));
          }),
        10_000,
        'HAProxy listening',
      ),
    ]);

    // Every agent enrolls through the balancer too: the enrollment's TLS also ends at a replica.
    const security = replicaB.security;
    fleet = await Promise.race([
      failed,
      startSimulatedFleet({
        controller: balancer,
        fixtureRoots: await fixtureModels(defaultFixturesDir()),
        perModel: 6,
        credentialsFor: (identity, name) => enrollThroughController(security, balancer, { identity, name }, 'test'),
        reconnect: { jitterWindowMs: 1_000, initialDelayMs: 200, maxDelayMs: 2_000, homeCheckMs: 0 },
      }),
    ]);
    const total = fleet.length;
    const viaB = b.fetch;
    const onlineCount = async () => (await viaB<{ online: number }>('/v1/routers/counts')).body.online;
    await eventually(async () => fleet.every((r) => r.link.state === 'connected'), 30_000, 'every agent connected');
    await eventually(async () => (await onlineCount()) === total, 10_000, 'every router online');

    // Each stream was authenticated by the agent's own certificate at the replica, not at the balancer.
    const onB = replicaB.gateway.sessions.size;
    const onA = total - onB;
    for (const session of replicaB.gateway.sessions.values()) expect(session.certificateSerial).toMatch(/^[0-9a-f]+$/i);
    // leastconn spread them: both replicas hold a share.
    expect(onB).toBeGreaterThan(total / 4);
    expect(onA).toBeGreaterThan(total / 4);

    replicaA.kill('SIGKILL');
    const killedAt = Date.now();
    await exitedA;
    await eventually(
      async () => replicaB!.gateway.sessions.size === total && fleet.every((r) => r.link.state === 'connected'),
      30_000,
      "every one of A's agents back through the balancer on B",
    );
    const movedAfter = Date.now() - killedAt;
    await eventually(async () => (await onlineCount()) === total, 30_000 - movedAfter, 'every router online');
    console.log(`load-balancer: ${onA} of ${total} agents were on A; all on B ${movedAfter} ms after the kill`);
    expect(movedAfter).toBeLessThan(30_000);
    // One router per agent: nobody was registered again on the way.
    const routers = await replicaB.db.prisma.router.count();
    expect(routers).toBe(total);
  }, 150_000);
});
