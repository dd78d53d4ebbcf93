import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../../server/storage/database.js';
import { eventually } from '../../support/controller.js';
import { createPostgresDatabase, type TestDatabase } from '../../support/databases.js';
import { TcpProxy } from '../../support/tcp-proxy.js';

/**
 * The log says when PostgreSQL went away and when it came back, also when the outage was seen
 * only by connections in use: mid-rollout every pooled connection can be busy, and then the
 * pool has no idle one to report the loss (seen in CI: "unavailable" logged by a retry, the
 * return never).
 */
describe('the database going away and coming back, in the log (PostgreSQL through a cut forwarder)', () => {
  let db: TestDatabase | undefined;
  let database: Database | undefined;
  const proxy = new TcpProxy('127.0.0.1', 5432);
  afterAll(async () => {
    await proxy.restore().catch(() => {});
    await database?.close();
    await proxy.cut();
    await db?.drop();
  });

  const lines: string[] = [];
  const logger = {
    info: (_: object, msg?: string) => void lines.push(msg ?? ''),
    warn: (_: object, msg?: string) => void lines.push(msg ?? ''),
    debug: (_: object, msg?: string) => void lines.push(msg ?? ''),
  };
  const outageLines = () => lines.filter((l) => /database unavailable|database is back/.test(l));
  const OUTAGE_AND_RETURN = [
    'database unavailable; agent messages wait and work is retried until it returns',
    'database is back',
  ];

  async function open(): Promise<Database> {
    await database?.close();
    lines.length = 0;
    db ??= await createPostgresDatabase();
    const url = new URL(db.databaseUrl!);
    url.port = String(proxy.port || (await proxy.start()));
    database = await openDatabase({ databaseUrl: url.toString(), logger, poolSize: 1 });
    return database;
  }

  it('reports an outage that only a busy connection saw, then its end', async () => {
    const database = await open();
    // The pool's one connection is busy when the network goes: no idle connection sees it.
    const busy = database.queryRows('SELECT pg_sleep(30)', []).catch((err: Error) => err);
    await new Promise((r) => setTimeout(r, 300));
    await proxy.cut();
    expect(await busy).toBeInstanceOf(Error);
    await eventually(async () => outageLines().length === 1, 5_000, 'outage logged');
    await proxy.restore();
    await eventually(async () => outageLines().length === 2, 10_000, 'return logged');
    expect(outageLines()).toEqual(OUTAGE_AND_RETURN);
    expect(await database.queryRows<{ one: number }>('SELECT 1 AS one', [])).toEqual([{ one: 1 }]);
  });

  it('reports an outage that a quiet pool (no connection open) saw as a refused connect, then its end', async () => {
    const database = await open();
    await proxy.cut();
    await expect(database.queryRows('SELECT 1', [])).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    expect(outageLines()).toEqual(OUTAGE_AND_RETURN.slice(0, 1));
    await proxy.restore();
    await eventually(async () => outageLines().length === 2, 10_000, 'return logged');
    expect(outageLines()).toEqual(OUTAGE_AND_RETURN);
  });
});
