import { randomUUID } from 'node:crypto';
import { cp, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

const originalEnd = pg.Pool.prototype.end;
import { defaultMigrationsDir } from '../../../prisma/tools/migrations.js';
import { openDatabase, StorageError, withTriggerDisabled } from '../../../server/storage/index.js';
import type { Database, OpenDatabaseOptions, StorageLogger } from '../../../server/storage/index.js';

const ADMIN_URL = process.env.WRTFLEET_TEST_PG_ADMIN_URL ?? 'postgresql://root@127.0.0.1:5432/postgres';

function recordingLogger() {
  const lines: { obj: object; msg?: string }[] = [];
  const record = (obj: object, msg?: string) => void lines.push({ obj, msg });
  const logger: StorageLogger = { info: record, warn: record, debug: record };
  return { logger, lines, migrated: () => lines.filter((l) => l.msg === 'database migrated') };
}

/** The behaviour both backends must share. */
function exercise(open: () => Promise<Database>) {
  it('migrates once: a second open applies nothing', async () => {
    const first = recordingLogger();
    const a = await openWith(open, first.logger);
    await a.close();
    expect(first.migrated()).toHaveLength(1);
    const second = recordingLogger();
    const b = await openWith(open, second.logger);
    try {
      expect(second.migrated()).toEqual([]);
      const rows = await b.prisma.$queryRaw<{ migration_name: string; finished_at: Date | null }[]>`
        SELECT migration_name, finished_at FROM _prisma_migrations`;
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.every((r) => r.finished_at !== null)).toBe(true);
    } finally {
      await b.close();
    }
  });

  it('writes and reads a Router and an AuditEvent', async () => {
    const db = await open();
    try {
      const router = await db.prisma.router.create({
        data: {
          name: 'r1',
          identity: 'kt,km14-102h:de:ad:be:ef:00:01',
          soc: 'MT7621',
          facts: { cpu: { cores: 4 } },
          capabilities: { predicted: { ebpf: true }, probed: { ebpf: false } },
          tags: ['lab', 'mips'],
        },
      });
      const read = await db.prisma.router.findUniqueOrThrow({ where: { id: router.id } });
      expect(read).toMatchObject({
        name: 'r1',
        status: 'never_seen',
        placement: 'unknown',
        soc: 'MT7621',
        facts: { cpu: { cores: 4 } },
        tags: ['lab', 'mips'],
      });
      expect(await db.prisma.router.count({ where: { tags: { has: 'lab' }, soc: 'MT7621' } })).toBe(1);

      const event = await db.prisma.auditEvent.create({
        data: {
          actor: 'system',
          action: 'router.registered',
          targetType: 'router',
          targetId: router.id,
          after: { name: 'r1' },
          prevHash: '0'.repeat(64),
          hash: 'a'.repeat(64),
        },
      });
      expect(typeof event.seq).toBe('bigint');
      const events = await db.prisma.auditEvent.findMany({ where: { targetId: router.id } });
      expect(events.map((e) => e.action)).toEqual(['router.registered']);
      // Two events claiming the same predecessor would fork the chain.
      await expect(
        db.prisma.auditEvent.create({
          data: { actor: 'system', action: 'x', targetType: 'router', prevHash: '0'.repeat(64), hash: 'b'.repeat(64) },
        }),
      ).rejects.toThrow();
    } finally {
      await db.close();
    }
  });

  it('rejects UPDATE and DELETE of profile revisions and audit events, unless the trigger is disabled', async () => {
    const db = await open();
    try {
      const profile = await db.prisma.profile.create({ data: { name: `p-${randomUUID()}`, latestRevision: 1 } });
      const revision = await db.prisma.profileRevision.create({
        data: { profileId: profile.id, number: 1, spec: { ttl: 64 }, createdBy: 'test' },
      });
      await expect(
        db.prisma.profileRevision.update({ where: { id: revision.id }, data: { spec: { ttl: 65 } } }),
      ).rejects.toThrow(/immutable/);
      await expect(db.prisma.profileRevision.delete({ where: { id: revision.id } })).rejects.toThrow(/immutable/);

      const event = await db.prisma.auditEvent.create({
        data: {
          actor: 'system',
          action: 'profile.created',
          targetType: 'profile',
          prevHash: `p-${randomUUID()}`,
          hash: 'h',
        },
      });
      await expect(
        db.prisma.auditEvent.update({ where: { seq: event.seq }, data: { actor: 'mallory' } }),
      ).rejects.toThrow(/immutable/);
      await expect(db.prisma.$executeRaw`DELETE FROM "AuditEvent"`).rejects.toThrow(/immutable/);

      await withTriggerDisabled(db.prisma, 'AuditEvent', (tx) =>
        tx.auditEvent.update({ where: { seq: event.seq }, data: { actor: 'mallory' } }),
      );
      expect((await db.prisma.auditEvent.findUniqueOrThrow({ where: { seq: event.seq } })).actor).toBe('mallory');
      // ...and the trigger is back on afterwards.
      await expect(db.prisma.auditEvent.update({ where: { seq: event.seq }, data: { actor: 'eve' } })).rejects.toThrow(
        /immutable/,
      );
    } finally {
      await db.close();
    }
  });
}

/**
 * A broken migration must fail start-up with the database's reason, leave nothing half-applied,
 * and be retried once fixed (Prisma alone would demand `migrate resolve` with the native engine).
 */
function failedMigrationIsRetried(openFresh: (extra: Partial<OpenDatabaseOptions>) => Promise<Database>) {
  it('a failed migration leaves nothing behind and is retried once fixed', async () => {
    const work = await mkdtemp(path.join(os.tmpdir(), 'wrtfleet-bad-migration-'));
    try {
      const migrationsDir = path.join(work, 'migrations');
      await cp(defaultMigrationsDir, migrationsDir, { recursive: true });
      const bad = path.join(migrationsDir, '29990101000000_broken', 'migration.sql');
      await mkdir(path.dirname(bad));
      await writeFile(bad, 'CREATE TABLE "Half" (id int);\nSELECT no_such_function();\n');

      const error = await openFresh({ migrationsDir }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StorageError);
      expect((error as StorageError).code).toBe('migration_failed');
      expect((error as StorageError).message).toMatch(/29990101000000_broken: .*no_such_function/);

      // Re-creating "Half" only succeeds if the failed attempt left nothing behind.
      await writeFile(bad, 'CREATE TABLE "Half" (id int);\n');
      const db = await openFresh({ migrationsDir });
      try {
        const rows = await db.prisma.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM "Half"`;
        expect(rows[0]?.n).toBe(0);
      } finally {
        await db.close();
      }
      expect(await readdir(migrationsDir)).toContain('29990101000000_broken');
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  });
}

let currentLogger: StorageLogger | undefined;
async function openWith(open: () => Promise<Database>, logger: StorageLogger): Promise<Database> {
  currentLogger = logger;
  try {
    return await open();
  } finally {
    currentLogger = undefined;
  }
}

describe('PGlite (embedded default)', () => {
  let dir: string;
  let dataDir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'wrtfleet-pglite-'));
    dataDir = path.join(dir, 'data', 'pglite');
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  exercise(() => openDatabase({ dataDir, logger: currentLogger }));
  failedMigrationIsRetried((extra) => openDatabase({ dataDir: path.join(dir, 'bad-migration'), ...extra }));

  it('keeps data across close and reopen', async () => {
    const a = await openDatabase({ dataDir });
    expect(a.kind).toBe('pglite');
    await a.prisma.router.create({ data: { name: 'persisted', identity: 'id-persisted' } });
    await a.close();
    const b = await openDatabase({ dataDir });
    try {
      expect(await b.prisma.router.findUnique({ where: { name: 'persisted' } })).not.toBeNull();
    } finally {
      await b.close();
    }
  });

  it('a fresh directory copied from the migrated template holds every migration, and the schema engine agrees on reopen', async () => {
    const fresh = path.join(dir, 'from-template');
    const first = recordingLogger();
    const a = await openDatabase({ dataDir: fresh, pgliteTemplate: true, logger: first.logger });
    try {
      expect(first.lines.map((l) => l.msg)).toContain('initialised the embedded database from the migrated template');
      const rows = await a.prisma.$queryRaw<
        { migration_name: string }[]
      >`SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL ORDER BY 1`;
      const expected = (await readdir(defaultMigrationsDir, { withFileTypes: true }))
        .filter((e) => e.isDirectory())
        .map((e) => e.name)
        .sort();
      expect(rows.map((r) => r.migration_name)).toEqual(expected);
      await a.prisma.router.create({ data: { name: 'from-template', identity: 'id-from-template' } });
    } finally {
      await a.close();
    }
    // Not fresh any more: opened as it is, checked by the schema engine, nothing to apply.
    const second = recordingLogger();
    const b = await openDatabase({ dataDir: fresh, pgliteTemplate: true, logger: second.logger });
    try {
      expect(second.lines.map((l) => l.msg)).not.toContain(
        'initialised the embedded database from the migrated template',
      );
      expect(second.migrated()).toEqual([]);
      expect(await b.prisma.router.findUnique({ where: { name: 'from-template' } })).not.toBeNull();
    } finally {
      await b.close();
    }
  });

  it('refuses a data directory that is already open', async () => {
    const a = await openDatabase({ dataDir });
    try {
      const error = await openDatabase({ dataDir }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StorageError);
      expect((error as StorageError).code).toBe('data_dir_in_use');
    } finally {
      await a.close();
    }
  });
});

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

describe('PostgreSQL', () => {
  const name = `wrtfleet_storage_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  // Trust auth ignores it; it is here to prove it never leaks into logs or locations.
  url.password = 'hunter2';
  const databaseUrl = url.href;

  beforeAll(() => admin(`CREATE DATABASE "${name}"`));
  afterAll(() => admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));

  exercise(() => openDatabase({ databaseUrl, logger: currentLogger }));
  describe('on a fresh database', () => {
    const fresh = `${name}_b`;
    const freshUrl = Object.assign(new URL(databaseUrl), { pathname: `/${fresh}` }).href;
    beforeAll(() => admin(`CREATE DATABASE "${fresh}"`));
    afterAll(() => admin(`DROP DATABASE IF EXISTS "${fresh}" WITH (FORCE)`));
    failedMigrationIsRetried((extra) => openDatabase({ databaseUrl: freshUrl, ...extra }));
  });

  it('runs at most max(2, cores) page queries in PostgreSQL at once, the rest in arrival order, and Prisma is not held up by them', async () => {
    const db = await openDatabase({ databaseUrl });
    const limit = Math.max(2, os.availableParallelism());
    const tag = `wf_gate_${randomUUID().slice(0, 8)}`;
    try {
      let peak = 0;
      const watcher = setInterval(() => {
        void db.prisma
          .$queryRawUnsafe<{ n: bigint }[]>(
            `SELECT count(*) AS n FROM pg_stat_activity WHERE state = 'active' AND query LIKE '%${tag}%' AND query NOT LIKE '%pg_stat_activity%'`,
          )
          .then((r) => (peak = Math.max(peak, Number(r[0]!.n))))
          .catch(() => undefined);
      }, 20);
      const finished: number[] = [];
      const count = limit * 3;
      await Promise.all(
        Array.from({ length: count }, (_, i) =>
          db.queryRows(`SELECT pg_sleep(0.4), '${tag}' AS tag, ${i} AS i`, []).then(() => finished.push(i)),
        ),
      );
      clearInterval(watcher);
      expect(peak).toBe(limit);
      // In arrival order: the first `limit` finish before any of the last `limit` start.
      expect(finished.slice(0, limit).sort((a, b) => a - b)).toEqual(Array.from({ length: limit }, (_, i) => i));
    } finally {
      await db.close();
    }
  });

  it('keeps its pool error listener through close: a connection the server terminates while the pool ends raises no uncaught error', async () => {
    // CI saw an uncaught FATAL 57P01 after a test's controller closed and its database was dropped
    // WITH (FORCE): the Prisma adapter removes its pool 'error' listener in $disconnect, and
    // pg-pool's end() does not wait for its connections to finish closing.
    const pools: pg.Pool[] = [];
    // The promise-returning end() the adapter calls; on Pool itself spyOn would type the callback overload.
    const poolPrototype: { end(): Promise<void> } = pg.Pool.prototype;
    const end = vi.spyOn(poolPrototype, 'end').mockImplementation(function (this: pg.Pool) {
      pools.push(this);
      return (originalEnd as () => Promise<void>).call(this);
    });
    const db = await openDatabase({ databaseUrl });
    await db.prisma.$queryRawUnsafe('SELECT 1');
    await db.queryRows('SELECT 2', []);
    await db.close();
    end.mockRestore();
    const main = pools.at(-1)!;
    const fatal = Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });
    expect(main.listenerCount('error')).toBeGreaterThan(0);
    expect(() => main.emit('error', fatal, {})).not.toThrow();
  });

  it('reports kind and a printable location; the password appears nowhere', async () => {
    const { logger, lines } = recordingLogger();
    const db = await openDatabase({ databaseUrl, logger });
    try {
      expect(db.kind).toBe('postgresql');
      expect(db.location).toContain(name);
      expect(db.location).toContain('***');
      expect(JSON.stringify([db.location, lines])).not.toContain('hunter2');
    } finally {
      await db.close();
    }
  });
});

describe('bad DATABASE_URL', () => {
  async function failure(databaseUrl: string): Promise<StorageError> {
    const error = await openDatabase({ databaseUrl }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StorageError);
    return error as StorageError;
  }

  it('an unreachable server is one sentence, quickly, without the password', async () => {
    const started = Date.now();
    const error = await failure('postgresql://admin:hunter2@127.0.0.1:5999/wrtfleet');
    expect(Date.now() - started).toBeLessThan(5000);
    expect(error.message).toBe('Cannot reach PostgreSQL at 127.0.0.1:5999 (connection refused); check DATABASE_URL.');
    expect(error.code).toBe('unreachable');
  });

  it('a malformed URL is explained without echoing it', async () => {
    for (const bad of ['not a url hunter2', 'mysql://u:hunter2@localhost/db', 'postgresql://u:hunter2@/db']) {
      const error = await failure(bad);
      expect(error.code).toBe('invalid_url');
      expect(error.message).toMatch(/^DATABASE_URL is not a valid PostgreSQL URL \(.+\); expected .+\.$/);
      expect(error.message).not.toContain('hunter2');
    }
  });

  it('a missing database is named', async () => {
    const url = new URL(ADMIN_URL);
    url.password = 'hunter2';
    url.pathname = '/wrtfleet_no_such_database';
    const error = await failure(url.href);
    expect(error.code).toBe('database_missing');
    expect(error.message).toContain('"wrtfleet_no_such_database"');
    expect(error.message).not.toContain('hunter2');
  });
});
