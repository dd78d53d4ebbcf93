import net from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { startSimulatedFleet, stopFleet } from '../../agent/sim/simulated-fleet.js';
import { defaultFixturesDir, fixtureModels } from '../../agent/sim/fixtures.js';
import type { SimulatedRouter } from '../../agent/sim/simulated-router.js';
import { ConfigError, configFromEnv } from '../../server/config.js';
import type { Controller } from '../../server/controller.js';
import { enrollThroughController } from '../../server/pki/local-enrollment.js';
import type { RolloutView } from '../../server/rollouts/rollout-engine.js';
import { eventually, startTestController } from '../support/controller.js';
import { createPostgresDatabase, type TestDatabase } from '../support/databases.js';
import { freePort } from '../support/ports.js';

const REDIS_URL = process.env.WRTFLEET_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Whether anything accepts TCP connections on the port. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('a replica that serves the API only (WRTFLEET_SERVE_AGENTS=false)', () => {
  it('needs the address agents are given, and says so', () => {
    expect(() => configFromEnv({ WRTFLEET_SERVE_AGENTS: 'false' })).toThrow(ConfigError);
    expect(() => configFromEnv({ WRTFLEET_SERVE_AGENTS: 'false' })).toThrow(/WRTFLEET_AGENT_ADDRESS/);
    expect(() => configFromEnv({ WRTFLEET_SERVE_AGENTS: 'maybe' })).toThrow(/WRTFLEET_SERVE_AGENTS/);
    expect(
      configFromEnv({ WRTFLEET_SERVE_AGENTS: 'false', WRTFLEET_AGENT_ADDRESS: 'ctl-a:50051,ctl-b:50051' }),
    ).toMatchObject({ serveAgents: false, agentAddress: 'ctl-a:50051,ctl-b:50051' });
    expect(configFromEnv({})).toMatchObject({ serveAgents: true, agentAddress: undefined });
  });

  describe('beside a replica that serves agents (PostgreSQL + Redis)', () => {
    let db: TestDatabase | undefined;
    let agents: Controller | undefined;
    let api: Controller | undefined;
    let fleet: SimulatedRouter[] = [];
    afterAll(async () => {
      await stopFleet(fleet);
      await api?.close();
      await agents?.close();
      await db?.drop();
    });

    it('listens for no agent, runs no job, tells operators the agents’ replica, and drives a rollout through it', async () => {
      db = await createPostgresDatabase();
      const a = await startTestController(db, { redisUrl: REDIS_URL, security: { insecureAgents: false } });
      agents = a.controller;
      const grpcPort = await freePort();
      const b = await startTestController(db, {
        redisUrl: REDIS_URL,
        security: { insecureAgents: false },
        grpcPort,
        serveAgents: false,
        // Nor runs jobs: the rollout's steps are the agents' replica's to take.
        runTasks: false,
        agentAddress: agents.grpcAddress,
      });
      api = b.controller;
      expect(api.grpcAddress).toBe('');
      expect(await listening(grpcPort)).toBe(false);

      // The enrollment answer names where agents go: the replica that serves them.
      const minted = await b.fetch('/v1/enrollment-tokens', {
        method: 'POST',
        body: { routerName: 'api-replica-1', expiresInSeconds: 300 },
      });
      expect(minted.status).toBe(201);
      expect(minted.body.grpcAddress).toBe(agents.grpcAddress);

      fleet = await startSimulatedFleet({
        controller: agents.grpcAddress,
        fixtureRoots: await fixtureModels(defaultFixturesDir()),
        perModel: 2,
        credentialsFor: (identity, name) =>
          enrollThroughController(agents!.security, agents!.grpcAddress, { identity, name }, 'test'),
      });
      await eventually(
        async () => (await b.fetch('/v1/routers/counts')).body.online === fleet.length,
        20_000,
        'every router online, as the API replica reads it',
      );
      expect(api.gateway.sessions.size).toBe(0);

      const saved = await b.fetch('/v1/profiles/api-replica', {
        method: 'PUT',
        body: { spec: { l3Rewrite: { ttl: { value: 64 } } } },
      });
      expect(saved.status).toBe(201);
      const created = await b.fetch<RolloutView>('/v1/rollouts', {
        method: 'POST',
        body: { profile: 'api-replica', selector: { all: true }, strategy: { canary: 1, batchSize: 10 } },
      });
      expect(created.status).toBe(201);
      const done = await eventually(
        async () => {
          const view = (await b.fetch<RolloutView>(`/v1/rollouts/${created.body.id}`)).body;
          return view.state === 'completed' ? view : undefined;
        },
        30_000,
        'the rollout created on the API replica to complete',
      );
      expect(done.counts.applied).toBe(fleet.length);
      expect(fleet.every((r) => r.applied?.profile === 'api-replica')).toBe(true);
    });
  });
});
