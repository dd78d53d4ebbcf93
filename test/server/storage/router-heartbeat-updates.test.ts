import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createPostgresDatabase } from '../../support/databases.js';
import { openedDatabase } from '../../support/opened-database.js';

/** A fact sheet of about the size a real router reports (the Router row is ~1.2 KB with it). */
const FACTS = {
  board: { model: 'Xiaomi Redmi Router AC2100', system: 'MediaTek MT7621 ver:1 eco:3' },
  interfaces: Array.from({ length: 10 }, (_, i) => ({ name: `lan${i}`, mac: '00:11:22:33:44:55', mtu: 1500 })),
  kernelConfig: Array.from({ length: 30 }, (_, i) => `CONFIG_NET_SCH_${i}=y`),
};

describe('heartbeats on PostgreSQL', () => {
  const opened = openedDatabase(createPostgresDatabase);

  it('update routers in place (HOT): no index entry is rewritten, the table does not grow', async () => {
    await opened.db.prisma.$executeRaw`
      INSERT INTO "Router" (id, name, identity, status, facts, capabilities, tags, "updatedAt")
      SELECT gen_random_uuid()::text, 'hb-' || g, 'hb:' || g, 'online', ${JSON.stringify(FACTS)}::jsonb,
             ${JSON.stringify(FACTS)}::jsonb, ARRAY['site:a'], now()
        FROM generate_series(1, 2000) g`;
    // Heartbeats arrive in no order related to where rows lie: each flush touches routers all over the table.
    const ids = (await opened.db.prisma.router.findMany({ select: { id: true }, orderBy: { identity: 'asc' } }))
      .map((r) => r.id)
      .sort();
    const size = async () =>
      Number((await opened.db.prisma.$queryRaw<{ n: bigint }[]>`SELECT pg_relation_size('"Router"') AS n`)[0]!.n);
    const sizeBefore = await size();
    // What RouterRegistry.flushSeen writes, three heartbeats of every router, in its batches, on
    // one connection: a backend reports its table counters only when it flushes them.
    const client = new pg.Client({ connectionString: opened.testDatabase.databaseUrl! });
    await client.connect();
    try {
      for (let round = 0; round < 3; round++)
        for (let i = 0; i < ids.length; i += 500)
          await client.query(
            `UPDATE "Router" SET "lastSeenAt" = now(), status = 'online', "updatedAt" = now() WHERE id = ANY($1::text[])`,
            [ids.slice(i, i + 500)],
          );
      await client.query('SELECT pg_stat_force_next_flush()');
    } finally {
      await client.end();
    }
    const [stats] = await opened.db.prisma.$queryRaw<{ updated: bigint; hot: bigint }[]>`
      SELECT n_tup_upd AS updated, n_tup_hot_upd AS hot FROM pg_stat_user_tables WHERE relname = 'Router'`;
    expect(Number(stats!.updated)).toBe(3 * ids.length);
    // 0.94 with the migration's 30 % of free space on each page, 0.43 without (fillfactor 100).
    expect(Number(stats!.hot) / Number(stats!.updated)).toBeGreaterThan(0.85);
    expect(await size()).toBeLessThan(sizeBefore * 1.2);
  });
});
