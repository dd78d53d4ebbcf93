import type { Logger } from 'pino';
import type { PrismaClient } from '../../prisma/generated/client/client.js';

/** A dependency this replica needs, and how to ask whether it answers. */
export interface Dependency {
  name: 'PostgreSQL' | 'Redis';
  probe(): Promise<unknown>;
}

const PROBE_TIMEOUT_MS = 3_000;

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    work.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(err instanceof Error ? err : new Error(String(err)));
      },
    );
  });
}

/**
 * Whether this replica reaches PostgreSQL and Redis: not a condition over shared state (another
 * replica may reach both), so each replica watches its own and owns its dependency_unreachable
 * alerts, one per dependency ("<replica>:<dependency>"). Redis away: the alert is written at
 * once when it has been away for the rule's `for`. PostgreSQL away: nothing can be written
 * meanwhile, so the outage is recorded when it answers again (fired at the outage's start plus
 * `for`, resolved at its end) and its group tells the channels that it happened; `onDatabaseLost`
 * lets the delivery side warn through what it has cached.
 */
export class ReplicaHealth {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private readonly awaySince = new Map<string, { at: Date; reason: string }>();
  /** PostgreSQL outages seen while it was away, written when it returns. */
  private readonly pending: { dependency: string; since: Date; until: Date; reason: string }[] = [];

  constructor(
    private readonly db: PrismaClient,
    private readonly replica: string,
    private readonly dependencies: Dependency[],
    private readonly log: Logger,
    private readonly everyMs: number,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.tick(), this.everyMs);
    this.timer.unref();
    void this.tick();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  private async tick(): Promise<void> {
    if (this.running) return;
    this.running = this.check()
      .catch((err: unknown) => this.log.warn({ err }, 'dependency check failed'))
      .finally(() => (this.running = undefined));
    await this.running;
  }

  /** One round of probes and the alert writes they call for. */
  async check(): Promise<void> {
    const now = new Date();
    for (const dep of this.dependencies) {
      const answer = await withTimeout(dep.probe(), PROBE_TIMEOUT_MS).then(
        () => null,
        (err: unknown) => (err instanceof Error ? err.message : String(err)),
      );
      const away = this.awaySince.get(dep.name);
      if (answer !== null && !away) this.awaySince.set(dep.name, { at: now, reason: answer });
      if (answer === null && away) {
        this.awaySince.delete(dep.name);
        if (dep.name === 'PostgreSQL')
          this.pending.push({ dependency: dep.name, since: away.at, until: now, reason: away.reason });
      }
    }
    if (this.awaySince.has('PostgreSQL')) return;
    const rule = await this.db.alertRule.findFirst({ where: { kind: 'dependency_unreachable' } });
    if (!rule) return void (this.pending.length = 0);
    const forMs = rule.forSeconds * 1000;
    for (const outage of this.pending.splice(0)) {
      if (!rule.enabled || outage.until.getTime() - outage.since.getTime() < forMs) continue;
      await this.record(rule.id, rule.severity, outage.dependency, outage.since, outage.reason, outage.until);
    }
    for (const dep of this.dependencies) {
      const away = this.awaySince.get(dep.name);
      const subjectId = `${this.replica}:${dep.name}`;
      if (dep.name !== 'PostgreSQL' && away && rule.enabled && now.getTime() - away.at.getTime() >= forMs)
        await this.record(rule.id, rule.severity, dep.name, away.at, away.reason);
      else if (!away || !rule.enabled)
        await this.db.alert.updateMany({
          where: {
            ruleId: rule.id,
            subjectKind: 'replica',
            subjectId,
            state: 'firing',
            // A PostgreSQL outage is recorded after it ended: it resolves once its group told it.
            ...(dep.name === 'PostgreSQL' && rule.enabled ? { notifiedState: 'firing' } : {}),
          },
          data: { state: 'resolved', resolvedAt: now, openKey: null },
        });
    }
  }

  private async record(
    ruleId: string,
    severity: 'info' | 'warning' | 'critical',
    dependency: string,
    since: Date,
    reason: string,
    until?: Date,
  ): Promise<void> {
    const subjectId = `${this.replica}:${dependency}`;
    const summary = `replica ${this.replica} cannot reach ${dependency} since ${since.toISOString()}: ${reason}`;
    const firedAt = until ? new Date(Math.min(until.getTime(), Date.now())) : new Date();
    const created = await this.db.alert.createMany({
      data: {
        ruleId,
        subjectKind: 'replica',
        subjectId,
        subjectName: subjectId,
        severity,
        summary: until ? `${summary} (until ${until.toISOString()})` : summary,
        groupKey: `replica:${subjectId}`,
        since,
        firedAt,
        openKey: `${ruleId}/replica/${subjectId}`,
      },
      skipDuplicates: true,
    });
    if (created.count) this.log.warn({ dependency, since, until }, 'dependency unreachable: alert recorded');
  }
}
