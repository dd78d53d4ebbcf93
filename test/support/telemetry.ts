/**
 * Helpers of the telemetry history tests: applying a profile to routers through the real
 * REST path (profile, rollout, completed), reading a router's series, and what the database
 * holds for a router's history.
 */
import { expect } from 'vitest';
import type { Controller } from '../../server/controller.js';
import type { RouterPoint } from '../../server/telemetry/telemetry-series.js';
import { eventually, type authedFetch } from './controller.js';

type Api = ReturnType<typeof authedFetch>;

/** PUTs `spec` as profile `name`, rolls it out to `selector` and waits until the rollout completed. */
export async function applyProfile(api: Api, name: string, spec: unknown, selector: unknown): Promise<void> {
  const profile = await api(`/v1/profiles/${name}`, { method: 'PUT', body: { spec } });
  expect([200, 201], JSON.stringify(profile.body)).toContain(profile.status);
  const rollout = await api('/v1/rollouts', { method: 'POST', body: { profile: name, selector } });
  expect(rollout.status, JSON.stringify(rollout.body)).toBe(201);
  await eventually(
    async () => (await api(`/v1/rollouts/${rollout.body.id}`)).body.state === 'completed',
    30_000,
    `rollout of ${name} completed`,
  );
}

export interface RouterSeriesBody {
  routerId: string;
  from: string;
  to: string;
  step: number;
  resolution: 'minute' | 'hour';
  points: RouterPoint[];
}

/** GET /v1/routers/{id}/telemetry with the given query (from, to, step). */
export async function routerSeries(api: Api, id: string, query: Record<string, string | number> = {}) {
  const qs = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])).toString();
  const r = await api<RouterSeriesBody>(`/v1/routers/${id}/telemetry${qs ? `?${qs}` : ''}`);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body;
}

/** The points with data, and every rate in them (seen and rewritten, every program). */
export function ratesOf(points: RouterPoint[]) {
  const withData = points.filter((p) => p.coveredSeconds > 0);
  return {
    withData,
    rates: withData.flatMap((p) => p.programs.flatMap((r) => [r.seenPerSecond, r.rewrittenPerSecond])),
  };
}

/** A router's stored baseline: the last sample's arrival (ms) and its cumulative counters by key. */
export async function storedBaseline(
  controller: Controller,
  routerId: string,
): Promise<{ at: number; counters: Record<string, [number, number]> } | null> {
  const { seriesKey } = await controller.db.prisma.router.findUniqueOrThrow({ where: { id: routerId } });
  const b = await controller.db.prisma.telemetryBaseline.findUnique({ where: { routerKey: seriesKey } });
  return b ? { at: b.at.getTime(), counters: b.counters as Record<string, [number, number]> } : null;
}

/**
 * One consistent reading of a router's stored history: when its baseline was taken (the
 * last sample's arrival) and how many milliseconds its minute rows cover. The writer updates
 * both in one transaction, so a history without holes grows its coverage exactly as fast as
 * its baseline moves.
 */
export async function storedCoverage(
  controller: Controller,
  routerId: string,
): Promise<{ at: number; coveredMs: number }> {
  const [row] = await controller.db.prisma.$queryRaw<{ at: bigint | null; covered: bigint | null }[]>`
    SELECT (SELECT round(extract(epoch FROM b.at) * 1000)::int8 FROM "TelemetryBaseline" b WHERE b."routerKey" = r."seriesKey") AS at,
           (SELECT sum("coveredMs") FROM "TelemetryMinute" m WHERE m."routerKey" = r."seriesKey") AS covered
      FROM "Router" r WHERE r.id = ${routerId}`;
  return { at: Number(row?.at ?? 0), coveredMs: Number(row?.covered ?? 0) };
}
