/**
 * Telemetry history from the real agent on a real kernel: the on-router agent (NetnsHost in
 * the router namespace) connects over gRPC to a real controller on PostgreSQL, which rolls a
 * profile out to it; traffic through the router's WAN moves the BPF counters; a new revision
 * (another TTL: another configured object) re-attaches the programs with new maps, so the
 * counters start over. The stored history counts every packet once, and the series never
 * goes negative.
 *
 *   client ── (lan0) router (wan0 10.213.2.1) ── (up0 10.213.2.2) peer      (test/support/datapath-topology.ts)
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileStateStore } from '../../../agent/apply/state-store.js';
import { ebpfStatus } from '../../../agent/datapath/loader.js';
import { RouterAgent } from '../../../agent/router-agent.js';
import type { Controller } from '../../../server/controller.js';
import { requireFeatures } from '../../support/datapath-features.js';
import { Topology } from '../../support/datapath-topology.js';
import { eventually, startTestController, type authedFetch } from '../../support/controller.js';
import { createPostgresDatabase, type TestDatabase } from '../../support/databases.js';
import { applyProfile, ratesOf, routerSeries, storedBaseline } from '../../support/telemetry.js';

const topo = new Topology();
const KEY = 'wan0/set_ip_ttl';
let db: TestDatabase;
let controller: Controller;
let api: ReturnType<typeof authedFetch>;
let agent: RouterAgent;
let routerId: string;
const logs: string[] = [];

/** The reading of KEY in the router's stored baseline (the last sample the controller turned into deltas). */
async function baselineReading(): Promise<[number, number] | undefined> {
  return (await storedBaseline(controller, routerId))?.counters[KEY];
}

/**
 * KEY's reading once the traffic has been counted: two samples stored after now that read the
 * same (a sample arrives after it was collected, which takes a moment on a loaded machine).
 */
async function settled(): Promise<[number, number]> {
  const since = Date.now();
  let last: { at: number; reading: string } | undefined;
  return eventually(
    async () => {
      const baseline = await storedBaseline(controller, routerId);
      const at = baseline?.at ?? 0;
      const reading = baseline?.counters[KEY];
      if (at <= since || !reading) return undefined;
      const stable = last !== undefined && last.at !== at && last.reading === JSON.stringify(reading);
      last = { at, reading: JSON.stringify(reading) };
      return stable ? reading : undefined;
    },
    15_000,
    'two equal readings stored',
  );
}

/** Every packet of KEY's program the history holds, from the minute rows. */
async function storedSeen(): Promise<number> {
  const { seriesKey } = await controller.db.prisma.router.findUniqueOrThrow({ where: { id: routerId } });
  const [row] = await controller.db.prisma.$queryRaw<{ seen: bigint | null }[]>`
    SELECT sum("setIpTtlSeen") AS seen FROM "TelemetryMinute" WHERE "routerKey" = ${seriesKey}`;
  return Number(row?.seen ?? 0);
}

const progIds = async () =>
  (await ebpfStatus(topo.router, { pinRoot: topo.pinRoot })).interfaces.flatMap((i) => i.programs.map((p) => p.progId));

beforeAll(async () => {
  await topo.create();
  await requireFeatures(topo, ['tcx']);
  await topo.addDefaultRoute();
  await topo.startIperfServer();
  db = await createPostgresDatabase();
  ({ controller, fetch: api } = await startTestController(db, {
    telemetry: { flushSeconds: 0.2, rollupEverySeconds: 3600 },
  }));
  agent = new RouterAgent({
    host: topo.router,
    controller: controller.grpcAddress,
    placement: 'on_router',
    identity: `telemetry:${topo.id}`,
    store: new FileStateStore(join(topo.work, 'state.json')),
    paths: { pinRoot: topo.pinRoot },
    telemetryIntervalMs: 300,
    reconnect: { jitterWindowMs: 200, initialDelayMs: 100, maxDelayMs: 500 },
    log: (m) => logs.push(m),
  });
  agent.start();
  await eventually(async () => controller.gateway.sessions.size === 1, 20_000, 'agent connected');
  routerId = (await controller.db.prisma.router.findFirstOrThrow()).id;
}, 120_000);

afterAll(async () => {
  await agent?.stop().catch(() => undefined);
  await controller?.close();
  await db?.drop();
  await topo.destroy();
});

describe('telemetry history of the real agent on a real kernel (network namespaces, TCX)', () => {
  it(
    'programs re-attached with new maps: the counters start over, the history counts each packet once and never goes negative',
    { timeout: 180_000 },
    async () => {
      await applyProfile(api, 'kernel-a', { l3Rewrite: { ttl: { value: 64 } } }, { ids: [routerId] });
      const attached = await progIds();
      expect(attached.length).toBeGreaterThan(0);
      // The first reading of a newly attached program starts its series (it is not counted).
      const first = await eventually(async () => baselineReading(), 10_000, 'counters of wan0 in telemetry');
      const counted = await storedSeen();

      await topo.traffic('4M');
      const beforeReattach = await settled();
      expect(beforeReattach[0]).toBeGreaterThan(first[0] + 1_000);

      // Another TTL is another configured object: loaded and attached anew, with new (zeroed) maps.
      const resets = controller.telemetry.writer.stats.resets;
      await applyProfile(api, 'kernel-b', { l3Rewrite: { ttl: { value: 65 } } }, { ids: [routerId] });
      const reattached = await progIds();
      expect(reattached.some((id) => attached.includes(id))).toBe(false);
      await topo.traffic('1M');
      const after = await settled();
      // The kernel's counter really went down...
      expect(after[0]).toBeLessThan(beforeReattach[0]);
      expect(controller.telemetry.writer.stats.resets).toBeGreaterThan(resets);

      // ...and the history holds what the kernel counted, once: up to the re-attach, then from zero.
      // (A few packets of the router's own may pass between readings: hence the small margin.)
      const expected = counted + (beforeReattach[0] - first[0]) + after[0];
      const stored = await storedSeen();
      expect(Math.abs(stored - expected), `stored ${stored}, expected ${expected}`).toBeLessThanOrEqual(20);

      const { withData, rates } = ratesOf((await routerSeries(api, routerId, { step: 60 })).points);
      expect(withData.length).toBeGreaterThan(0);
      expect(Math.min(...rates)).toBeGreaterThanOrEqual(0);
      // Minutes with programs are the TCX datapath's (the apply result's evidence says so).
      expect(withData.filter((p) => p.programs.length > 0).every((p) => p.mode === 'tcx')).toBe(true);
    },
  );
});
