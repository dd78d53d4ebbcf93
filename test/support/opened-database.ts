import { afterAll, beforeAll } from 'vitest';
import { openDatabase, type Database } from '../../server/storage/index.js';
import type { TestDatabase } from './databases.js';

export interface OpenedDatabase {
  /** The controller's storage, open (migrations applied) from the suite's beforeAll on. */
  readonly db: Database;
  /** The database itself: its URL for a client of the test's own. */
  readonly testDatabase: TestDatabase;
}

/**
 * A fresh database from `create`, opened as the controller opens it before the enclosing
 * describe's tests and closed and dropped after them. Read its fields inside tests, not at
 * collection time: they are set in beforeAll.
 */
export function openedDatabase(create: () => Promise<TestDatabase>): OpenedDatabase {
  const opened = {} as { db: Database; testDatabase: TestDatabase };
  beforeAll(async () => {
    opened.testDatabase = await create();
    opened.db = await openDatabase({
      databaseUrl: opened.testDatabase.databaseUrl,
      dataDir: opened.testDatabase.dataDir,
    });
  }, 120_000);
  afterAll(async () => {
    await opened.db?.close();
    await opened.testDatabase?.drop();
  });
  return opened;
}
