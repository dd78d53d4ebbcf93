// The one import point for persistence: server code imports the client, model types and
// enums from here rather than from the generated folder.
export { openDatabase, DEFAULT_PGLITE_DIR } from './database.js';
export type { Database, OpenDatabaseOptions, StorageLogger } from './database.js';
export { isDatabaseUnavailable, retryWhileDatabaseAway } from './database-unavailable.js';
export { StorageError } from './storage-error.js';
export { parseDatabaseUrl } from './database-url.js';
export { applyMigrations, diffDatabaseToSchema } from '../../prisma/tools/migrations.js';
export type { MigrationTarget } from '../../prisma/tools/migrations.js';
export { APPEND_ONLY_TRIGGERS, withTriggerDisabled } from './append-only.js';
export {
  PrismaClient,
  Prisma,
  ConnectionStatus,
  Placement,
  ApplyStatus,
} from '../../prisma/generated/client/client.js';
export type {
  Router,
  Profile,
  ProfileRevision,
  Assignment,
  ApplyResult,
  AuditEvent,
} from '../../prisma/generated/client/client.js';
