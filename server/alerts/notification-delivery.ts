import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { PrismaClient } from '../../prisma/generated/client/client.js';
import type { AlertsConfig } from './alerts-config.js';
import { attemptDelivery } from './channels/channel-attempt.js';
import type { AuditContext, ChannelStore, DeliveryTarget } from './channels/channel-store.js';
import type { AttemptResult } from './channels/delivery-attempt.js';
import type { NotificationPayload } from './notification-payload.js';

/** Notifications claimed by one statement; a replica takes at most this many at a time. */
const CLAIM_BATCH = 20;
/** Sends in flight at once per replica: a slow receiver holds one slot, not the batch. */
const CONCURRENCY = 4;
/** A claim outlives its attempt by this much, so it is never let go while the attempt still runs. */
const CLAIM_MARGIN_MS = 5_000;

interface ClaimedNotification {
  id: string;
  channelId: string;
  payload: NotificationPayload;
  attempts: number;
}

export interface TestResult {
  notificationId: string;
  outcome: AttemptResult['outcome'];
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

export class ChannelNotFound extends Error {}

/** The wait before the next attempt: doubling from retryBaseMs up to retryMaxMs, ±20% so retries spread. */
export function retryDelayMs(config: Pick<AlertsConfig, 'retryBaseMs' | 'retryMaxMs'>, attempts: number): number {
  const base = Math.min(config.retryMaxMs, config.retryBaseMs * 2 ** Math.max(0, attempts - 1));
  return Math.round(base * (0.8 + Math.random() * 0.4));
}

/**
 * Sends the notifications the evaluator queues (AlertNotification rows), on every replica. A
 * row is claimed by one UPDATE ... FOR UPDATE SKIP LOCKED, so replicas never send it twice; the
 * claim expires, so a replica that died mid-send lets it go. Each attempt is logged
 * (AlertDelivery) and a failed one retried with backoff until maxAttempts.
 */
export class NotificationDelivery {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private started = false;
  private again = false;

  constructor(
    private readonly db: PrismaClient,
    private readonly store: ChannelStore,
    private readonly log: Logger,
    private readonly config: AlertsConfig,
  ) {}

  start(): void {
    if (this.started) return;
    this.started = true;
    this.schedule(this.config.deliverEveryMs);
  }

  /** Looks for due notifications soon (the evaluator just queued some), without waiting for the period. */
  nudge(): void {
    if (!this.started) return;
    if (this.running) this.again = true;
    else this.schedule(0);
  }

  /** Stops the timer and waits for a run in flight; its claims are finished, not abandoned. */
  async stop(): Promise<void> {
    this.started = false;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  private schedule(ms: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.tick(), ms);
    this.timer.unref();
  }

  private tick(): void {
    this.timer = undefined;
    this.again = false;
    this.running = (async () => {
      try {
        // A full batch means more may be due: take the next at once.
        while ((await this.deliverDue()) === CLAIM_BATCH && this.started);
      } catch (err) {
        this.log.error({ err }, 'delivering notifications failed');
      }
    })().finally(() => {
      this.running = undefined;
      if (this.started) this.schedule(this.again ? 0 : this.config.deliverEveryMs);
    });
  }

  /** Claims the due notifications (at most CLAIM_BATCH), sends them, records each attempt; returns how many. */
  async deliverDue(): Promise<number> {
    const holdMs = this.config.attemptTimeoutMs + CLAIM_MARGIN_MS;
    const claimed = await this.db.$queryRaw<ClaimedNotification[]>`
      UPDATE "AlertNotification" AS n
         SET "claimedUntil" = now() + ${holdMs}::integer * interval '1 millisecond',
             "attempts" = n."attempts" + 1
       WHERE n.id IN (
         SELECT id FROM "AlertNotification"
          WHERE state = 'pending' AND "nextAttemptAt" <= now()
            AND ("claimedUntil" IS NULL OR "claimedUntil" < now())
          ORDER BY "nextAttemptAt"
          LIMIT ${CLAIM_BATCH}
          FOR UPDATE SKIP LOCKED)
      RETURNING n.id, n."channelId", n.payload, n.attempts`;
    if (claimed.length === 0) return 0;
    const targets = await this.store.targets([...new Set(claimed.map((c) => c.channelId))]);
    let next = 0;
    const worker = async () => {
      while (next < claimed.length) {
        const notification = claimed[next++]!;
        await this.deliverOne(notification, targets.get(notification.channelId)).catch((err: unknown) =>
          this.log.error({ err, notificationId: notification.id }, 'recording a delivery attempt failed'),
        );
      }
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, claimed.length) }, worker));
    return claimed.length;
  }

  private async deliverOne(notification: ClaimedNotification, target: DeliveryTarget | undefined): Promise<void> {
    const at = new Date();
    const result = target
      ? await attemptDelivery(target, notification.payload, this.config.attemptTimeoutMs)
      : { outcome: 'failed' as const, error: 'the channel no longer exists', durationMs: 0 };
    const attempt = notification.attempts;
    const givenUp = result.outcome === 'retry' && attempt >= this.config.maxAttempts;
    const outcome = givenUp ? 'failed' : result.outcome;
    const error = givenUp ? `${result.error ?? 'not delivered'} (given up after ${attempt} attempts)` : result.error;
    const now = new Date();
    const state =
      outcome === 'delivered'
        ? { state: 'delivered' as const, deliveredAt: now }
        : outcome === 'failed'
          ? { state: 'failed' as const }
          : { state: 'pending' as const, nextAttemptAt: new Date(now.getTime() + retryDelayMs(this.config, attempt)) };
    await this.db.$transaction(async (tx) => {
      await tx.alertDelivery.create({
        data: {
          notificationId: notification.id,
          attempt,
          at,
          outcome,
          statusCode: result.statusCode ?? null,
          error: error ?? null,
          durationMs: result.durationMs,
        },
      });
      // Only while this attempt still holds it: a claim that expired may have been taken again.
      await tx.alertNotification.updateMany({
        where: { id: notification.id, attempts: attempt, state: 'pending' },
        data: { ...state, claimedUntil: null },
      });
    });
    const fields = {
      notificationId: notification.id,
      channel: target?.name,
      attempt,
      outcome,
      statusCode: result.statusCode,
    };
    if (outcome === 'delivered') this.log.debug(fields, 'notification delivered');
    else
      this.log.warn(
        { ...fields, reason: error },
        outcome === 'retry' ? 'notification delivery will be retried' : 'notification not delivered',
      );
  }

  /**
   * Sends a test message to a channel now, through the channel's own sender, and records it as a
   * notification with its one attempt, so the delivery log shows it. Never retried.
   */
  async test(name: string, ctx: AuditContext): Promise<TestResult> {
    const target = await this.store.targetByName(name);
    if (!target) throw new ChannelNotFound(`no channel ${name}`);
    const id = randomUUID();
    const now = new Date();
    const payload: NotificationPayload = {
      id,
      version: 1,
      status: 'firing',
      title: 'Test notification from wrtfleet',
      rule: { name: 'test', kind: 'test', severity: 'info' },
      group: { key: `test:${name}`, sequence: 0 },
      counts: { firing: 0, new: 0, resolved: 0 },
      new: [],
      resolved: [],
      createdAt: now.toISOString(),
      test: true,
    };
    const result = await attemptDelivery(target, payload, this.config.attemptTimeoutMs);
    await this.store.recordTest(target, payload, result, ctx);
    return {
      notificationId: id,
      outcome: result.outcome,
      statusCode: result.statusCode ?? null,
      error: result.error ?? null,
      durationMs: result.durationMs,
    };
  }
}
