import { mkdir, readdir } from 'node:fs/promises';
import path from 'node:path';
import os from 'node:os';
import { PGlite } from '@electric-sql/pglite';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { PrismaClient } from '../../prisma/generated/client/client.js';
import { applyMigrations } from '../../prisma/tools/migrations.js';
import { copyPgliteTemplate } from '../../prisma/tools/pglite-template.js';
import { concurrencyGate } from '../../core/concurrency-gate.js';
import type { MigrationTarget } from '../../prisma/tools/migrations.js';
import { lockDataDir } from './data-dir-lock.js';
import { describeConnectError, parseDatabaseUrl } from './database-url.js';
import { restrictToOwner } from './owner-only.js';
import type { PostgresLocation } from './database-url.js';
import { DatabaseAvailability } from './database-availability.js';
import type { StorageLogger } from './storage-logger.js';
import { isDatabaseUnavailable } from './database-unavailable.js';
import { StorageError } from './storage-error.js';

// Part of the options' type, so importers of the database find it here too.
export type { StorageLogger };

export interface OpenDatabaseOptions {
  /** postgresql://… ; empty or absent selects embedded PGlite. */
  databaseUrl?: string;
  /** PGlite's data directory when there is no databaseUrl; default ./data/pglite. */
  dataDir?: string;
  logger?: StorageLogger;
  /** Max PostgreSQL connections for queries (default 10). */
  poolSize?: number;
  /** How long to wait for PostgreSQL to answer at start (default 3000 ms). */
  connectTimeoutMs?: number;
  /** Override for tests; default prisma/migrations. */
  migrationsDir?: string;
  /**
   * Start a new PGlite directory from the pre-built, migrated template when one exists
   * (prisma/tools/pglite-template.ts): the first start takes a fraction of initdb's time.
   */
  pgliteTemplate?: boolean;
}

export interface Database {
  prisma: PrismaClient;
  /**
   * Plain parameterised SQL ($1, $2, ...) on the same connections Prisma uses, for the few hot
   * reads where Prisma's per-row conversion costs more than the query (the router listing).
   * Everything that writes goes through `prisma`. With `statement`, PostgreSQL keeps the plan
   * per connection (a named prepared statement): planning a three-table page query costs more
   * than running it. The name must stand for exactly one SQL text.
   */
  queryRows<T>(sql: string, params: unknown[], statement?: string): Promise<T[]>;
  kind: 'postgresql' | 'pglite';
  /** Where the data lives, safe to print (no password). */
  location: string;
  close(): Promise<void>;
}

export const DEFAULT_PGLITE_DIR = './data/pglite';

const silentLogger: StorageLogger = { info() {}, warn() {}, debug() {} };

// Any constant works as long as every wrtfleet replica uses the same one; it only has to stay
// clear of the key Prisma's engine may take for itself (72707369).
const MIGRATION_LOCK_KEY = 0x77_72_74_66; // "wrtf"

/**
 * Opens the controller's database and brings its schema up to date: PostgreSQL when a URL is
 * given, otherwise embedded PGlite on disk. Every failure an operator can cause (bad URL,
 * server down, wrong password, data directory in use) is a StorageError with a one-sentence
 * message.
 */
export async function openDatabase(options: OpenDatabaseOptions = {}): Promise<Database> {
  const logger = options.logger ?? silentLogger;
  if (options.databaseUrl && options.databaseUrl.trim() !== '') {
    return openPostgres(parseDatabaseUrl(options.databaseUrl.trim()), options, logger);
  }
  return openPglite(path.resolve(options.dataDir ?? DEFAULT_PGLITE_DIR), options, logger);
}

async function migrate(target: MigrationTarget, where: string, options: OpenDatabaseOptions, logger: StorageLogger) {
  let applied: string[];
  try {
    applied = await applyMigrations(target, {
      migrationsDir: options.migrationsDir,
      log: (line) => logger.debug({ engine: line }, 'schema engine'),
    });
  } catch (error) {
    throw new StorageError(
      `Migrating the database at ${where} failed (${engineErrorSummary(error)}); the server did not start.`,
      'migration_failed',
      { cause: error },
    );
  }
  if (applied.length > 0) logger.info({ migrations: applied, where }, 'database migrated');
  else logger.debug({ where }, 'database schema up to date');
}

async function openPostgres(
  location: PostgresLocation,
  options: OpenDatabaseOptions,
  logger: StorageLogger,
): Promise<Database> {
  const timeoutMs = options.connectTimeoutMs ?? 3000;
  const connection = {
    connectionString: location.connectionString,
    connectionTimeoutMillis: timeoutMs,
  };

  // A plain connection first: the driver's error here is specific (refused, auth, no such
  // database), whereas the same failure inside the engine or the client is much vaguer.
  const lockClient = new pg.Client(connection);
  lockClient.on('error', () => {});
  try {
    await lockClient.connect();
  } catch (error) {
    await lockClient.end().catch(() => {});
    throw describeConnectError(location, error, timeoutMs);
  }

  // Replicas starting together would otherwise race to apply the same migration.
  const migrationPool = new pg.Pool({ ...connection, max: 2 });
  migrationPool.on('error', () => {});
  try {
    await lockClient.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    await migrate(migrationPool, location.where, options, logger);
  } finally {
    await lockClient.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => {});
    await lockClient.end().catch(() => {});
    await migrationPool.end().catch(() => {});
  }

  // One pool, shared by Prisma's adapter and queryRows, so the connection limit stays poolSize.
  let closing = false;
  const availability = new DatabaseAvailability(() => pool.query('SELECT 1'), logger, location.where);
  const pool = new pg.Pool({
    ...connection,
    max: options.poolSize ?? 10,
    Client: clientReportingConnectFailures((error) => {
      if (!closing && isDatabaseUnavailable(error)) availability.lost(error.message);
    }),
  });
  // Our listener, not the Prisma adapter's (onPoolError): the adapter attaches its own on first
  // use and removes it in $disconnect, before pool.end(), which does not wait for its connections
  // to finish closing. A server that terminates them meanwhile (DROP DATABASE WITH (FORCE), a
  // restart) then raised an 'error' nobody listened to: an uncaught exception (seen in CI).
  pool.on('error', (error) => {
    if (!closing) logger.debug({ err: error.message, where: location.where }, 'idle PostgreSQL connection failed');
  });
  // Every connection reports its own failure, idle or in use: the pool hears only its idle ones,
  // and mid-rollout every connection can be busy; the outage must still be reported, and its end.
  pool.on('connect', (client) => {
    client.on('error', (error) => {
      if (!closing) availability.lost(error.message);
    });
  });
  const pageQueries = concurrencyGate(pageQueryConcurrency());
  const adapter = new PrismaPg(pool);
  const prisma = new PrismaClient({ adapter });
  logger.info({ database: location.redacted }, 'using PostgreSQL');
  let closed: Promise<void> | undefined;
  return {
    prisma,
    queryRows: <T>(sql: string, params: unknown[], statement?: string) =>
      pageQueries(async () => (await pool.query({ text: sql, values: params, name: statement })).rows as T[]),
    kind: 'postgresql',
    location: location.redacted,
    close: () =>
      (closed ??= (async () => {
        closing = true;
        availability.close();
        try {
          await prisma.$disconnect();
        } finally {
          await pool.end();
        }
      })()),
  };
}

/**
 * A pool connection that passes a failed connect to `report` as well: with no connection open
 * (a quiet controller), a refused connect is the first and only sign that PostgreSQL went away,
 * and the pool itself says nothing of it.
 */
function clientReportingConnectFailures(report: (error: Error) => void): typeof pg.Client {
  return class extends pg.Client {
    override connect(): Promise<pg.Client>;
    override connect(callback: (err: Error) => void): void;
    override connect(callback?: (err: Error) => void): Promise<pg.Client> | void {
      if (!callback) return super.connect();
      super.connect((err: Error) => {
        if (err) report(err);
        callback(err);
      });
    }
  };
}

async function openPglite(dataDir: string, options: OpenDatabaseOptions, logger: StorageLogger): Promise<Database> {
  try {
    // Only directories created here get 0700; an existing parent is the operator's to set.
    await mkdir(path.dirname(dataDir), { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new StorageError(
      `Cannot create the data directory ${path.dirname(dataDir)} (${(error as NodeJS.ErrnoException).code ?? 'error'}); check its permissions or set WRTFLEET_DATA_DIR.`,
      'data_dir_unusable',
      { cause: error },
    );
  }
  const unlock = await lockDataDir(dataDir);
  let pglite: PGlite | undefined;
  let fromTemplate: boolean;
  try {
    try {
      const fresh = !(await readdir(dataDir)
        .then((entries) => entries.length > 0)
        .catch(() => false));
      fromTemplate =
        fresh && options.pgliteTemplate === true && (await copyPgliteTemplate(dataDir, options.migrationsDir));
      pglite = await PGlite.create(dataDir);
      await restrictToOwner(dataDir);
      if (fromTemplate) logger.info({ dataDir }, 'initialised the embedded database from the migrated template');
    } catch (error) {
      throw new StorageError(
        `Cannot open the embedded database in ${dataDir} (${firstLine(error)}); check the directory or move it aside.`,
        'data_dir_unusable',
        { cause: error },
      );
    }
    // The template was migrated to exactly these migrations when it was built (its name holds
    // their hash), so checking it again would only start the schema engine for nothing.
    if (!fromTemplate) await migrate(pglite, dataDir, options, logger);
    const adapter = new PrismaPGlite(pglite);
    const prisma = new PrismaClient({ adapter });
    logger.info({ dataDir }, 'using embedded PGlite');
    const db = pglite;
    let closed: Promise<void> | undefined;
    return {
      prisma,
      queryRows: async <T>(sql: string, params: unknown[]) => (await db.query<T>(sql, params)).rows,
      kind: 'pglite',
      location: dataDir,
      close: () =>
        (closed ??= (async () => {
          try {
            await prisma.$disconnect();
          } finally {
            // Closing PGlite checkpoints to disk; skipping it risks a slow recovery next start.
            await db.close();
            await unlock();
          }
        })()),
    };
  } catch (error) {
    await pglite?.close().catch(() => {});
    await unlock();
    throw error;
  }
}

/** The engine's errors are multi-line reports with a Rust backtrace; keep what names the cause. */
function engineErrorSummary(error: unknown): string {
  const text = String((error as Error)?.message ?? error);
  const migration = /migration_name="([^"]+)"/.exec(text)?.[1];
  const database = /Error querying the database: (.+)/.exec(text)?.[1];
  const detail = (database ?? text.split('\n').find((line) => line.trim() !== '') ?? 'unknown error')
    .trim()
    .replace(/\.$/, '');
  return migration ? `${migration}: ${detail}` : detail;
}

function firstLine(error: unknown): string {
  return (String((error as Error)?.message ?? error).split('\n')[0] ?? 'error').replace(/\.$/, '');
}

/**
 * How many of the API's page queries (queryRows: the router listing that dashboards and scripts
 * poll) run in PostgreSQL at once; the rest wait their turn here. Page queries are CPU work, and
 * more of them at once than there are cores only adds backends competing for the same CPUs. The
 * pool itself stays larger: writes (apply results, audit appends of a rollout) wait on commits,
 * not CPU. Why: the gate keeps the list's tail short without slowing rollouts, which a smaller
 * pool did; measured in docs/BENCHMARKS.md#server-api.
 */
function pageQueryConcurrency(): number {
  return Math.max(2, os.availableParallelism());
}
