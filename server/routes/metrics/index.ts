import type { FastifyPluginAsync } from 'fastify';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { PrismaClient } from '../../../prisma/generated/client/client.js';
import type { AgentGateway } from '../../agent-gateway/agent-gateway.js';
import type { TaskQueue } from '../../cluster/task-queue.js';
import type { Logger } from 'pino';
import { DEFAULT_METRICS, type MetricsConfig } from '../../config.js';
import { FleetMetrics } from './fleet-metrics.js';

/**
 * Prometheus metrics of one replica. Gauges are read at scrape time (connected agents are
 * this replica's streams; rollout progress and queue depth are shared state); the fleet's
 * telemetry, routers and outcomes come from FleetMetrics.
 */
export class ControllerMetrics {
  readonly registry = new Registry();
  readonly applyDuration = new Histogram({
    name: 'wrtfleet_apply_duration_seconds',
    help: 'Time agents report from receiving a desired state to the apply result',
    labelNames: ['status'],
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 1.5, 2.5, 5, 10, 30, 60],
    registers: [this.registry],
  });
  readonly applyResults = new Counter({
    name: 'wrtfleet_apply_results_total',
    help: 'Apply results reported by agents',
    labelNames: ['status'],
    registers: [this.registry],
  });

  constructor(
    db: PrismaClient,
    gateway: AgentGateway,
    tasks: TaskQueue,
    log: Logger,
    config: Partial<MetricsConfig> = {},
  ) {
    new FleetMetrics(db, this.registry, { ...DEFAULT_METRICS, ...config }, log);
    new Gauge({
      name: 'wrtfleet_connected_agents',
      help: 'Agent streams connected to this replica',
      registers: [this.registry],
      collect() {
        this.set(gateway.sessions.size);
      },
    });
    new Counter({
      name: 'wrtfleet_agent_streams_closed_total',
      help: 'Agent streams this replica closed, by gRPC status (RESOURCE_EXHAUSTED: told to come back later by admission control)',
      labelNames: ['code'],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const [code, n] of gateway.closedStreams) this.inc({ code }, n);
      },
    });
    new Counter({
      name: 'wrtfleet_firmware_bytes_served_total',
      help: 'Bytes of firmware images this replica sent to routers (DownloadFirmware)',
      registers: [this.registry],
      collect() {
        this.reset();
        this.inc(gateway.firmwareBytesServed);
      },
    });
    new Gauge({
      name: 'wrtfleet_agent_hellos_in_progress',
      help: 'Agent Hellos being admitted right now (certificate check, router refresh)',
      registers: [this.registry],
      collect() {
        this.set(gateway.admission.inProgress);
      },
    });
    new Counter({
      name: 'wrtfleet_agent_connections_refused_total',
      help: 'Agent connections reset before TLS because too many were waiting for a handshake slot (admission control)',
      registers: [this.registry],
      collect() {
        this.reset();
        this.inc(gateway.connectionCounts.refused);
      },
    });
    new Counter({
      name: 'wrtfleet_agent_handshakes_timed_out_total',
      help: 'Agent connections that held a handshake slot for the whole handshake timeout without a call or a close (admission control)',
      registers: [this.registry],
      collect() {
        this.reset();
        this.inc(gateway.connectionCounts.handshakesTimedOut);
      },
    });
    new Gauge({
      name: 'wrtfleet_agent_connections_waiting',
      help: 'Agent connections accepted and waiting for a TLS handshake slot (admission control)',
      registers: [this.registry],
      collect() {
        this.set(gateway.connectionCounts.waiting);
      },
    });
    new Gauge({
      name: 'wrtfleet_rollout_targets',
      help: 'Routers of rollouts not ended (running, soaking, awaiting approval, paused), by per-router state',
      labelNames: ['state'],
      registers: [this.registry],
      async collect() {
        const groups = await db.rolloutTarget.groupBy({
          by: ['state'],
          where: { rollout: { state: { in: ['running', 'soaking', 'awaiting_approval', 'paused'] } } },
          _count: { _all: true },
        });
        this.reset();
        for (const g of groups) this.set({ state: g.state }, g._count._all);
      },
    });
    new Gauge({
      name: 'wrtfleet_rollouts',
      help: 'Rollouts by state',
      labelNames: ['state'],
      registers: [this.registry],
      async collect() {
        const groups = await db.rollout.groupBy({ by: ['state'], _count: { _all: true } });
        this.reset();
        for (const g of groups) this.set({ state: g.state }, g._count._all);
      },
    });
    new Gauge({
      name: 'wrtfleet_job_queue_depth',
      help: `Tasks waiting (${tasks.kind})`,
      registers: [this.registry],
      async collect() {
        this.set(await tasks.depth());
      },
    });
  }

  observeApply(status: string, seconds: number | null): void {
    this.applyResults.inc({ status });
    if (seconds !== null && seconds >= 0) this.applyDuration.observe({ status }, seconds);
  }
}

export const metricsPlugin: FastifyPluginAsync<{ metrics: ControllerMetrics }> = async (app, { metrics }) => {
  app.get(
    '/metrics',
    { schema: { tags: ['health'], summary: 'Prometheus metrics (needs a read token)' } },
    async (_request, reply) => {
      reply.header('content-type', metrics.registry.contentType);
      return metrics.registry.metrics();
    },
  );
};
