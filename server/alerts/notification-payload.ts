import { Type, type Static } from '@sinclair/typebox';

/** Alerts named one by one in a notification; the counts always cover all of them. */
export const MAX_LISTED_ALERTS = 50;

const AlertLine = Type.Object({
  id: Type.String(),
  subject: Type.Object({
    kind: Type.String({ description: 'router | rollout | replica | audit' }),
    id: Type.String(),
    name: Type.String(),
  }),
  summary: Type.String(),
  since: Type.String({ format: 'date-time' }),
  firedAt: Type.String({ format: 'date-time' }),
  resolvedAt: Type.Optional(Type.String({ format: 'date-time' })),
});

/**
 * The message one notification carries, as webhooks receive it (JSON body): a group's alerts
 * that fired and resolved since its previous notification, and how many still fire. Slack and
 * e-mail channels render the same object as text.
 */
export const NotificationPayloadSchema = Type.Object({
  /** The notification's id: the same on every retry, so a receiver can drop a repeat. */
  id: Type.String(),
  version: Type.Literal(1),
  /** firing while any alert of the group fires; resolved when the last one did. */
  status: Type.Union([Type.Literal('firing'), Type.Literal('resolved')]),
  /** One line: "300 routers offline: site:ams". */
  title: Type.String(),
  rule: Type.Object({
    name: Type.String(),
    kind: Type.String(),
    severity: Type.Union([Type.Literal('info'), Type.Literal('warning'), Type.Literal('critical')]),
  }),
  group: Type.Object({ key: Type.String(), sequence: Type.Integer() }),
  counts: Type.Object({
    firing: Type.Integer({ description: 'Alerts of the group firing now' }),
    new: Type.Integer({ description: 'Fired since the previous notification' }),
    resolved: Type.Integer({ description: 'Resolved since the previous notification' }),
  }),
  /** At most MAX_LISTED_ALERTS of each, oldest first. */
  new: Type.Array(AlertLine),
  resolved: Type.Array(AlertLine),
  createdAt: Type.String({ format: 'date-time' }),
  /** Set on a channel's test message only. */
  test: Type.Optional(Type.Boolean()),
});
export type NotificationPayload = Static<typeof NotificationPayloadSchema>;
export type AlertLine = Static<typeof AlertLine>;
