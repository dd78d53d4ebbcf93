import { randomBytes, randomUUID } from 'node:crypto';
import { isIP } from 'node:net';
import type { AlertChannel, PrismaClient } from '../../../prisma/generated/client/client.js';
import type { AuditLog } from '../../audit/audit-log.js';
import type { SecretBox } from '../../secrets/secret-box.js';
import type { NotificationPayload } from '../notification-payload.js';
import type { AttemptResult, ChannelKind, ChannelTarget } from './delivery-attempt.js';
import type { EmailSettings, SmtpTls } from './email-sender.js';

export const CHANNEL_NAME_PATTERN = '^[a-z0-9][a-z0-9-]{0,62}$';
export type AlertSeverity = 'info' | 'warning' | 'critical';

export interface AuditContext {
  actor: string;
  requestId?: string;
}

/** What creating a channel takes: its name, its filters, and the settings of exactly one kind. */
export interface ChannelInput {
  name: string;
  minSeverity?: AlertSeverity;
  rules?: string[];
  webhook?: { url: string };
  slack?: { url: string };
  email?: {
    host: string;
    port?: number;
    tls?: SmtpTls;
    user?: string;
    password?: string;
    from: string;
    to: string[];
  };
}

/** A channel as the API shows it: never its secret. */
export interface ChannelView {
  id: string;
  name: string;
  kind: ChannelKind;
  minSeverity: AlertSeverity;
  rules: string[];
  webhook?: { url: string };
  /** Only the scheme and host: the whole URL is the credential. */
  slack?: { url: string };
  email?: Omit<EmailSettings, 'user'> & { user?: string; passwordSet: boolean };
  createdBy: string;
  createdAt: string;
}

/** Bad settings, naming the field (a JSON pointer into the request body). */
export class InvalidChannel extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
  }
}

export class ChannelNameTaken extends Error {}

/** A channel to send to, and whether it can be: removed since, or its secret unreadable. */
export type DeliveryTarget = ChannelTarget & { deleted: boolean; unusable?: string };

const DEFAULT_PORTS: Record<SmtpTls, number> = { implicit: 465, starttls: 587, none: 25 };
const KINDS: ChannelKind[] = ['webhook', 'slack', 'email'];

/** A webhook's signing key: shown once, at creation; receivers keep it (docs/ALERTS.md, Channels). */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

function httpUrl(value: string, path: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidChannel(path, 'must be an absolute http or https URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new InvalidChannel(path, 'must be an http or https URL');
  // The URL is shown to every reader; credentials belong in the signing secret, not in it.
  if (url.username || url.password) throw new InvalidChannel(path, 'must not carry a user name or password');
  return url;
}

function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '');
  return h === 'localhost' || (isIP(h) === 4 && h.startsWith('127.')) || h === '::1';
}

/** The kind, its non-secret settings and its secret, from a validated request body. */
function settingsOf(input: ChannelInput): { kind: ChannelKind; settings: object; secret: string | null } {
  const given = KINDS.filter((k) => input[k] !== undefined);
  if (given.length !== 1)
    throw new InvalidChannel('/', 'give the settings of exactly one kind: webhook, slack or email');
  const kind = given[0]!;
  if (input.webhook) {
    const url = httpUrl(input.webhook.url, '/webhook/url');
    return { kind, settings: { url: url.href }, secret: newWebhookSecret() };
  }
  if (input.slack) {
    const url = httpUrl(input.slack.url, '/slack/url');
    return { kind, settings: { origin: url.origin }, secret: url.href };
  }
  const e = input.email!;
  const tls = e.tls ?? 'starttls';
  if (e.password !== undefined && !e.user) throw new InvalidChannel('/email/user', 'is required with a password');
  // A password in clear text crosses only the machine itself.
  if (e.password !== undefined && tls === 'none' && !isLoopback(e.host))
    throw new InvalidChannel(
      '/email/password',
      'is sent in clear text with tls "none": allowed to a loopback host only',
    );
  const settings: EmailSettings = {
    host: e.host,
    port: e.port ?? DEFAULT_PORTS[tls],
    tls,
    ...(e.user ? { user: e.user } : {}),
    from: e.from,
    to: e.to,
  };
  return { kind, settings, secret: e.password ?? null };
}

export function channelView(row: AlertChannel): ChannelView {
  const s = row.settings as Record<string, unknown>;
  const base = {
    id: row.id,
    name: row.name,
    kind: row.kind,
    minSeverity: row.minSeverity,
    rules: row.rules,
    createdBy: row.createdBy,
    createdAt: row.createdAt.toISOString(),
  };
  if (row.kind === 'webhook') return { ...base, webhook: { url: String(s.url) } };
  if (row.kind === 'slack') return { ...base, slack: { url: `${String(s.origin)}/…` } };
  const { user, ...email } = s as unknown as EmailSettings;
  return { ...base, email: { ...email, ...(user ? { user } : {}), passwordSet: row.sealedSecret !== null } };
}

/** The associated data that binds a sealed secret to its channel's row. */
const secretContext = (id: string) => `alert-channel:${id}`;

/**
 * Notification channels: where alerts go. Each secret is sealed with the data key before it is
 * stored and opened only to send; creation, removal and tests are audited.
 */
export class ChannelStore {
  constructor(
    private readonly db: PrismaClient,
    private readonly audit: AuditLog,
    private readonly box: SecretBox,
  ) {}

  /** Creates a channel; a webhook's signing secret is returned here and never again. */
  async create(input: ChannelInput, ctx: AuditContext): Promise<{ channel: ChannelView; secret?: string }> {
    if (!new RegExp(CHANNEL_NAME_PATTERN).test(input.name))
      throw new InvalidChannel('/name', `must match ${CHANNEL_NAME_PATTERN}`);
    const { kind, settings, secret } = settingsOf(input);
    const id = randomUUID();
    try {
      const row = await this.audit.record(async (tx) => {
        const created = await tx.alertChannel.create({
          data: {
            id,
            name: input.name,
            kind,
            settings,
            sealedSecret: secret === null ? null : this.box.seal(secret, secretContext(id)),
            minSeverity: input.minSeverity ?? 'info',
            rules: input.rules ?? [],
            createdBy: ctx.actor,
          },
        });
        const { id: _id, createdAt: _at, ...view } = channelView(created);
        return {
          result: created,
          event: {
            actor: ctx.actor,
            action: 'alert_channel.created',
            targetType: 'alert_channel',
            targetId: id,
            after: view,
            requestId: ctx.requestId,
          },
        };
      });
      return { channel: channelView(row), ...(kind === 'webhook' ? { secret: secret! } : {}) };
    } catch (err) {
      if ((err as { code?: string }).code === 'P2002')
        throw new ChannelNameTaken(`a channel named ${input.name} exists`);
      throw err;
    }
  }

  async list(): Promise<ChannelView[]> {
    const rows = await this.db.alertChannel.findMany({ where: { deletedAt: null }, orderBy: { name: 'asc' } });
    return rows.map(channelView);
  }

  async get(name: string): Promise<ChannelView | null> {
    const row = await this.db.alertChannel.findFirst({ where: { name, deletedAt: null } });
    return row ? channelView(row) : null;
  }

  /**
   * Removes a channel, keeping its row for the delivery log. Its name is freed by renaming the
   * row to `<name>~deleted~<id>` (names are unique in the table); its pending notifications fail
   * when next due (NotificationDelivery).
   */
  async remove(name: string, ctx: AuditContext): Promise<boolean> {
    return this.audit.record(async (tx) => {
      const row = await tx.alertChannel.findFirst({ where: { name, deletedAt: null } });
      if (!row) return { result: false, event: null };
      const { count } = await tx.alertChannel.updateMany({
        where: { id: row.id, deletedAt: null },
        data: { deletedAt: new Date(), name: `${name}~deleted~${row.id}` },
      });
      if (count === 0) return { result: false, event: null };
      return {
        result: true,
        event: {
          actor: ctx.actor,
          action: 'alert_channel.removed',
          targetType: 'alert_channel',
          targetId: row.id,
          before: { name, kind: row.kind },
          requestId: ctx.requestId,
        },
      };
    });
  }

  /**
   * Records a test message as a notification with its one attempt (the delivery log shows it),
   * audited. A test is never retried: anything but delivered ends it failed.
   */
  async recordTest(
    target: DeliveryTarget,
    payload: NotificationPayload,
    result: AttemptResult & { durationMs: number },
    ctx: AuditContext,
  ): Promise<void> {
    const at = new Date(payload.createdAt);
    const state = result.outcome === 'delivered' ? 'delivered' : 'failed';
    await this.audit.record(async (tx) => {
      await tx.alertNotification.create({
        data: {
          id: payload.id,
          channelId: target.id,
          groupKey: payload.group.key,
          sequence: payload.group.sequence,
          payload,
          state,
          attempts: 1,
          nextAttemptAt: at,
          deliveredAt: state === 'delivered' ? new Date() : null,
          deliveries: {
            create: {
              attempt: 1,
              at,
              outcome: result.outcome,
              statusCode: result.statusCode ?? null,
              error: result.error ?? null,
              durationMs: result.durationMs,
            },
          },
        },
      });
      return {
        result: undefined,
        event: {
          actor: ctx.actor,
          action: 'alert_channel.tested',
          targetType: 'alert_channel',
          targetId: target.id,
          after: {
            name: target.name,
            outcome: result.outcome,
            statusCode: result.statusCode ?? null,
            error: result.error ?? null,
          },
          requestId: ctx.requestId,
        },
      };
    });
  }

  /**
   * Re-seals the secrets sealed with a previous data key (after a rotation, docs/SECURITY.md),
   * so dropping the old key later loses none. Returns the names re-sealed and those that could not be.
   */
  async resealStale(): Promise<{ resealed: string[]; unreadable: string[] }> {
    const rows = await this.db.alertChannel.findMany({
      where: { deletedAt: null, sealedSecret: { not: null } },
      select: { id: true, name: true, sealedSecret: true },
    });
    const done = { resealed: [] as string[], unreadable: [] as string[] };
    for (const row of rows) {
      if (!this.box.isStale(row.sealedSecret!)) continue;
      try {
        const plain = this.box.open(row.sealedSecret!, secretContext(row.id));
        await this.db.alertChannel.updateMany({
          where: { id: row.id, sealedSecret: row.sealedSecret },
          data: { sealedSecret: this.box.seal(plain, secretContext(row.id)) },
        });
        done.resealed.push(row.name);
      } catch {
        done.unreadable.push(row.name);
      }
    }
    return done;
  }

  /** The channels a batch of notifications goes to, secrets opened, deleted ones included (`deleted`). */
  async targets(ids: string[]): Promise<Map<string, DeliveryTarget>> {
    const rows = await this.db.alertChannel.findMany({ where: { id: { in: ids } } });
    return new Map(rows.map((row) => [row.id, this.target(row)]));
  }

  /** A live channel by name, with its secret opened, for a test message. */
  async targetByName(name: string): Promise<DeliveryTarget | null> {
    const row = await this.db.alertChannel.findFirst({ where: { name, deletedAt: null } });
    return row ? this.target(row) : null;
  }

  private target(row: AlertChannel): DeliveryTarget {
    let secret: string | null = null;
    let unusable: string | undefined;
    try {
      secret = row.sealedSecret === null ? null : this.box.open(row.sealedSecret, secretContext(row.id));
    } catch (err) {
      // A data key lost or rotated away: say so in the delivery log, not as a crash of the batch.
      unusable = (err as Error).message;
    }
    return {
      id: row.id,
      name: row.name,
      kind: row.kind,
      settings: row.settings as Record<string, unknown>,
      secret,
      deleted: row.deletedAt !== null,
      unusable,
    };
  }
}
