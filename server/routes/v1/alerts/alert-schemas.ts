import { Type } from '@fastify/type-provider-typebox';
import { AlertKindSchema, AlertSeveritySchema } from '../../../alerts/alert-rules.js';
import { ALERT_STATUSES } from '../../../alerts/alert-store.js';
import { Nullable, StringEnum, Timestamp } from '../../../http/shared-schemas.js';

export const AlertStatusSchema = StringEnum(ALERT_STATUSES, {
  title: 'AlertStatus',
  description:
    'firing; acknowledged (an operator is on it); silenced (a silence holds its notifications back); resolved (the condition cleared)',
});

export const AlertSchema = Type.Object({
  id: Type.String(),
  rule: Type.Object({ name: Type.String(), kind: AlertKindSchema }),
  severity: AlertSeveritySchema,
  status: AlertStatusSchema,
  subject: Type.Object({
    kind: Type.String({ description: 'router, rollout, audit or replica' }),
    id: Type.String(),
    name: Type.String(),
  }),
  summary: Type.String(),
  group: Type.String({ description: 'The notification group, e.g. site:ams' }),
  since: Timestamp,
  firedAt: Timestamp,
  resolvedAt: Nullable(Timestamp),
  acknowledged: Nullable(Type.Object({ at: Timestamp, by: Type.String(), note: Nullable(Type.String()) })),
  silence: Nullable(Type.Object({ id: Type.String(), endsAt: Timestamp })),
});

export const AlertSummarySchema = Type.Object({
  firing: Type.Integer({ description: 'Unresolved, neither acknowledged nor silenced' }),
  acknowledged: Type.Integer(),
  silenced: Type.Integer(),
  bySeverity: Type.Object(
    { info: Type.Integer(), warning: Type.Integer(), critical: Type.Integer() },
    { description: 'The firing ones by severity' },
  ),
});
