/**
 * /metrics for Prometheus: the fleet's counters read from the database (telemetry totals per
 * program and datapath mode, offloaded flows, routers by status / SoC / release / applied
 * revision, rollout and command outcomes), with bounded label sets, checked by Prometheus's own
 * `promtool check metrics`. Simulated routers (their datapath counters are simulated)
 * stream telemetry to a real controller on PostgreSQL.
 */
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulatedFleet, stopFleet } from '../../../agent/sim/simulated-fleet.js';
import { defaultFixturesDir, fixtureModels } from '../../../agent/sim/fixtures.js';
import type { SimulatedRouter } from '../../../agent/sim/simulated-router.js';
import { ConfigError, configFromEnv } from '../../../server/config.js';
import type { Controller } from '../../../server/controller.js';
import { createPostgresDatabase, type TestDatabase } from '../../support/databases.js';
import { eventually, operatorApi, startTestController, type authedFetch } from '../../support/controller.js';
import { applyProfile } from '../../support/telemetry.js';

/** promtool's verdict on an exposition: exit status and what it printed. */
function promtool(exposition: string): { status: number | null; output: string } {
  const r = spawnSync('promtool', ['check', 'metrics'], { input: exposition, encoding: 'utf8' });
  if (r.error) throw new Error(`promtool could not run (test/system-deps.sh installs prometheus): ${r.error.message}`);
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

/** The value of one sample line, e.g. value(text, 'wrtfleet_routers{status="online"}'). */
function value(exposition: string, series: string): number | undefined {
  const line = exposition.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/** Every label name that appears in the exposition's samples. */
function labelNames(exposition: string): Set<string> {
  const names = new Set<string>();
  for (const line of exposition.split('\n')) {
    if (line.startsWith('#')) continue;
    for (const m of line.matchAll(/[{,]([a-z_]+)="/g)) names.add(m[1]!);
  }
  return names;
}

describe('Prometheus metrics of a fleet (simulated routers, PostgreSQL)', () => {
  let db: TestDatabase;
  let controller: Controller;
  let api: ReturnType<typeof authedFetch>;
  let fleet: SimulatedRouter[] = [];

  beforeAll(async () => {
    db = await createPostgresDatabase();
    ({ controller, fetch: api } = await startTestController(db, {
      telemetry: { flushSeconds: 0.2, rollupEverySeconds: 3600 },
      metrics: { cacheSeconds: 0.5 },
    }));
    fleet = await startSimulatedFleet({
      controller: controller.grpcAddress,
      fixtureRoots: await fixtureModels(defaultFixturesDir()),
      perModel: 1,
      reconnect: { jitterWindowMs: 200, initialDelayMs: 50, maxDelayMs: 500 },
      telemetryIntervalMs: 200,
    });
    await eventually(async () => controller.gateway.sessions.size === 3, 15_000, 'three routers connected');
    await applyProfile(api, 'metrics', {}, { all: true });
    await eventually(
      async () => (await controller.db.prisma.fleetTelemetryTotal.findMany()).some((t) => t.setIpTtlSeen > 0n),
      10_000,
      'packets counted',
    );
  });

  afterAll(async () => {
    await stopFleet(fleet);
    await controller?.close();
    await db?.drop();
  });

  it('exposes the fleet with bounded labels, and promtool accepts the exposition', async () => {
    const job = await api<{ id: string }>('/v1/commands', {
      method: 'POST',
      body: { kind: 'check_drift', selector: { all: true } },
    });
    expect(job.status).toBe(201);
    await eventually(
      async () => (await api<{ state: string }>(`/v1/commands/${job.body.id}`)).body.state === 'completed',
      15_000,
      'the check-drift job to complete',
    );
    await new Promise((r) => setTimeout(r, 600)); // past the cache of a scrape before the apply
    const m = await api<string>('/metrics');
    expect(m.status).toBe(200);
    expect(m.headers.get('content-type')).toMatch(/text\/plain/);
    const check = promtool(m.body);
    expect(check.output).toBe('');
    expect(check.status).toBe(0);

    const text = m.body;
    expect(value(text, 'wrtfleet_routers{status="online"}')).toBe(3);
    expect(value(text, 'wrtfleet_routers{status="decommissioned"}')).toBe(0);
    for (const soc of ['MT7621', 'MT7986', 'QCA9558'])
      expect(value(text, `wrtfleet_routers_by_soc{soc="${soc}"}`)).toBe(1);
    expect(value(text, 'wrtfleet_routers_by_release{release="24.10.4"}')).toBeGreaterThanOrEqual(1);
    expect(value(text, 'wrtfleet_routers_by_applied_revision{applied_revision="metrics@1"}')).toBe(3);
    expect(value(text, 'wrtfleet_rollout_target_outcomes{outcome="applied"}')).toBe(3);
    expect(value(text, 'wrtfleet_rollout_target_outcomes{outcome="failed"}')).toBe(0);
    expect(value(text, 'wrtfleet_command_target_outcomes{kind="check_drift",outcome="succeeded"}')).toBe(3);
    expect(value(text, 'wrtfleet_command_target_outcomes{kind="reboot",outcome="failed"}')).toBe(0);
    // MT7621 and MT7986 (kernel 6.6 / 5.15) and the Archer C7: TCX where the kernel has it, cls_bpf elsewhere.
    const tcx = value(text, 'wrtfleet_fleet_packets_seen_total{program="set_ip_ttl",mode="tcx"}') ?? 0;
    const clsBpf = value(text, 'wrtfleet_fleet_packets_seen_total{program="set_ip_ttl",mode="cls_bpf"}') ?? 0;
    expect(tcx + clsBpf).toBeGreaterThan(0);
    expect(value(text, 'wrtfleet_fleet_packets_rewritten_total{program="set_ip_ttl",mode="tcx"}')).toBeGreaterThan(0);
    expect(value(text, 'wrtfleet_fleet_offloaded_flows{offload="software"}')).toBe(120); // 3 routers x 40
    // Bounded label sets: no router names by default.
    expect([...labelNames(text)].sort()).toEqual(
      [
        'applied_revision',
        'drift',
        'kind',
        'le',
        'mode',
        'offload',
        'outcome',
        'program',
        'release',
        'severity',
        'soc',
        'state',
        'status',
      ].sort(),
    );
    expect(text).not.toMatch(/router="/);
  });

  it('the counters grow between scrapes and never go down, across a simulated reboot too', async () => {
    const series = 'wrtfleet_fleet_packets_seen_total{program="set_ip_id_zero",mode="tcx"}';
    const before = value((await api<string>('/metrics')).body, series)!;
    for (const r of fleet) r.resetCounters();
    await new Promise((r) => setTimeout(r, 1_200));
    const after = value((await api<string>('/metrics')).body, series)!;
    expect(after).toBeGreaterThan(before);
  });

  it('a read token is enough; no token is not', async () => {
    const reader = await operatorApi(controller, ['read']);
    expect((await reader('/metrics')).status).toBe(200);
    expect((await fetch(`${controller.httpUrl}/metrics`)).status).toBe(401);
  });

  it('per-router series only when asked for, and not for a fleet larger than the limit', async () => {
    const open = await startTestController(db, { metrics: { perRouter: true, perRouterMax: 10, cacheSeconds: 0.1 } });
    const capped = await startTestController(db, { metrics: { perRouter: true, perRouterMax: 2, cacheSeconds: 0.1 } });
    try {
      const small = (await open.fetch<string>('/metrics')).body;
      expect(promtool(small)).toEqual({ status: 0, output: '' });
      expect(value(small, 'wrtfleet_metrics_per_router_suppressed')).toBe(0);
      expect(value(small, 'wrtfleet_router_online{router="kt-km14-102h-mt7621-001"}')).toBe(1);
      expect(
        value(small, 'wrtfleet_router_packets_seen_total{router="kt-km14-102h-mt7621-001",program="set_ip_ttl"}'),
      ).toBeGreaterThan(0);
      expect(value(small, 'wrtfleet_router_agent_rss_bytes{router="glinet-gl-mt6000-mt7986-001"}')).toBe(
        24 * 1024 * 1024,
      );

      const large = (await capped.fetch<string>('/metrics')).body;
      expect(promtool(large)).toEqual({ status: 0, output: '' });
      expect(value(large, 'wrtfleet_metrics_per_router_suppressed')).toBe(1);
      expect(large).not.toMatch(/router="/);
    } finally {
      await open.controller.close();
      await capped.controller.close();
    }
  });

  it('refuses a per-router limit past what one scrape can carry', () => {
    expect(() =>
      configFromEnv({ WRTFLEET_METRICS_PER_ROUTER: 'true', WRTFLEET_METRICS_PER_ROUTER_MAX: '100000' }),
    ).toThrow(ConfigError);
    expect(() => configFromEnv({ WRTFLEET_METRICS_PER_ROUTER: 'maybe' })).toThrow(/WRTFLEET_METRICS_PER_ROUTER/);
    expect(configFromEnv({ WRTFLEET_METRICS_PER_ROUTER: '1' }).metrics).toEqual({
      perRouter: true,
      perRouterMax: 500,
      cacheSeconds: 10,
    });
  });
});
