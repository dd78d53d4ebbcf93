/**
 * The stored side of telemetry history on PostgreSQL: hours rolled up from minutes, the
 * retention job keeping the tables bounded, two replicas running the job at once, and a
 * router's series continuing across a controller restart and a move to another replica.
 * Samples go through the real ingestion path (the batch writer), with arrival times chosen
 * by the test where it needs hours of history in seconds.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultFixturesDir } from '../../../agent/sim/fixtures.js';
import { SimulatedCounters } from '../../../agent/sim/simulated-counters.js';
import { SimulatedRouter } from '../../../agent/sim/simulated-router.js';
import type { Telemetry } from '../../../proto/gen/wrtfleet/agent/v1/agent.js';
import type { Controller } from '../../../server/controller.js';
import { createPostgresDatabase, type TestDatabase } from '../../support/databases.js';
import { eventually, startTestController, type authedFetch } from '../../support/controller.js';
import { applyProfile, ratesOf, routerSeries, storedCoverage } from '../../support/telemetry.js';

const MINUTE = 60_000;
const HOUR = 3_600_000;
const TELEMETRY = { flushSeconds: 0.2, rollupEverySeconds: 3600 };

const sample = (seen: number, rewritten: number, flows: number): Telemetry => ({
  programs: [
    { program: 'wan/set_ip_ttl', packetsSeen: seen, packetsRewritten: rewritten },
    { program: 'wan/set_ip_id_zero', packetsSeen: seen, packetsRewritten: seen },
  ],
  offload: undefined,
  offloadedFlowsSoftware: flows,
  offloadedFlowsHardware: 0,
  agentRssBytes: 10 * 1024 * 1024,
});

describe('telemetry history stored in PostgreSQL: rollup, retention, replicas', () => {
  let db: TestDatabase;
  let controller: Controller;
  let api: ReturnType<typeof authedFetch>;

  beforeAll(async () => {
    db = await createPostgresDatabase();
    ({ controller, fetch: api } = await startTestController(db, { telemetry: TELEMETRY }));
  });

  afterAll(async () => {
    await controller?.close();
    await db?.drop();
  });

  const newRouter = async (name: string) =>
    controller.db.prisma.router.create({
      data: { identity: `test:${name}`, name },
      select: { id: true, seriesKey: true },
    });

  it('rolls minutes up into hours: sums of deltas over covered time, means of gauges, a reset counted from zero', async () => {
    const router = await newRouter('rollup');
    // Two whole hours ending a few hours ago, one sample at :30 of every minute, plus one before.
    const h0 = Math.floor(Date.now() / HOUR) * HOUR - 4 * HOUR;
    const minutes = 120;
    const rate = (m: number) => (m < 60 ? 100 : 250); // packets per second, per hour
    let seen = 5_000_000;
    let rewritten = 1_000_000;
    const expected = [0, 1].map(() => ({ seen: 0, rewritten: 0, coveredMs: 0, flows: 0 }));
    controller.telemetry.writer.record(router.id, sample(seen, rewritten, 0), new Date(h0 - 30_000));
    for (let m = 0; m < minutes; m++) {
      const hour = expected[Math.floor(m / 60)]!;
      if (m === 75) {
        // A reboot halfway through the interval: the counters start over, and the new reading
        // (what was counted since) is the interval's delta.
        seen = rate(m) * 30;
        rewritten = rate(m) * 15;
        hour.seen += seen;
        hour.rewritten += rewritten;
      } else {
        seen += rate(m) * 60;
        rewritten += rate(m) * 30;
        hour.seen += rate(m) * 60;
        hour.rewritten += rate(m) * 30;
      }
      hour.coveredMs += MINUTE;
      hour.flows += m % 10;
      controller.telemetry.writer.record(
        router.id,
        sample(seen, rewritten, m % 10),
        new Date(h0 + m * MINUTE + 30_000),
      );
    }
    await controller.telemetry.writer.flush();
    expect(await controller.db.prisma.telemetryMinute.count({ where: { routerKey: router.seriesKey } })).toBe(minutes);

    const report = await controller.telemetry.rollup.run();
    expect(report).not.toBeNull();
    const hours = await controller.db.prisma.telemetryHour.findMany({
      where: { routerKey: router.seriesKey },
      orderBy: { hour: 'asc' },
    });
    expect(hours.map((h) => h.hour)).toEqual([h0 / HOUR, h0 / HOUR + 1]);
    hours.forEach((h, i) => {
      expect(h.coveredMs).toBe(expected[i]!.coveredMs);
      expect(Number(h.setIpTtlSeen)).toBe(expected[i]!.seen);
      expect(Number(h.setIpTtlRewritten)).toBe(expected[i]!.rewritten);
      expect(h.flowsSoftware).toBe(Math.round(expected[i]!.flows / 60));
      expect(h.agentRssKib).toBe(10 * 1024);
      expect(h.programs).toBe(0b11);
    });

    // The API reads the hour points: rates over covered time, the reset hour included.
    const series = await routerSeries(api, router.id, {
      from: new Date(h0).toISOString(),
      to: new Date(h0 + 2 * HOUR).toISOString(),
      step: 3600,
    });
    expect(series.resolution).toBe('hour');
    expect(series.points).toHaveLength(2);
    series.points.forEach((p, i) => {
      const ttl = p.programs.find((r) => r.program === 'set_ip_ttl')!;
      expect(ttl.seenPerSecond).toBeCloseTo(expected[i]!.seen / 3600, 2);
      expect(ttl.rewrittenPerSecond).toBeCloseTo(expected[i]!.rewritten / 3600, 2);
      expect(p.coveredSeconds).toBe(3600);
    });
    // The same hours read from their minutes agree with the rolled-up ones.
    const byMinutes = await routerSeries(api, router.id, {
      from: new Date(h0).toISOString(),
      to: new Date(h0 + 2 * HOUR).toISOString(),
      step: 1800,
    });
    expect(byMinutes.resolution).toBe('minute');
    const seenOf = (p: (typeof byMinutes.points)[number]) =>
      p.programs.find((r) => r.program === 'set_ip_ttl')!.seenPerSecond * p.coveredSeconds;
    // (Rates are rounded to thousandths: a packet or two over half an hour.)
    expect(Math.abs(seenOf(byMinutes.points[0]!) + seenOf(byMinutes.points[1]!) - expected[0]!.seen)).toBeLessThan(4);
    expect(Math.abs(seenOf(byMinutes.points[2]!) + seenOf(byMinutes.points[3]!) - expected[1]!.seen)).toBeLessThan(4);
    // The fleet's hour points are the sum of its routers' rates.
    const fleet = await controller.db.prisma.fleetTelemetryHour.findMany({ orderBy: { hour: 'asc' } });
    expect(fleet.map((f) => f.setIpTtlSeenRate)).toEqual(
      hours.map((h) => (Number(h.setIpTtlSeen) * 1000) / h.coveredMs),
    );

    // Idempotent: a second pass (another replica, a retried job) changes nothing.
    await controller.telemetry.rollup.run();
    expect(
      await controller.db.prisma.telemetryHour.findMany({
        where: { routerKey: router.seriesKey },
        orderBy: { hour: 'asc' },
      }),
    ).toEqual(hours);
  });

  it('rows written below what the job already covered (a late flush, a backfill) are rolled up on its next pass', async () => {
    const router = await newRouter('late');
    const h0 = Math.floor(Date.now() / HOUR) * HOUR - 6 * HOUR;
    for (let m = -1; m < 60; m++)
      controller.telemetry.writer.record(
        router.id,
        sample(1_000 + (m + 1) * 600, 0, 1),
        new Date(h0 + m * MINUTE + 1_000),
      );
    await controller.telemetry.writer.flush();
    await controller.telemetry.rollup.run();
    const hour = await controller.db.prisma.telemetryHour.findUnique({
      where: { routerKey_hour: { routerKey: router.seriesKey, hour: h0 / HOUR } },
    });
    expect(Number(hour?.setIpTtlSeen)).toBe(60 * 600);
  });

  it('the retention job keeps the tables bounded: points older than the retentions are deleted, newer kept', async () => {
    const router = await newRouter('retention');
    const now = Date.now();
    const rollup = controller.telemetry.rollup;
    // Minute points from 26 h ago to 22 h ago (the minute retention is 24 h)...
    const start = now - 26 * HOUR;
    for (let m = 0; m <= 240; m++)
      controller.telemetry.writer.record(router.id, sample(m * 6_000, m * 3_000, 2), new Date(start + m * MINUTE));
    await controller.telemetry.writer.flush();
    // ...and hour points from 35 days ago to 25 days ago (the hour retention is 30 days).
    const firstHour = Math.floor((now - 35 * 24 * HOUR) / HOUR);
    await controller.db.prisma.telemetryHour.createMany({
      data: Array.from({ length: 10 * 24 }, (_, i) => ({
        routerKey: router.seriesKey,
        hour: firstHour + i,
        coveredMs: HOUR,
        setIpIdZeroSeen: 1n,
        setIpIdZeroRewritten: 1n,
        setIpTtlSeen: 1n,
        setIpTtlRewritten: 1n,
        setTcpSynWindowSeen: 0n,
        setTcpSynWindowRewritten: 0n,
        clearTcpSynTsSeen: 0n,
        clearTcpSynTsRewritten: 0n,
        flowsSoftware: 0,
        flowsHardware: 0,
        agentRssKib: 0,
        mode: 2,
        programs: 3,
      })),
    });
    const minuteCutoff = Math.floor((now - rollup.minuteRetentionMs) / MINUTE);
    const hourCutoff = Math.floor((now - rollup.hourRetentionMs) / HOUR);
    const count = async () => ({
      minutesOld: await controller.db.prisma.telemetryMinute.count({
        where: { routerKey: router.seriesKey, minute: { lt: minuteCutoff } },
      }),
      minutesKept: await controller.db.prisma.telemetryMinute.count({
        where: { routerKey: router.seriesKey, minute: { gte: minuteCutoff } },
      }),
      hoursOld: await controller.db.prisma.telemetryHour.count({
        where: { routerKey: router.seriesKey, hour: { lt: hourCutoff } },
      }),
      hoursKept: await controller.db.prisma.telemetryHour.count({
        where: { routerKey: router.seriesKey, hour: { gte: hourCutoff } },
      }),
      fleetMinutesOld: await controller.db.prisma.fleetTelemetryMinute.count({
        where: { minute: { lt: minuteCutoff } },
      }),
    });
    const before = await count();
    expect(before.minutesOld).toBeGreaterThan(100);
    expect(before.hoursOld).toBeGreaterThan(100);

    const report = await rollup.run(now);
    expect(report!.deleted.minutes).toBeGreaterThanOrEqual(before.minutesOld);
    const after = await count();
    expect(after).toMatchObject({ minutesOld: 0, hoursOld: 0, fleetMinutesOld: 0 });
    expect(after.minutesKept).toBe(before.minutesKept);
    expect(after.hoursKept).toBeGreaterThanOrEqual(before.hoursKept);
    // The kept minutes were rolled up into hours before any minute went.
    expect(after.hoursKept).toBeGreaterThan(before.hoursKept);
  });

  it('two replicas running the job at once: one pass does the work, the other skips, nothing doubles', async () => {
    const second = await startTestController(db, { telemetry: TELEMETRY });
    try {
      const router = await newRouter('replicas');
      const h0 = Math.floor(Date.now() / HOUR) * HOUR - 8 * HOUR;
      for (let m = -1; m < 60; m++)
        second.controller.telemetry.writer.record(
          router.id,
          sample(1_000 + (m + 1) * 60, 0, 0),
          new Date(h0 + m * MINUTE),
        );
      await second.controller.telemetry.writer.flush();
      const [a, b] = await Promise.all([controller.telemetry.rollup.run(), second.controller.telemetry.rollup.run()]);
      expect([a, b].filter((r) => r !== null).length).toBeGreaterThanOrEqual(1);
      const hour = await controller.db.prisma.telemetryHour.findUnique({
        where: { routerKey_hour: { routerKey: router.seriesKey, hour: h0 / HOUR } },
      });
      expect(Number(hour?.setIpTtlSeen)).toBe(60 * 60);
    } finally {
      await second.controller.close();
    }
  });
});

describe('a router series across a controller restart and a move to another replica (simulated router, PostgreSQL)', () => {
  let db: TestDatabase;
  const controllers: Controller[] = [];
  const routers: SimulatedRouter[] = [];

  beforeAll(async () => {
    db = await createPostgresDatabase();
  });

  afterAll(async () => {
    await Promise.all(routers.map((r) => r.stop()));
    for (const c of controllers) await c.close();
    await db?.drop();
  });

  it(
    'keeps its baseline in the database: no gap, no spike, no double count when the stream lands elsewhere',
    { timeout: 120_000 },
    async () => {
      const start = async () => {
        const started = await startTestController(db, { telemetry: TELEMETRY });
        controllers.push(started.controller);
        return started;
      };
      const a = await start();
      const b = await start();
      const counters = new SimulatedCounters({ packetsPerSecond: 2_000, uptimeSeconds: 3_600 });
      const connect = (controller: Controller) => {
        const router = new SimulatedRouter({
          root: join(defaultFixturesDir(), 'kt-km14-102h-mt7621'),
          controller: controller.grpcAddress,
          identity: 'sim.kt-km14-102h-mt7621:move',
          name: 'mover',
          reconnect: { jitterWindowMs: 100, initialDelayMs: 50, maxDelayMs: 300 },
          telemetryIntervalMs: 200,
          counters,
        });
        routers.push(router);
        router.start();
        return router;
      };
      const first = connect(a.controller);
      await eventually(async () => a.controller.gateway.sessions.size === 1, 10_000, 'connected to replica A');
      const id = (await a.controller.db.prisma.router.findFirstOrThrow({ where: { name: 'mover' } })).id;
      await applyProfile(a.fetch, 'mover', {}, { ids: [id] });
      await eventually(async () => (await storedCoverage(a.controller, id)).coveredMs > 1_000, 10_000, 'history on A');
      const t1 = await storedCoverage(a.controller, id);

      // The router's stream moves to replica B (counters keep counting: the same router).
      await first.stop();
      connect(b.controller);
      await eventually(async () => b.controller.gateway.sessions.size === 1, 10_000, 'connected to replica B');
      await eventually(async () => (await storedCoverage(b.controller, id)).at > t1.at + 1_500, 10_000, 'history on B');
      // Replica A restarts; the router moves back to it.
      await a.controller.close();
      const a2 = await start();
      await routers.at(-1)!.stop();
      connect(a2.controller);
      await eventually(async () => a2.controller.gateway.sessions.size === 1, 10_000, 'connected to the restarted A');
      const t2 = await eventually(
        async () => {
          const now = await storedCoverage(a2.controller, id);
          return now.at > t1.at + 3_000 ? now : undefined;
        },
        10_000,
        'history on the restarted A',
      );
      await routers.at(-1)!.stop();
      await a2.controller.telemetry.writer.flush();
      const t3 = await storedCoverage(a2.controller, id);

      // Every interval between the two readings is covered once: no gap at a move, none twice.
      expect(t3.coveredMs - t1.coveredMs).toBe(t3.at - t1.at);
      expect(t3.at).toBeGreaterThanOrEqual(t2.at);
      // And the rates stayed the router's: no spike from a lost baseline.
      const { withData, rates } = ratesOf((await routerSeries(a2.fetch, id, { step: 60 })).points);
      expect(withData.length).toBeGreaterThan(0);
      expect(Math.min(...rates)).toBeGreaterThanOrEqual(0);
      expect(Math.max(...withData.flatMap((p) => p.programs.map((r) => r.seenPerSecond)))).toBeLessThan(2_000 * 1.2);
    },
  );
});
