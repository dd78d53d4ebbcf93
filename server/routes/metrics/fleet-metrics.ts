import { Counter, Gauge, type Registry } from 'prom-client';
import type { Logger } from 'pino';
import type { PrismaClient } from '../../../prisma/generated/client/client.js';
import { PROGRAM_NAMES } from '../../../core/programs.js';
import { COMMAND_KINDS, OUTCOME_STATES } from '../../commands/command-kinds.js';
import type { MetricsConfig } from '../../config.js';
import { unresolvedAlertCounts } from '../../alerts/alert-store.js';
import { CONNECTION_STATUSES } from '../../fleet/router-filter.js';
import { COUNTER_COLUMNS, modeName, programOfKey } from '../../telemetry/series-layout.js';

/**
 * The fleet in /metrics, read from the database (so every replica reports the whole fleet,
 * not its own streams; a Prometheus that scrapes several replicas takes max(), not sum()), at
 * most once per `cacheSeconds` however many collectors and scrapers ask. Label sets are
 * bounded: programs and modes are fixed lists, SoCs, releases and revisions are the
 * TOP_VALUES most common plus "other"; per-router series only when asked for, and only for a
 * fleet of at most `perRouterMax` routers.
 */
const TOP_VALUES = 50;
const LABEL_MAX = 64;
const TARGET_OUTCOMES = ['applied', 'failed', 'rolled_back', 'skipped'] as const;
/** A command target's outcome; offline counts once its command has ended (it may still connect before). */
const COMMAND_OUTCOMES = [...OUTCOME_STATES, 'offline'] as const;

interface Count {
  value: string;
  count: number;
}

interface RouterSeries {
  name: string;
  online: boolean;
  /** program -> [seen, rewritten], the agent's cumulative counters summed over interfaces. */
  programs: Map<string, [number, number]>;
  flowsSoftware: number;
  flowsHardware: number;
  rssBytes: number;
}

interface FleetSnapshot {
  totals: { mode: string; program: string; seen: number; rewritten: number }[];
  offloadedFlows: { software: number; hardware: number };
  byStatus: Count[];
  bySoc: Count[];
  byRelease: Count[];
  byRevision: Count[];
  rolloutOutcomes: Count[];
  byDrift: Count[];
  /** Unresolved alerts by status (firing, acknowledged, silenced) and severity. */
  alerts: { status: string; severity: string; count: number }[];
  commandOutcomes: { kind: string; outcome: string; count: number }[];
  /** null: not asked for; 'suppressed': the fleet is larger than perRouterMax. */
  perRouter: RouterSeries[] | 'suppressed' | null;
}

/** The TOP_VALUES largest counts, the rest summed as "other". */
function topValues(rows: Count[]): Count[] {
  const sorted = [...rows].sort((a, b) => b.count - a.count || a.value.localeCompare(b.value));
  const rest = sorted.slice(TOP_VALUES).reduce((n, r) => n + r.count, 0);
  return [...sorted.slice(0, TOP_VALUES), ...(rest > 0 ? [{ value: 'other', count: rest }] : [])];
}

const label = (v: string | null | undefined, none = 'unknown') => (v ? v.slice(0, LABEL_MAX) : none);

type Telemetry = {
  programs?: { program?: string; packetsSeen?: number; packetsRewritten?: number }[];
  offloadedFlowsSoftware?: number;
  offloadedFlowsHardware?: number;
  agentRssBytes?: number;
};

export class FleetMetrics {
  private cached: { at: number; snapshot: Promise<FleetSnapshot> } | undefined;

  constructor(
    private readonly db: PrismaClient,
    registry: Registry,
    private readonly config: MetricsConfig,
    private readonly log: Logger,
  ) {
    const snapshot = () => this.snapshot();
    const gauge = (name: string, help: string, labelNames: string[], fill: (g: Gauge, s: FleetSnapshot) => void) =>
      new Gauge({
        name,
        help,
        labelNames,
        registers: [registry],
        async collect() {
          const s = await snapshot();
          this.reset();
          fill(this, s);
        },
      });
    const counter = (name: string, help: string, labelNames: string[], fill: (c: Counter, s: FleetSnapshot) => void) =>
      new Counter({
        name,
        help,
        labelNames,
        registers: [registry],
        async collect() {
          const s = await snapshot();
          this.reset();
          fill(this, s);
        },
      });
    const counts = (key: string, rows: (s: FleetSnapshot) => Count[]) => (g: Gauge, s: FleetSnapshot) => {
      for (const r of rows(s)) g.set({ [key]: r.value }, r.count);
    };

    counter(
      'wrtfleet_fleet_packets_seen_total',
      'Packets the fleet datapaths saw, per program and datapath mode (sums of stored deltas: resets count from zero)',
      ['program', 'mode'],
      (c, s) => s.totals.forEach((t) => c.inc({ program: t.program, mode: t.mode }, t.seen)),
    );
    counter(
      'wrtfleet_fleet_packets_rewritten_total',
      'Packets the fleet datapaths rewrote, per program and datapath mode',
      ['program', 'mode'],
      (c, s) => s.totals.forEach((t) => c.inc({ program: t.program, mode: t.mode }, t.rewritten)),
    );
    gauge(
      'wrtfleet_fleet_offloaded_flows',
      'Flows offloaded on online routers, as last reported',
      ['offload'],
      (g, s) => {
        g.set({ offload: 'software' }, s.offloadedFlows.software);
        g.set({ offload: 'hardware' }, s.offloadedFlows.hardware);
      },
    );
    gauge(
      'wrtfleet_routers',
      'Routers by connection status',
      ['status'],
      counts('status', (s) => s.byStatus),
    );
    gauge(
      'wrtfleet_routers_by_soc',
      `Routers by SoC (the ${TOP_VALUES} most common, then other)`,
      ['soc'],
      counts('soc', (s) => s.bySoc),
    );
    gauge(
      'wrtfleet_routers_by_release',
      `Routers by OpenWrt release (the ${TOP_VALUES} most common, then other)`,
      ['release'],
      counts('release', (s) => s.byRelease),
    );
    gauge(
      'wrtfleet_routers_by_applied_revision',
      `Routers by the revision they run ("profile@number", none; the ${TOP_VALUES} most common, then other)`,
      ['applied_revision'],
      counts('applied_revision', (s) => s.byRevision),
    );
    gauge(
      'wrtfleet_rollout_target_outcomes',
      'Rollout targets of every rollout by how they ended',
      ['outcome'],
      counts('outcome', (s) => s.rolloutOutcomes),
    );
    gauge(
      'wrtfleet_routers_by_drift',
      'Routers by their last drift report: drifted, clean, or unreported (none yet)',
      ['drift'],
      counts('drift', (s) => s.byDrift),
    );
    gauge(
      'wrtfleet_alerts',
      "The controller's unresolved alerts by status (firing, acknowledged, silenced) and severity",
      ['status', 'severity'],
      (g, s) => s.alerts.forEach((a) => g.set({ status: a.status, severity: a.severity }, a.count)),
    );
    gauge(
      'wrtfleet_command_target_outcomes',
      'Routers of every command by command kind and how they ended (offline: the command ended first)',
      ['kind', 'outcome'],
      (g, s) => s.commandOutcomes.forEach((c) => g.set({ kind: c.kind, outcome: c.outcome }, c.count)),
    );
    if (config.perRouter) this.perRouterMetrics(gauge, counter);
  }

  private perRouterMetrics(
    gauge: (name: string, help: string, labels: string[], fill: (g: Gauge, s: FleetSnapshot) => void) => Gauge,
    counter: (name: string, help: string, labels: string[], fill: (c: Counter, s: FleetSnapshot) => void) => Counter,
  ): void {
    const each = (s: FleetSnapshot, fn: (r: RouterSeries) => void) =>
      Array.isArray(s.perRouter) && s.perRouter.forEach(fn);
    gauge(
      'wrtfleet_metrics_per_router_suppressed',
      `1 when per-router series are left out: the fleet has more than ${this.config.perRouterMax} routers`,
      [],
      (g, s) => g.set(s.perRouter === 'suppressed' ? 1 : 0),
    );
    gauge('wrtfleet_router_online', 'Whether the router is connected (per router, opt-in)', ['router'], (g, s) =>
      each(s, (r) => g.set({ router: r.name }, r.online ? 1 : 0)),
    );
    for (const [name, index, what] of [
      ['wrtfleet_router_packets_seen_total', 0, 'seen'],
      ['wrtfleet_router_packets_rewritten_total', 1, 'rewritten'],
    ] as const)
      counter(
        name,
        `Packets the router's datapath ${what}, as its agent counts them (per router, opt-in)`,
        ['router', 'program'],
        (c, s) => each(s, (r) => r.programs.forEach((v, program) => c.inc({ router: r.name, program }, v[index]))),
      );
    gauge(
      'wrtfleet_router_offloaded_flows',
      'Offloaded flows as last reported (per router, opt-in)',
      ['router', 'offload'],
      (g, s) =>
        each(s, (r) => {
          g.set({ router: r.name, offload: 'software' }, r.flowsSoftware);
          g.set({ router: r.name, offload: 'hardware' }, r.flowsHardware);
        }),
    );
    gauge(
      'wrtfleet_router_agent_rss_bytes',
      "The agent's resident memory as last reported (per router, opt-in)",
      ['router'],
      (g, s) => each(s, (r) => g.set({ router: r.name }, r.rssBytes)),
    );
  }

  private snapshot(): Promise<FleetSnapshot> {
    const now = Date.now();
    if (this.cached && now - this.cached.at < this.config.cacheSeconds * 1000) return this.cached.snapshot;
    const snapshot = this.read();
    this.cached = { at: now, snapshot };
    snapshot.catch((err: unknown) => {
      this.log.warn({ err }, 'could not read the fleet for /metrics');
      if (this.cached?.snapshot === snapshot) this.cached = undefined;
    });
    return snapshot;
  }

  private async read(): Promise<FleetSnapshot> {
    const db = this.db;
    const active = { decommissionedAt: null };
    const [totals, flows, status, decommissioned, socs, releases, revisions, outcomes, commandOutcomes, drift, alerts] =
      await Promise.all([
        db.fleetTelemetryTotal.findMany(),
        db.$queryRaw<{ software: number; hardware: number }[]>`
        SELECT COALESCE(sum((b.latest->>'offloadedFlowsSoftware')::float8), 0) AS software,
               COALESCE(sum((b.latest->>'offloadedFlowsHardware')::float8), 0) AS hardware
          FROM "Router" r JOIN "TelemetryBaseline" b ON b."routerKey" = r."seriesKey"
         WHERE r.status = 'online' AND r."decommissionedAt" IS NULL`,
        db.router.groupBy({ by: ['status'], where: active, _count: { _all: true } }),
        db.router.count({ where: { decommissionedAt: { not: null } } }),
        db.router.groupBy({ by: ['soc'], where: active, _count: { _all: true } }),
        db.router.groupBy({ by: ['openwrtRelease'], where: active, _count: { _all: true } }),
        db.router.groupBy({ by: ['appliedRevisionId'], where: active, _count: { _all: true } }),
        db.rolloutTarget.groupBy({
          by: ['state'],
          where: { state: { in: [...TARGET_OUTCOMES] } },
          _count: { _all: true },
        }),
        db.$queryRaw<{ kind: string; state: string; count: number }[]>`
        SELECT j.kind::text AS kind, t.state::text AS state, count(*)::int AS count
          FROM "CommandTarget" t JOIN "Command" j ON j.id = t."commandId"
         WHERE t.state::text <> 'offline' OR j.state::text <> 'running'
         GROUP BY 1, 2`,
        db.router.groupBy({ by: ['drifted'], where: active, _count: { _all: true } }),
        unresolvedAlertCounts(db),
      ]);
    const revisionNames = new Map(
      (
        await db.profileRevision.findMany({
          where: { id: { in: revisions.flatMap((r) => (r.appliedRevisionId ? [r.appliedRevisionId] : [])) } },
          select: { id: true, number: true, profile: { select: { name: true } } },
        })
      ).map((r) => [r.id, `${r.profile.name}@${r.number}`]),
    );
    return {
      totals: totals.flatMap((t) =>
        PROGRAM_NAMES.map((program, slot) => ({
          mode: modeName(t.mode),
          program,
          seen: Number((t as Record<string, unknown>)[COUNTER_COLUMNS[slot * 2]!]),
          rewritten: Number((t as Record<string, unknown>)[COUNTER_COLUMNS[slot * 2 + 1]!]),
        })),
      ),
      offloadedFlows: { software: Number(flows[0]?.software ?? 0), hardware: Number(flows[0]?.hardware ?? 0) },
      byStatus: [
        ...CONNECTION_STATUSES.map((value) => ({
          value,
          count: status.find((s) => s.status === value)?._count._all ?? 0,
        })),
        { value: 'decommissioned', count: decommissioned },
      ],
      bySoc: topValues(socs.map((r) => ({ value: label(r.soc), count: r._count._all }))),
      byRelease: topValues(releases.map((r) => ({ value: label(r.openwrtRelease), count: r._count._all }))),
      byRevision: topValues(
        revisions.map((r) => ({
          value: r.appliedRevisionId ? (revisionNames.get(r.appliedRevisionId) ?? 'unknown') : 'none',
          count: r._count._all,
        })),
      ),
      rolloutOutcomes: TARGET_OUTCOMES.map((value) => ({
        value,
        count: outcomes.find((o) => o.state === value)?._count._all ?? 0,
      })),
      byDrift: [
        { value: 'drifted', count: drift.find((d) => d.drifted === true)?._count._all ?? 0 },
        { value: 'clean', count: drift.find((d) => d.drifted === false)?._count._all ?? 0 },
        { value: 'unreported', count: drift.find((d) => d.drifted === null)?._count._all ?? 0 },
      ],
      // Every status and severity, zero included, so an alert rule over them never misses a series.
      alerts: ['firing', 'acknowledged', 'silenced'].flatMap((st) =>
        ['info', 'warning', 'critical'].map((severity) => ({
          status: st,
          severity,
          count: alerts.find((a) => a.status === st && a.severity === severity)?.count ?? 0,
        })),
      ),
      // Every kind and outcome, zero included, so a rate() over them never starts from a missing series.
      commandOutcomes: COMMAND_KINDS.flatMap((kind) =>
        COMMAND_OUTCOMES.map((outcome) => ({
          kind,
          outcome,
          count: commandOutcomes.find((c) => c.kind === kind && c.state === outcome)?.count ?? 0,
        })),
      ),
      perRouter: this.config.perRouter ? await this.perRouter() : null,
    };
  }

  private async perRouter(): Promise<RouterSeries[] | 'suppressed'> {
    const where = { decommissionedAt: null };
    if ((await this.db.router.count({ where })) > this.config.perRouterMax) return 'suppressed';
    const rows = await this.db.router.findMany({
      where,
      select: { name: true, status: true, seriesKey: true },
      orderBy: { name: 'asc' },
      take: this.config.perRouterMax,
    });
    const latest = new Map(
      (
        await this.db.telemetryBaseline.findMany({
          where: { routerKey: { in: rows.map((r) => r.seriesKey) } },
          select: { routerKey: true, latest: true },
        })
      ).map((b) => [b.routerKey, b.latest as Telemetry]),
    );
    return rows.map((r) => {
      const t = latest.get(r.seriesKey) ?? {};
      const programs = new Map<string, [number, number]>();
      for (const p of t.programs ?? []) {
        const program = programOfKey(p.program ?? '');
        if (!program) continue;
        const sum = programs.get(program) ?? [0, 0];
        programs.set(program, [sum[0] + Number(p.packetsSeen ?? 0), sum[1] + Number(p.packetsRewritten ?? 0)]);
      }
      return {
        name: r.name.slice(0, 128),
        online: r.status === 'online',
        programs,
        flowsSoftware: Number(t.offloadedFlowsSoftware ?? 0),
        flowsHardware: Number(t.offloadedFlowsHardware ?? 0),
        rssBytes: Number(t.agentRssBytes ?? 0),
      };
    });
  }
}
