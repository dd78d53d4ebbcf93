/**
 * Telemetry history end to end: simulated routers (MIPS and ARM boxes cannot run here; their
 * datapath counters are simulated, growing at a known rate) stream telemetry over real gRPC
 * to a real controller, whose batch writer stores it in the database; the series come back
 * through the REST API.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultFixturesDir } from '../../../agent/sim/fixtures.js';
import { SimulatedCounters } from '../../../agent/sim/simulated-counters.js';
import { SimulatedRouter } from '../../../agent/sim/simulated-router.js';
import type { Controller } from '../../../server/controller.js';
import { MINUTE_MS } from '../../../server/telemetry/series-layout.js';
import type { RouterPoint } from '../../../server/telemetry/telemetry-series.js';
import { BACKENDS, type TestDatabase } from '../../support/databases.js';
import { eventually, operatorApi, startTestController, type authedFetch } from '../../support/controller.js';
import { applyProfile, ratesOf, routerSeries, storedBaseline } from '../../support/telemetry.js';

const FAST = { jitterWindowMs: 200, initialDelayMs: 50, maxDelayMs: 500 };
const PPS = 1_000;
const DAY_S = 86_400;

describe.each(BACKENDS)('telemetry history of simulated routers over real gRPC (%s)', (_name, createDatabase) => {
  let db: TestDatabase;
  let controller: Controller;
  let api: ReturnType<typeof authedFetch>;
  const routers: SimulatedRouter[] = [];
  const ids: Record<string, string> = {};
  /** When the profile was applied everywhere: minutes before it average in time without programs. */
  let appliedAt = 0;
  /**
   * The clock of the controller's telemetry and of the routers' counters alike: real time plus
   * a jump the first test makes towards a minute's end, so no test waits for the wall clock's.
   */
  let skewMs = 0;
  const now = () => Date.now() + skewMs;

  const simulated = (model: string, serial: string) => {
    const router = new SimulatedRouter({
      root: join(defaultFixturesDir(), model),
      controller: controller.grpcAddress,
      identity: `sim.${model}:${serial}`,
      name: `${model}-${serial}`,
      reconnect: FAST,
      telemetryIntervalMs: 250,
      // As if the router had counted for a day: a reset drops its counters far below the last reading.
      counters: new SimulatedCounters({ packetsPerSecond: PPS, uptimeSeconds: DAY_S, now }),
    });
    routers.push(router);
    router.start();
    return router;
  };

  beforeAll(async () => {
    db = await createDatabase();
    ({ controller, fetch: api } = await startTestController(db, {
      // The job would run on its own only after an hour: every test here runs it when it means to.
      telemetry: { flushSeconds: 0.2, rollupEverySeconds: 3600 },
    }));
    controller.telemetry.now = now;
    simulated('kt-km14-102h-mt7621', '001');
    simulated('tplink-archer-c7-v2', '001');
    await eventually(async () => controller.gateway.sessions.size === 2, 15_000, 'two routers connected');
    for (const r of await controller.db.prisma.router.findMany()) ids[r.name] = r.id;
    await applyProfile(api, 'telemetry', { l3Rewrite: { ttl: { value: 64 } } }, { all: true });
    appliedAt = now();
  });

  afterAll(async () => {
    await Promise.all(routers.map((r) => r.stop()));
    await controller?.close();
    await db?.drop();
  });

  it('samples arrive and the router series returns them: rates per program, mode, offloaded flows, agent RSS', async () => {
    const id = ids['kt-km14-102h-mt7621-001']!;
    // A point's rate is over the time it covers: the first minute with programs also covers
    // the seconds before they were attached, so the check waits for a minute wholly after.
    const full = (p: RouterPoint) => p.coveredSeconds >= 2 && Date.parse(p.at) >= appliedAt;
    // The shared clock jumps to a second before the next minute (counters grow with it, so
    // every interval keeps its true rate): that minute then starts after a real second.
    // Samples already sent land before the move: one read before it and stamped after it would
    // carry the move's packets as a spike.
    for (const r of routers) r.pauseTelemetry(true);
    await new Promise((r) => setTimeout(r, 300));
    const nextMinute = (Math.floor(now() / MINUTE_MS) + 1) * MINUTE_MS;
    skewMs += Math.max(0, nextMinute - 1_000 - now());
    for (const r of routers) r.pauseTelemetry(false);
    const body = await eventually(
      async () => {
        const s = await routerSeries(api, id);
        return s.points.some(full) ? s : undefined;
      },
      15_000,
      'a minute after the apply covering two seconds',
    );
    expect(body).toMatchObject({ routerId: id, step: 60, resolution: 'minute' });
    expect(body.points).toHaveLength(61); // the last hour in minutes, the current one included
    const point = body.points.find(full)!;
    expect(point.mode).toBe('tcx'); // kernel 6.6: the plan attaches with TCX
    expect(point.programs.map((p) => p.program)).toEqual([
      'set_ip_id_zero',
      'set_ip_ttl',
      'set_tcp_syn_window',
      'clear_tcp_syn_ts',
    ]);
    for (const p of point.programs) expect(p.seenPerSecond).toBeGreaterThan(PPS * 0.8);
    for (const p of point.programs) expect(p.seenPerSecond).toBeLessThan(PPS * 1.2);
    const ttl = point.programs.find((p) => p.program === 'set_ip_ttl')!;
    expect(ttl.rewrittenPerSecond / ttl.seenPerSecond).toBeCloseTo(0.9, 1);
    expect(point.offloadedFlows).toEqual({ software: 40, hardware: 0 }); // prefer-rewrite: software offload
    expect(point.agentRssBytes).toBe(24 * 1024 * 1024);
    // A step without data is a gap: no rates, no gauges.
    expect(body.points[0]).toMatchObject({ coveredSeconds: 0, programs: [], mode: null, offloadedFlows: null });
    // The latest sample is the router's live state too.
    const detail = await api(`/v1/routers/${id}`);
    expect(detail.body.liveState.telemetry.programs).toHaveLength(4);
    expect(detail.body.liveState.datapath.mode).toBe(2); // MODE_TCX, from the apply result's evidence
  });

  it('a simulated reboot (counters back to zero) shows no negative and no spike in the series', async () => {
    const router = routers[0]!;
    const id = ids['kt-km14-102h-mt7621-001']!;
    const beforeTtl = (await storedBaseline(controller, id))!.counters['wan/set_ip_ttl']!;
    expect(beforeTtl[0]).toBeGreaterThan(PPS * DAY_S);
    const resets = controller.telemetry.writer.stats.resets;
    router.resetCounters();
    await eventually(async () => controller.telemetry.writer.stats.resets > resets, 10_000, 'a reset seen');
    await new Promise((r) => setTimeout(r, 1_500));
    await controller.telemetry.writer.flush();
    const afterTtl = (await storedBaseline(controller, id))!.counters['wan/set_ip_ttl']!;
    // The counters really went down by a day's worth...
    expect(afterTtl[0]).toBeLessThan(PPS * 60);
    // ...and every rate stayed what the router did: no negative, no spike of a day's count.
    for (const step of [60, 120]) {
      const { withData, rates } = ratesOf((await routerSeries(api, id, { step })).points);
      expect(withData.length).toBeGreaterThan(0);
      expect(Math.min(...rates)).toBeGreaterThanOrEqual(0);
      expect(Math.max(...withData.flatMap((p) => p.programs.map((r) => r.seenPerSecond)))).toBeLessThan(PPS * 1.2);
    }
  });

  it('the fleet aggregate: per datapath mode and program, live and once rolled up', async () => {
    await controller.telemetry.writer.flush();
    const live = await api('/v1/telemetry');
    expect(live.status).toBe(200);
    const latest = (body: typeof live.body) =>
      [...body.points].reverse().find((p: { routers: number }) => p.routers === 2) as {
        modes: { mode: string; routers: number; programs: { program: string; seenPerSecond: number }[] }[];
        offloadedFlows: { software: number; hardware: number };
      };
    const point = await eventually(async () => latest((await api('/v1/telemetry')).body), 10_000, 'both routers');
    // MT7621 on kernel 6.6 attaches with TCX, the Archer C7 (5.15) with cls_bpf.
    expect(point.modes.map((m) => [m.mode, m.routers])).toEqual([
      ['tcx', 1],
      ['cls_bpf', 1],
    ]);
    for (const m of point.modes) {
      expect(m.programs).toHaveLength(4);
      for (const p of m.programs) expect(p.seenPerSecond).toBeGreaterThan(0);
      for (const p of m.programs) expect(p.seenPerSecond).toBeLessThan(PPS * 1.2);
    }
    expect(point.offloadedFlows.software).toBe(80);
    // Rolled up (as the job would, minutes later), the stored fleet minutes say the same.
    const report = await controller.telemetry.rollup.run(now() + 3 * 60_000);
    expect(report?.fleetMinutes.to).toBeGreaterThan(report!.fleetMinutes.from);
    const stored = await controller.db.prisma.fleetTelemetryMinute.findMany();
    expect(new Set(stored.map((r) => r.mode))).toEqual(new Set([2, 3]));
    const rolled = await api('/v1/telemetry');
    expect(latest(rolled.body).modes.map((m) => m.mode)).toEqual(['tcx', 'cls_bpf']);
  });

  it('bad from, to or step are 400s naming the field; an unknown router is 404', async () => {
    const id = ids['kt-km14-102h-mt7621-001']!;
    const cases: [string, string][] = [
      ['from=yesterday', '/from'],
      ['to=2026-13-01T00:00:00Z', '/to'],
      ['step=59', '/step'],
      ['step=90', '/step'],
      ['step=abc', '/step'],
      ['step=86401', '/step'],
      [
        `from=${new Date(Date.now() - 10 * 60_000).toISOString()}&to=${new Date(Date.now() - 20 * 60_000).toISOString()}`,
        '/from',
      ],
      [`from=${new Date(Date.now() - 90 * 86_400_000).toISOString()}`, '/from'],
      [`from=${new Date(Date.now() - 3 * 86_400_000).toISOString()}&step=600`, '/step'],
      [`from=${new Date(Date.now() - 86_400_000).toISOString()}&step=60`, '/step'],
      ['from=0001-01-01T00:00:00Z&to=0001-01-01T01:00:00Z', '/from'],
      ['to=9999-12-31T00:00:00Z', '/to'],
      ['colour=red', '/colour'],
    ];
    for (const path of [`/v1/routers/${id}/telemetry`, '/v1/telemetry']) {
      for (const [query, field] of cases) {
        const r = await api(`${path}?${query}`);
        expect(r.status, `${path}?${query}: ${JSON.stringify(r.body)}`).toBe(400);
        expect(r.body.error).toBe('invalid_request');
        expect(r.body.details[0].path, query).toBe(field);
      }
    }
    const missing = await api('/v1/routers/no-such-router/telemetry');
    expect(missing.status).toBe(404);
  });

  it('a read token is enough; no token is not', async () => {
    const id = ids['kt-km14-102h-mt7621-001']!;
    const reader = await operatorApi(controller, ['read']);
    expect((await reader(`/v1/routers/${id}/telemetry`)).status).toBe(200);
    expect((await reader('/v1/telemetry')).status).toBe(200);
    for (const path of [`/v1/routers/${id}/telemetry`, '/v1/telemetry']) {
      const anonymous = await fetch(`${controller.httpUrl}${path}`);
      expect(anonymous.status).toBe(401);
    }
  });
});
