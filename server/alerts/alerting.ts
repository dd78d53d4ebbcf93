import type { Logger } from 'pino';
import type { PrismaClient } from '../../prisma/generated/client/client.js';
import type { AuditLog } from '../audit/audit-log.js';
import { verifyAuditChain } from '../audit/audit-verify.js';
import { hostname } from 'node:os';
import { redisProbe } from '../cluster/redis-probe.js';
import type { ControllerConfig } from '../config.js';
import type { Database } from '../storage/index.js';
import { DEFAULT_ALERTS, type AlertsConfig } from './alerts-config.js';
import type { SecretBox } from '../secrets/secret-box.js';
import { AlertEvaluator } from './alert-evaluator.js';
import { AlertRules } from './alert-rules.js';
import { AlertSilences } from './alert-silences.js';
import { AlertStore } from './alert-store.js';
import { ChannelStore } from './channels/channel-store.js';
import { NotificationDelivery } from './notification-delivery.js';
import { ReplicaHealth, type Dependency } from './replica-health.js';

/**
 * The alerting parts one controller holds: rules, alerts, silences and the evaluator that runs
 * them; the notification channels and the deliverer that sends what the evaluator queues.
 */
export class Alerting {
  readonly config: AlertsConfig;
  readonly rules: AlertRules;
  readonly alerts: AlertStore;
  readonly silences: AlertSilences;
  readonly evaluator: AlertEvaluator;
  readonly health: ReplicaHealth;
  readonly channels: ChannelStore;
  readonly notifications: NotificationDelivery;
  private resealing: Promise<void> | undefined;
  private closeProbes: () => Promise<void> = async () => undefined;

  /** A controller's alerting: this replica named, its PostgreSQL and (with REDIS_URL) Redis watched. */
  static async open(db: Database, audit: AuditLog, box: SecretBox, log: Logger, config: ControllerConfig) {
    const redis = config.redisUrl ? await redisProbe(config.redisUrl) : undefined;
    const alerting = new Alerting(db.prisma, audit, box, log, config.alerts, {
      name: config.replicaName ?? `${hostname()}:${config.httpPort || process.pid}`,
      dependencies: [
        { name: 'PostgreSQL', probe: () => db.queryRows('SELECT 1', []) },
        ...(redis ? [{ name: 'Redis' as const, probe: redis.probe }] : []),
      ],
    });
    if (redis) alerting.closeProbes = redis.close;
    return alerting;
  }

  /**
   * `box`: the data key, which seals channel secrets; `replica`: this process's name in dependency
   * alerts; `dependencies`: what it needs (PostgreSQL, Redis).
   */
  constructor(
    db: PrismaClient,
    audit: AuditLog,
    box: SecretBox,
    private readonly log: Logger,
    config: Partial<AlertsConfig> = {},
    replica: { name: string; dependencies: Dependency[] } = { name: 'controller', dependencies: [] },
  ) {
    this.config = { ...DEFAULT_ALERTS, ...config };
    this.rules = new AlertRules(db, audit);
    this.alerts = new AlertStore(db, audit);
    this.silences = new AlertSilences(db, audit);
    this.evaluator = new AlertEvaluator(db, log, this.config, async (client) => {
      const verdict = await verifyAuditChain(client);
      return verdict.ok
        ? { ok: true }
        : {
            ok: false,
            reason: verdict.firstBroken ? `event ${verdict.firstBroken.seq}: ${verdict.firstBroken.reason}` : 'broken',
          };
    });
    this.health = new ReplicaHealth(db, replica.name, replica.dependencies, log, this.config.evaluateEveryMs);
    this.channels = new ChannelStore(db, audit, box);
    this.notifications = new NotificationDelivery(db, this.channels, log, this.config);
    // What an evaluation queued is sent at once, not at the deliverer's next period.
    this.evaluator.onNotifications(() => this.notifications.nudge());
  }

  /** Background evaluation; not on a replica that runs no background work (WRTFLEET_RUN_TASKS=false). */
  start(): void {
    this.evaluator.start();
    this.notifications.start();
    this.resealing = this.channels.resealStale().then(
      ({ resealed, unreadable }) => {
        if (resealed.length)
          this.log.info({ channels: resealed }, 're-sealed channel secrets with the current data key');
        if (unreadable.length)
          this.log.error(
            { channels: unreadable },
            "cannot open these channels' secrets; set WRTFLEET_DATA_KEY_PREVIOUS to the key they were sealed with",
          );
      },
      (err: unknown) => this.log.warn({ err }, 're-sealing channel secrets failed'),
    );
  }

  /** Every replica watches its own dependencies, whether or not it runs background work. */
  watchDependencies(): void {
    this.health.start();
  }

  /** Waits for an evaluation and a delivery in flight; before the database closes. */
  async stop(): Promise<void> {
    await Promise.all([this.evaluator.stop(), this.health.stop(), this.notifications.stop(), this.resealing]);
    await this.closeProbes();
  }
}
