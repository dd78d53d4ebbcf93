/**
 * The migrations that gave each concept one spelling (docs/DOMAIN.md, Glossary) keep every row
 * and move stored values to today's spelling: a database written by 0.1 (PGlite, every migration
 * before them) is migrated and read back.
 */
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultMigrationsDir } from '../../prisma/tools/migrations.js';

const FIRST_RENAMING = '20261206165105_one_vocabulary';

async function migrations(): Promise<string[]> {
  return (await readdir(defaultMigrationsDir, { withFileTypes: true }))
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
}

async function apply(db: PGlite, names: string[]): Promise<void> {
  for (const name of names)
    await db.exec(await readFile(path.join(defaultMigrationsDir, name, 'migration.sql'), 'utf8'));
}

describe('the one-vocabulary migrations on a database of 0.1 (PGlite)', () => {
  const db = new PGlite();
  beforeAll(async () => {
    const all = await migrations();
    const before = all.filter((m) => m < FIRST_RENAMING);
    expect(all).toContain(FIRST_RENAMING);
    await apply(db, before);
    // What 0.1 stored, in 0.1's spellings.
    await db.exec(`
      INSERT INTO "Router" (id, name, identity, "openwrtVersion", "openwrtTarget", facts, "updatedAt")
        VALUES ('r1', 'lyon-1', 'serial-1', '23.05.3', 'ramips/mt7621',
                '{"soc": "MT7621", "openwrt": {"version": "23.05.3", "target": "ramips/mt7621"}}', now()),
               ('r2', 'lyon-2', 'serial-2', NULL, NULL, NULL, now());
      INSERT INTO "Profile" (id, name, "updatedAt") VALUES ('p1', 'home', now());
      INSERT INTO "ProfileRevision" (id, "profileId", number, spec, "createdBy") VALUES ('pr1', 'p1', 1, '{}', 'alice');
      INSERT INTO "Rollout" (id, "revisionId", selector, strategy, "batchCount", "createdBy", state, "updatedAt")
        VALUES ('o1', 'pr1', '{"openwrt": ["23.05"], "tags": ["site:lyon"]}', '{}', 1, 'alice', 'aborted', now()),
               ('o2', 'pr1', '{"all": true}', '{}', 1, 'alice', 'completed', now());
      INSERT INTO "RolloutTarget" ("rolloutId", "routerId", batch, state, "updatedAt")
        VALUES ('o1', 'r1', 0, 'pending', now()), ('o1', 'r2', 0, 'applied', now());
      INSERT INTO "CommandJob" (id, kind, selector, "timeoutSeconds", "maxInFlight", deadline, "createdBy", state, "updatedAt")
        VALUES ('c1', 're_probe', '{"openwrt": ["23.05.3"]}', 30, 10, now(), 'alice', 'completed', now()),
               ('c2', 're_apply', '{"ids": ["r2"]}', 30, 10, now(), 'alice', 'running', now());
      INSERT INTO "CommandTarget" ("jobId", "routerId", state, "updatedAt") VALUES ('c1', 'r1', 'succeeded', now());
      INSERT INTO "Job" (id, kind, input, result, "createdBy", "updatedAt")
        VALUES ('j1', 'onboard', '{}', '{"facts": {"soc": "MT7621", "openwrt": "23.05.3"}}', 'alice', now());
    `);
    await apply(
      db,
      all.filter((m) => m >= FIRST_RENAMING),
    );
  });
  afterAll(() => db.close());

  const rows = async <T>(sql: string) => (await db.query<T>(sql)).rows;

  it('the release: column, facts and selectors', async () => {
    expect(await rows(`SELECT id, "openwrtRelease", facts FROM "Router" ORDER BY id`)).toEqual([
      {
        id: 'r1',
        openwrtRelease: '23.05.3',
        facts: { soc: 'MT7621', openwrt: { release: '23.05.3', target: 'ramips/mt7621' } },
      },
      { id: 'r2', openwrtRelease: null, facts: null },
    ]);
    expect(await rows(`SELECT id, selector FROM "Rollout" ORDER BY id`)).toEqual([
      { id: 'o1', selector: { release: ['23.05'], tags: ['site:lyon'] } },
      { id: 'o2', selector: { all: true } },
    ]);
    expect(await rows(`SELECT selector FROM "Command" WHERE id = 'c1'`)).toEqual([
      { selector: { release: ['23.05.3'] } },
    ]);
    expect(await rows(`SELECT result FROM "Job"`)).toEqual([
      { result: { facts: { soc: 'MT7621', release: '23.05.3' } } },
    ]);
  });

  it('states and kinds: aborted is cancelled, pending targets are queued, re_probe is reprobe', async () => {
    expect(await rows(`SELECT id, state::text FROM "Rollout" ORDER BY id`)).toEqual([
      { id: 'o1', state: 'cancelled' },
      { id: 'o2', state: 'completed' },
    ]);
    expect(await rows(`SELECT "routerId", state::text FROM "RolloutTarget" ORDER BY "routerId"`)).toEqual([
      { routerId: 'r1', state: 'queued' },
      { routerId: 'r2', state: 'applied' },
    ]);
    expect(await rows(`SELECT id, kind::text, state::text FROM "Command" ORDER BY id`)).toEqual([
      { id: 'c1', kind: 'reprobe', state: 'completed' },
      { id: 'c2', kind: 'reapply', state: 'running' },
    ]);
    // A new target gets today's default.
    await db.exec(
      `INSERT INTO "RolloutTarget" ("rolloutId", "routerId", batch, "updatedAt") VALUES ('o2', 'r1', 0, now())`,
    );
    expect(await rows(`SELECT state::text FROM "RolloutTarget" WHERE "rolloutId" = 'o2'`)).toEqual([
      { state: 'queued' },
    ]);
  });

  it('a command job is a Command, its targets keep their rows under commandId', async () => {
    expect(await rows(`SELECT "commandId", "routerId", state::text FROM "CommandTarget"`)).toEqual([
      { commandId: 'c1', routerId: 'r1', state: 'succeeded' },
    ]);
    expect(await rows(`SELECT to_regclass('"CommandJob"') IS NULL AS gone`)).toEqual([{ gone: true }]);
  });
});
