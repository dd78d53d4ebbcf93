import { Type } from '@fastify/type-provider-typebox';
import { Nullable, Timestamp } from '../../../http/shared-schemas.js';

/** An enrollment token as the API shows it, and the secret shown once beside a new one (enrollment and re-enroll). */
export const EnrollmentTokenView = Type.Object({
  id: Type.String(),
  routerName: Nullable(Type.String()),
  routerId: Nullable(Type.String({ description: 'Set on an admin re-enroll token: the router it may re-key' })),
  tags: Type.Array(Type.String()),
  state: Type.Union([Type.Literal('active'), Type.Literal('used'), Type.Literal('revoked'), Type.Literal('expired')]),
  expiresAt: Timestamp,
  usedAt: Nullable(Timestamp),
  usedByRouterId: Nullable(Type.String()),
  revokedAt: Nullable(Timestamp),
  createdBy: Type.String(),
  createdAt: Timestamp,
});

export const MintedSecret = Type.Object({
  token: Type.String({ description: 'The secret: shown only here' }),
  caFingerprint: Nullable(Type.String({ description: 'SHA-256 of the controller CA certificate; the agent pins it' })),
  grpcAddress: Type.String(),
});
