import { cp, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  createMigration,
  defaultMigrationsDir,
  defaultSchemaPath,
  pendingSchemaChanges,
  readMigrationList,
} from '../../../prisma/tools/migrations.js';

describe('prisma/migrations', () => {
  it('migrating an empty database yields exactly schema.prisma', async () => {
    const drift = await pendingSchemaChanges();
    expect(drift.script).toBe('');
    expect(drift.changed).toBe(false);
  });

  it('are in Prisma layout with a postgresql lockfile', async () => {
    const list = await readMigrationList();
    expect(list.lockfile.content).toMatch(/provider = "postgresql"/);
    expect(list.migrationDirectories.length).toBeGreaterThan(0);
    for (const dir of list.migrationDirectories) {
      expect(dir.path).toMatch(/^\d{14}_[a-z0-9_]+$/);
      expect(dir.migrationFile.content.tag).toBe('ok');
    }
  });

  it('a schema change produces a new migration folder, and none without a change', async () => {
    const work = await mkdtemp(path.join(os.tmpdir(), 'wrtfleet-migrations-'));
    try {
      const migrationsDir = path.join(work, 'migrations');
      await cp(defaultMigrationsDir, migrationsDir, { recursive: true });
      const schemaPath = path.join(work, 'schema.prisma');
      const schema = await readFile(defaultSchemaPath, 'utf8');
      await writeFile(schemaPath, `${schema}\nmodel Scratch {\n  id Int @id\n}\n`);
      const created = await createMigration('add scratch', { schemaPath, migrationsDir });
      expect(created.name).toMatch(/^\d{14}_add_scratch$/);
      expect(created.script).toContain('CREATE TABLE "Scratch"');
      expect(await readdir(migrationsDir)).toContain(created.name);

      const again = await createMigration('nothing', { schemaPath, migrationsDir });
      expect(again.name).toBeUndefined();
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  });
});
