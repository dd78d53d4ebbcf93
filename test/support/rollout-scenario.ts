import { expect } from 'vitest';
import { startSimulatedFleet } from '../../agent/sim/simulated-fleet.js';
import { defaultFixturesDir, fixtureModels } from '../../agent/sim/fixtures.js';
import type { SimulatedRouter } from '../../agent/sim/simulated-router.js';
import type { RolloutView } from '../../server/rollouts/rollout-engine.js';
import { eventually, type authedFetch } from './controller.js';

type Api = ReturnType<typeof authedFetch>;

/** The body of /healthz and /readyz. */
export interface HealthBody {
  ok: boolean;
  status: 'ok' | 'degraded';
  checks: Record<'database' | 'tasks', { ok: boolean; latencyMs: number; error?: string }>;
}

/**
 * Ten missed heartbeats before a router counts as offline, not three: on a loaded test machine
 * a starved event loop can delay heartbeats by seconds, and a router wrongly marked offline is
 * skipped by the rollout, which is not the fault under test.
 */
export const FAULT_TEST_LIVENESS = { heartbeatIntervalSeconds: 1, missedHeartbeatsBeforeOffline: 10 } as const;

/** /healthz or /readyz of a controller, as a load balancer reads it (no token). */
export async function healthOf(httpUrl: string, path: '/healthz' | '/readyz') {
  const res = await fetch(`${httpUrl}${path}`);
  return { status: res.status, body: (await res.json()) as HealthBody };
}

/** The fleet every fault test uses: four simulated routers per fixture, applies that take a while, quick reconnects. */
export async function startFaultFleet(grpcAddress: string): Promise<SimulatedRouter[]> {
  return startSimulatedFleet({
    controller: grpcAddress,
    fixtureRoots: await fixtureModels(defaultFixturesDir()),
    perModel: 4,
    applyDelayMs: 600,
    reconnect: { jitterWindowMs: 500, initialDelayMs: 100, maxDelayMs: 1_000 },
  });
}

/** The profile every fault test rolls out: one small rewrite, valid on every fixture. */
export const FAULT_PROFILE = 'site';

/**
 * Waits for the whole fleet online, then rolls a new profile out to it (canary of one, then
 * batches of two) and returns once the canary is applied and later batches are still to go:
 * the moment a fault test takes a dependency away.
 */
export async function startRolloutMidway(api: Api, fleetSize: number): Promise<RolloutView> {
  await eventually(
    async () => (await api('/v1/routers?status=online&limit=200')).body.items?.length === fleetSize,
    20_000,
    `${fleetSize} routers online`,
  );
  const profile = await api(`/v1/profiles/${FAULT_PROFILE}`, {
    method: 'PUT',
    body: { spec: { l3Rewrite: { ttl: { value: 100 } } } },
  });
  expect(profile.status).toBe(201);
  const created = await api<RolloutView>('/v1/rollouts', {
    method: 'POST',
    body: { profile: FAULT_PROFILE, selector: { all: true }, strategy: { canary: 1, batchSize: 2 } },
  });
  expect(created.status).toBe(201);
  const midway = await eventually(
    async () => {
      const r = (await api<RolloutView>(`/v1/rollouts/${created.body.id}`)).body;
      return r.counts.applied >= 1 && r.currentBatch >= 1 ? r : undefined;
    },
    20_000,
    'the canary applied',
  );
  // Taken away mid-rollout, not after it: most of the fleet is still to go.
  expect(midway).toMatchObject({ state: 'running' });
  expect(midway.counts.applied).toBeLessThan(fleetSize / 2);
  return midway;
}

/** Waits until the rollout stops running (completed, paused or cancelled) and returns its view. */
export async function rolloutFinished(api: Api, rolloutId: string, timeoutMs: number): Promise<RolloutView> {
  return eventually(
    async () => {
      const r = (await api<RolloutView>(`/v1/rollouts/${rolloutId}`)).body;
      return r.state === 'running' ? undefined : r;
    },
    timeoutMs,
    'rollout finished',
  );
}

/**
 * Every router got the rollout's revision applied exactly once: one applied result for it in
 * the controller's records (GET /v1/routers/{id}/apply-results), one apply on the router itself,
 * and the router runs it now.
 */
export async function appliedOnceEach(api: Api, fleet: SimulatedRouter[], rollout: RolloutView): Promise<void> {
  const routers = (await api<{ items: { id: string; identity: string }[] }>('/v1/routers?limit=200')).body.items;
  expect(routers).toHaveLength(fleet.length);
  const results: Record<string, string[]> = {};
  for (const router of routers) {
    const page = await api<{ items: { status: string; revision: { profile: string; revision: number } | null }[] }>(
      `/v1/routers/${router.id}/apply-results?limit=200`,
    );
    results[router.identity] = page.body.items
      .filter((r) => r.revision?.profile === rollout.profile && r.revision.revision === rollout.revision)
      .map((r) => r.status);
  }
  expect(results).toEqual(Object.fromEntries(routers.map((r) => [r.identity, ['applied']])));
  const onRouters = Object.fromEntries(
    fleet.map((r) => [r.identity, r.history.filter((h) => h.profile === rollout.profile).map((h) => h.status)]),
  );
  expect(onRouters).toEqual(Object.fromEntries(fleet.map((r) => [r.identity, ['applied']])));
  for (const r of fleet) expect(r.applied, r.identity).toMatchObject({ profile: rollout.profile });
}
