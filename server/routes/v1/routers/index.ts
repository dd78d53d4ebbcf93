import type { FastifyPluginAsync } from 'fastify';
import type { PrismaClient } from '../../../../prisma/generated/client/client.js';
import type { AuditLog } from '../../../audit/audit-log.js';
import type { SecurityServices } from '../../../auth/security.js';
import type { CommandService } from '../../../commands/command-service.js';
import type { PlanPreview } from '../../../fleet/plan-preview.js';
import type { RouterDirectory } from '../../../fleet/router-directory.js';
import type { TelemetryHistory } from '../../../telemetry/telemetry-history.js';
import { routerCommandsPlugin } from './commands.js';
import { credentialsPlugin } from './credential.js';
import { fleetTablePlugin } from './fleet-table.js';
import { routerHistoryPlugin } from './history.js';
import { routerIdentityPlugin } from './identity.js';
import { routersPlugin } from './router-resource.js';
import { routerTelemetryPlugin } from './telemetry.js';

export interface RouterRoutesOptions {
  db: PrismaClient;
  directory: RouterDirectory;
  previews: PlanPreview;
  audit: AuditLog;
  commands: CommandService;
  telemetry: TelemetryHistory;
  /** The longest an event stream may stay open (server/config.ts). */
  streamMaxSeconds: number;
  /** Certificates, re-enrollment and SSH credentials; absent, those routes are not served. */
  security?: SecurityServices;
}

/**
 * Everything under /v1/routers: the router resource (listing, one router, tags, assignment,
 * plan), the fleet table's counts, ids, bulk actions and change feed, a router's history,
 * telemetry and commands, and (with the security services) its identity and SSH credential.
 */
export const routerRoutes: FastifyPluginAsync<RouterRoutesOptions> = async (app, o) => {
  const { db, audit } = o;
  await app.register(routersPlugin, { directory: o.directory, previews: o.previews, db, audit });
  await app.register(fleetTablePlugin, { directory: o.directory, db, audit, streamMaxSeconds: o.streamMaxSeconds });
  await app.register(routerHistoryPlugin, { db });
  await app.register(routerTelemetryPlugin, { db, telemetry: o.telemetry });
  await app.register(routerCommandsPlugin, { commands: o.commands, db });
  if (o.security) {
    const { reenrollment, authority, grpcAddress, credentials } = o.security;
    await app.register(routerIdentityPlugin, { reenrollment, authority, db, grpcAddress });
    await app.register(credentialsPlugin, { credentials, audit, db });
  }
};
