import type { PrismaClient } from '../../../prisma/generated/client/client.js';
import { modeCode } from '../../../server/telemetry/series-layout.js';

/**
 * A router's telemetry history written straight into the tables, as the writer and the rollup
 * job keep it: 1-minute points for the last `minuteHours` and 1-hour points for the last
 * `hourDays` (and the rollup's mark past them), for set_ip_id_zero and set_ip_ttl on a TCX datapath (a day-shaped wave of
 * traffic, so a chart has something to draw). For the router page's test and its charts bench.
 */
export async function storeTelemetryHistory(
  prisma: PrismaClient,
  seriesKey: number,
  nowMs: number,
  { minuteHours = 24, hourDays = 30 }: { minuteHours?: number; hourDays?: number } = {},
): Promise<{ minutes: number; hours: number }> {
  const lastMinute = Math.floor(nowMs / 60_000) - 1;
  const lastHour = Math.floor(nowMs / 3_600_000) - 1;
  const mode = modeCode('tcx');
  // programs bit i: PROGRAM_NAMES[i] reported (0 set_ip_id_zero, 1 set_ip_ttl).
  const programs = 0b11;
  // packets per second: 2,000 to 6,000 over a day; 95 % of TTL packets rewritten, every IP-ID one.
  const rate = (t: string) => `(4000 + 2000 * sin(2 * pi() * ${t} / 1440.0))`;
  const minutes = await prisma.$executeRawUnsafe(`
    INSERT INTO "TelemetryMinute" ("routerKey", minute, "coveredMs",
      "setIpIdZeroSeen", "setIpIdZeroRewritten", "setIpTtlSeen", "setIpTtlRewritten",
      "setTcpSynWindowSeen", "setTcpSynWindowRewritten", "clearTcpSynTsSeen", "clearTcpSynTsRewritten",
      "flowsSoftware", "flowsHardware", "agentRssKib", mode, programs)
    SELECT ${seriesKey}, m, 60000,
      (${rate('m')} * 60)::int, (${rate('m')} * 60)::int, (${rate('m')} * 60)::int, (${rate('m')} * 57)::int,
      0, 0, 0, 0,
      (200 + 100 * sin(2 * pi() * m / 1440.0))::int, 0, 30000 + (m % 600), ${mode}, ${programs}
    FROM generate_series(${lastMinute - minuteHours * 60 + 1}, ${lastMinute}) AS m
    ON CONFLICT DO NOTHING`);
  const hours = await prisma.$executeRawUnsafe(`
    INSERT INTO "TelemetryHour" ("routerKey", hour, "coveredMs",
      "setIpIdZeroSeen", "setIpIdZeroRewritten", "setIpTtlSeen", "setIpTtlRewritten",
      "setTcpSynWindowSeen", "setTcpSynWindowRewritten", "clearTcpSynTsSeen", "clearTcpSynTsRewritten",
      "flowsSoftware", "flowsHardware", "agentRssKib", mode, programs)
    SELECT ${seriesKey}, h, 3600000,
      (${rate('(h * 60)')} * 3600)::bigint, (${rate('(h * 60)')} * 3600)::bigint,
      (${rate('(h * 60)')} * 3600)::bigint, (${rate('(h * 60)')} * 3420)::bigint,
      0, 0, 0, 0,
      (200 + 100 * sin(2 * pi() * h / 24.0))::int, 0, 30000 + (h % 600), ${mode}, ${programs}
    FROM generate_series(${lastHour - hourDays * 24 + 1}, ${lastHour}) AS h
    ON CONFLICT DO NOTHING`);
  // The series reads stored hours below the rollup's mark and rolls up minutes above it: the
  // stored hours count as rolled up, as the job would have left them.
  await prisma.$executeRawUnsafe(`
    INSERT INTO "TelemetryRollupMark" (name, through) VALUES ('hour', ${lastHour + 1})
    ON CONFLICT (name) DO UPDATE SET through = GREATEST("TelemetryRollupMark".through, EXCLUDED.through)`);
  return { minutes, hours };
}
