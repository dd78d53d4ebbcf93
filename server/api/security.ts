import type { FastifyPluginAsync } from 'fastify';
import type { PrismaClient } from '../../prisma/generated/client/client.js';
import type { AuditLog } from '../audit/audit-log.js';
import type { ApiTokens } from '../auth/api-tokens.js';
import type { EnrollmentTokens } from '../auth/enrollment-tokens.js';
import type { AgentAuthority } from '../pki/agent-authority.js';
import type { Reenrollment } from '../pki/re-enrollment.js';
import type { RouterCredentials } from '../secrets/router-credentials.js';
import { credentialsPlugin } from './credentials.js';
import { enrollmentPlugin } from './enrollment.js';
import { tokensPlugin } from './tokens.js';

export interface SecurityRoutesOptions {
  tokens: ApiTokens;
  enrollmentTokens: EnrollmentTokens;
  reenrollment: Reenrollment;
  authority: AgentAuthority;
  credentials: RouterCredentials;
  audit: AuditLog;
  db: PrismaClient;
  grpcAddress: () => string;
}

/** The security route groups: API tokens, enrollment and certificates, router credentials. */
export const securityRoutesPlugin: FastifyPluginAsync<SecurityRoutesOptions> = async (app, o) => {
  await app.register(tokensPlugin, { tokens: o.tokens });
  await app.register(enrollmentPlugin, {
    enrollmentTokens: o.enrollmentTokens,
    reenrollment: o.reenrollment,
    authority: o.authority,
    audit: o.audit,
    db: o.db,
    grpcAddress: o.grpcAddress,
  });
  await app.register(credentialsPlugin, { credentials: o.credentials, audit: o.audit, db: o.db });
};
