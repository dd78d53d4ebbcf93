/**
 * A pre-initialised, fully migrated empty PGlite data directory, kept as a tarball in
 * node_modules/.cache. Creating a PGlite cluster runs initdb inside WASM (seconds on a small
 * CPU); starting from the tarball takes a fraction of that, which is most of the first start
 * of `npm run demo`. The file name carries the PGlite version and a hash of the migrations,
 * so a stale template is never used: it is simply not found, and the server initialises the
 * database the slow way.
 *
 * Built at `npm install` (postinstall) with: node --import tsx prisma/tools/pglite-template.ts
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { applyMigrations, defaultMigrationsDir, readMigrationList } from './migrations.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cacheDir = path.join(repoRoot, 'node_modules', '.cache', 'wrtfleet');

async function templatePath(migrationsDir = defaultMigrationsDir): Promise<string> {
  const list = await readMigrationList(migrationsDir);
  const hash = createHash('sha256');
  for (const dir of list.migrationDirectories) {
    hash.update(dir.path).update('\0').update(dir.migrationFile.content.value).update('\0');
  }
  const { version } = JSON.parse(await readFile(path.join(repoRoot, 'node_modules/@electric-sql/pglite/package.json'), 'utf8')) as { version: string };
  return path.join(cacheDir, `pglite-${version}-${hash.digest('hex').slice(0, 16)}.tar`);
}

/** The template for the current migrations, or null when none was built. */
export async function readPgliteTemplate(migrationsDir?: string): Promise<Blob | null> {
  try {
    return new Blob([await readFile(await templatePath(migrationsDir))]);
  } catch {
    return null;
  }
}

export async function buildPgliteTemplate(migrationsDir?: string): Promise<string> {
  const file = await templatePath(migrationsDir);
  const db = await PGlite.create();
  try {
    await applyMigrations(db, { migrationsDir });
    const dump = await db.dumpDataDir('none');
    await mkdir(cacheDir, { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    await writeFile(tmp, Buffer.from(await dump.arrayBuffer()));
    await rename(tmp, file);
    return file;
  } finally {
    await db.close();
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const file = await buildPgliteTemplate();
  console.log(`PGlite template: ${path.relative(repoRoot, file)}`);
}
