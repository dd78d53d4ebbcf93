import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { AuditLog, eventHash, GENESIS_HASH } from '../../../server/audit/audit-log.js';
import { verifyAuditChain } from '../../../server/audit/audit-verify.js';
import { bulkInsert, type ColumnType } from '../../../server/storage/bulk-insert.js';
import { BACKENDS, createPostgresDatabase } from '../../support/databases.js';
import { openedDatabase } from '../../support/opened-database.js';

const ROUTER_COLUMNS: Record<string, ColumnType> = {
  id: 'text',
  name: 'text',
  identity: 'text',
  status: '"ConnectionStatus"',
  liveState: 'jsonb',
  decommissionedAt: 'timestamptz',
  updatedAt: 'timestamptz',
};

describe.each(BACKENDS)('bulkInsert: many rows, one parameter, on %s', (_name, create) => {
  const opened = openedDatabase(create);

  it('stores each value as Prisma reads it back: enums, JSON, NULLs, times to the millisecond', async () => {
    const at = new Date('2026-12-02T17:49:49.444Z');
    const rows = Array.from({ length: 1500 }, (_, i) => ({
      id: randomUUID(),
      name: `bulk-${i}`,
      identity: `bulk-id-${i}`,
      status: i % 2 ? 'online' : 'offline',
      liveState:
        i === 0 ? { datapath: { mode: 'tcx', programs: ['a', 'b'] }, note: 'quote " and \\ and ü' } : undefined,
      decommissionedAt: i === 1 ? at : null,
      updatedAt: at,
    }));
    expect(await bulkInsert(opened.db.prisma, 'Router', ROUTER_COLUMNS, rows)).toEqual([]);
    const back = await opened.db.prisma.router.findMany({
      where: { name: { startsWith: 'bulk-' } },
      select: { name: true, status: true, liveState: true, decommissionedAt: true, updatedAt: true, seriesKey: true },
      orderBy: { seriesKey: 'asc' },
    });
    expect(back).toHaveLength(1500);
    // A serial column follows the array's order.
    expect(back.map((r) => r.name)).toEqual(rows.map((r) => r.name));
    expect(back[0]).toMatchObject({ status: 'offline', liveState: rows[0]!.liveState, decommissionedAt: null });
    expect(back[1]).toMatchObject({ status: 'online', liveState: null, decommissionedAt: at, updatedAt: at });
  });

  it('skips duplicates when asked and returns only the rows it inserted; without it, a duplicate fails the whole insert', async () => {
    const id = randomUUID();
    const one = { id, name: `dup-${id}`, identity: `dup-${id}`, status: 'online', updatedAt: new Date() };
    const other = { ...one, id: randomUUID(), name: `dup2-${id}`, identity: `dup2-${id}` };
    await bulkInsert(opened.db.prisma, 'Router', ROUTER_COLUMNS, [one]);
    const inserted = await bulkInsert(opened.db.prisma, 'Router', ROUTER_COLUMNS, [one, other], {
      skipDuplicates: true,
      returning: ['id', 'name'],
    });
    expect(inserted).toEqual([{ id: other.id, name: other.name }]);
    const third = { ...one, id: randomUUID(), name: `dup3-${id}`, identity: `dup3-${id}` };
    await expect(bulkInsert(opened.db.prisma, 'Router', ROUTER_COLUMNS, [third, one])).rejects.toThrow(/23505|unique/i);
    expect(await opened.db.prisma.router.count({ where: { name: third.name } })).toBe(0);
  });

  it('inserts nothing and sends no statement for no rows', async () => {
    const none = { $queryRawUnsafe: () => Promise.reject(new Error('no statement expected')) };
    await expect(bulkInsert(none, 'Router', ROUTER_COLUMNS, [])).resolves.toEqual([]);
  });
});

describe('the audit log appends with bulkInsert and retries a tail another writer took (PostgreSQL)', () => {
  const opened = openedDatabase(createPostgresDatabase);

  it('an append racing a writer without the lock lands after it, and the chain verifies', async () => {
    const audit = new AuditLog(opened.db.prisma);
    await audit.append({ actor: 'system', action: 'test.first', targetType: 'test' });
    const tail = await opened.db.prisma.auditEvent.findFirst({ orderBy: { seq: 'desc' } });
    expect(tail?.prevHash).toBe(GENESIS_HASH);
    // Another writer, not taking the advisory lock, holds an uncommitted event on the same tail.
    const rogue = new pg.Client({ connectionString: opened.testDatabase.databaseUrl });
    const rogueEvent = {
      id: randomUUID(),
      at: new Date(),
      actor: 'system',
      action: 'test.rogue',
      targetType: 'test',
    };
    const rogueHash = eventHash(tail!.hash, rogueEvent);
    await rogue.connect();
    try {
      await rogue.query('BEGIN');
      await rogue.query(
        `INSERT INTO "AuditEvent"(id, at, actor, action, "targetType", "prevHash", hash) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        [
          rogueEvent.id,
          rogueEvent.at,
          rogueEvent.actor,
          rogueEvent.action,
          rogueEvent.targetType,
          tail!.hash,
          rogueHash,
        ],
      );
      const append = audit.append({ actor: 'system', action: 'test.after', targetType: 'test' });
      // Our insert now waits on the unique index for the rogue's transaction.
      await new Promise((r) => setTimeout(r, 300));
      await rogue.query('COMMIT');
      await append;
    } finally {
      await rogue.end();
    }
    const events = await opened.db.prisma.auditEvent.findMany({ orderBy: { seq: 'asc' } });
    expect(events.map((e) => e.action)).toEqual(['test.first', 'test.rogue', 'test.after']);
    expect(events[2]!.prevHash).toBe(rogueHash);
    expect(await verifyAuditChain(opened.db.prisma)).toMatchObject({ ok: true, checked: 3 });
  });
});
