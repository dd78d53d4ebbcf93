import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

/** PostgreSQL as CI and this machine run it (trust auth on 127.0.0.1:5432). */
export const PG_ADMIN_URL = process.env.WRTFLEET_TEST_PG_ADMIN_URL ?? 'postgresql://root@127.0.0.1:5432/postgres';

export interface TestDatabase {
  /** DATABASE_URL for the controller, or undefined for embedded PGlite. */
  databaseUrl: string | undefined;
  /** Data directory (PGlite lives in <dataDir>/pglite). */
  dataDir: string;
  drop(): Promise<void>;
}

/** A fresh, empty PostgreSQL database of its own, dropped afterwards. */
export async function createPostgresDatabase(): Promise<TestDatabase> {
  const name = `wrtfleet_test_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'wrtfleet-pg-'));
  return {
    databaseUrl: url.toString(),
    dataDir,
    async drop() {
      const c = new pg.Client({ connectionString: PG_ADMIN_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** A fresh embedded PGlite data directory, removed afterwards. */
export async function createPgliteDatabase(): Promise<TestDatabase> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'wrtfleet-pglite-'));
  return { databaseUrl: undefined, dataDir, drop: () => rm(dataDir, { recursive: true, force: true }) };
}

export const BACKENDS = [
  ['embedded PGlite', createPgliteDatabase],
  ['PostgreSQL', createPostgresDatabase],
] as const;
