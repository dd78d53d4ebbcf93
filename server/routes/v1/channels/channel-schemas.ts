import { Type } from '@fastify/type-provider-typebox';
import { CHANNEL_NAME_PATTERN } from '../../../alerts/channels/channel-store.js';
import { Nullable, PageLimit, StringEnum, Timestamp } from '../../../http/shared-schemas.js';

export const ChannelName = Type.String({ pattern: CHANNEL_NAME_PATTERN, description: "The channel's name" });
export const NameParam = Type.Object({ name: ChannelName }, { additionalProperties: false });

const SEVERITIES = ['info', 'warning', 'critical'] as const;
const Severity = StringEnum(SEVERITIES);
const ChannelKind = StringEnum(['webhook', 'slack', 'email'] as const);
const SmtpTls = StringEnum(['implicit', 'starttls', 'none'] as const, {
  description:
    'implicit: TLS from the first byte (port 465); starttls: STARTTLS required (port 587, the default); none: no TLS, for a relay on this host (a password is then refused unless the host is a loopback address)',
});
const HttpUrl = (description: string) =>
  Type.String({ pattern: '^[Hh][Tt][Tt][Pp][Ss]?://', maxLength: 2048, description });
const EmailAddress = Type.String({ format: 'email', maxLength: 254 });

const WebhookSettings = Type.Object(
  { url: HttpUrl('Where the signed JSON is POSTed') },
  { additionalProperties: false, description: 'A webhook: the notification as JSON, signed with HMAC-SHA256' },
);
const SlackSettings = Type.Object(
  { url: HttpUrl('The incoming-webhook URL (Slack, Mattermost, Rocket.Chat): a secret, never shown again') },
  { additionalProperties: false, description: 'A Slack incoming webhook (or one that takes the same message)' },
);
const EmailSettingsInput = Type.Object(
  {
    host: Type.String({ minLength: 1, maxLength: 253, pattern: '^[A-Za-z0-9.:\\[\\]-]+$', description: 'SMTP server' }),
    port: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535, description: 'Default: 465, 587 or 25 by tls' })),
    tls: Type.Optional(SmtpTls),
    user: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
    password: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description: 'Sealed; never shown again' })),
    from: EmailAddress,
    to: Type.Array(EmailAddress, { minItems: 1, maxItems: 50, uniqueItems: true }),
  },
  { additionalProperties: false, description: 'E-mail through an SMTP server' },
);

export const CreateChannelBody = Type.Object(
  {
    name: ChannelName,
    minSeverity: Type.Optional(
      StringEnum(SEVERITIES, { description: 'Only alerts of this severity or above (default info)' }),
    ),
    rules: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 63 }), {
        maxItems: 100,
        uniqueItems: true,
        description: "Only these rules' alerts, by name (default: every rule)",
      }),
    ),
    webhook: Type.Optional(WebhookSettings),
    slack: Type.Optional(SlackSettings),
    email: Type.Optional(EmailSettingsInput),
  },
  {
    additionalProperties: false,
    description: 'A channel: give the settings of exactly one kind (webhook, slack, email)',
  },
);

export const ChannelView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  kind: ChannelKind,
  minSeverity: Severity,
  rules: Type.Array(Type.String()),
  webhook: Type.Optional(Type.Object({ url: Type.String() })),
  slack: Type.Optional(
    Type.Object({ url: Type.String({ description: 'Only the scheme and host: the URL is a secret' }) }),
  ),
  email: Type.Optional(
    Type.Object({
      host: Type.String(),
      port: Type.Integer(),
      tls: SmtpTls,
      user: Type.Optional(Type.String()),
      passwordSet: Type.Boolean(),
      from: Type.String(),
      to: Type.Array(Type.String()),
    }),
  ),
  createdBy: Type.String(),
  createdAt: Timestamp,
});

export const CreatedChannel = Type.Object({
  ...ChannelView.properties,
  secret: Type.Optional(
    Type.String({
      description: "A webhook's signing secret (whsec_...): shown in this answer only; receivers verify with it",
    }),
  ),
});

const Outcome = StringEnum(['delivered', 'retry', 'failed'] as const);

export const TestResultView = Type.Object({
  notificationId: Type.String(),
  outcome: Outcome,
  statusCode: Nullable(Type.Integer({ description: 'The HTTP status, or the SMTP reply code' })),
  error: Nullable(Type.String()),
  durationMs: Type.Integer(),
});

export const DeliveriesQuery = Type.Object({ limit: PageLimit(200, 50) }, { additionalProperties: false });

export const DeliveryLogView = Type.Object({
  items: Type.Array(
    Type.Object({
      notificationId: Type.String(),
      title: Type.String(),
      test: Type.Boolean(),
      state: StringEnum(['pending', 'delivered', 'failed'] as const),
      attempts: Type.Integer(),
      createdAt: Timestamp,
      deliveredAt: Nullable(Timestamp),
      nextAttemptAt: Nullable(Timestamp),
      deliveries: Type.Array(
        Type.Object({
          attempt: Type.Integer(),
          outcome: Outcome,
          statusCode: Nullable(Type.Integer()),
          error: Nullable(Type.String()),
          at: Timestamp,
          durationMs: Type.Integer(),
        }),
        { description: 'Each attempt, the first first' },
      ),
    }),
    { description: 'Notifications to the channel, newest first' },
  ),
});
