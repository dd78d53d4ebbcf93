/**
 * A pre-initialised, fully migrated empty PGlite data directory, kept in node_modules/.cache.
 * Creating a PGlite cluster runs initdb inside WASM (seconds on a small CPU); a new data
 * directory is instead a plain file copy of the template, which PGlite then opens as an
 * existing cluster. (A copy, not PGlite's `loadDataDir` tarball: unpacking 40 MB through the
 * WASM file system cost ~1.4 s of the demo's first start, the copy ~0.3 s.) The directory name
 * carries the PGlite version and a hash of the migrations, so a stale template is never used:
 * it is simply not found, and the server initialises and migrates the database the slow way.
 *
 * Built at `npm install` (postinstall) with: node --import tsx prisma/tools/pglite-template.ts
 */
import { createHash } from 'node:crypto';
import { constants, cpSync } from 'node:fs';
import { mkdir, readFile, rename, rm, stat } from 'node:fs/promises';
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
  const { version } = JSON.parse(
    await readFile(path.join(repoRoot, 'node_modules/@electric-sql/pglite/package.json'), 'utf8'),
  ) as { version: string };
  return path.join(cacheDir, `pglite-${version}-${hash.digest('hex').slice(0, 16)}`);
}

/**
 * Fill the empty directory `dataDir` with a copy of the template for the current migrations.
 * False when no such template was built; the caller then initialises the database itself.
 */
export async function copyPgliteTemplate(dataDir: string, migrationsDir?: string): Promise<boolean> {
  const template = await templatePath(migrationsDir);
  if (
    !(await stat(path.join(template, 'PG_VERSION')).then(
      (s) => s.isFile(),
      () => false,
    ))
  )
    return false;
  // FICLONE: a copy-on-write clone where the file system has them, a plain copy elsewhere.
  try {
    // Synchronous on purpose: fs/promises' cp awaits each of the ~1,000 files in turn and took
    // ~2 s here, cpSync ~0.4 s; nothing else can proceed before the database exists anyway.
    cpSync(template, dataDir, { recursive: true, mode: constants.COPYFILE_FICLONE });
  } catch (error) {
    // A half copy would be opened as a damaged cluster on the next start: leave nothing.
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
  return true;
}

export async function buildPgliteTemplate(migrationsDir?: string): Promise<string> {
  const dir = await templatePath(migrationsDir);
  const tmp = `${dir}.${process.pid}.tmp`;
  await mkdir(cacheDir, { recursive: true });
  await rm(tmp, { recursive: true, force: true });
  const db = await PGlite.create(tmp);
  try {
    await applyMigrations(db, { migrationsDir });
  } finally {
    await db.close();
  }
  // Swap in whole, so a reader never copies a half-written template.
  await rm(dir, { recursive: true, force: true });
  await rename(tmp, dir);
  return dir;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const file = await buildPgliteTemplate();
  console.log(`PGlite template: ${path.relative(repoRoot, file)}`);
}
