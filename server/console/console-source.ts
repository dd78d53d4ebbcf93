import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const webAdmin = path.resolve(import.meta.dirname, '../../web-admin');

/** What the console's build is made from: a change to any of these makes a build stale. */
const SOURCES = ['index.html', 'vite.config.ts', 'src', 'public'];

/** Where a build records the hash of the sources it was made from. */
export const SOURCE_STAMP = '.vite/source-hash';

function filesUnder(relative: string): string[] {
  const full = path.join(webAdmin, relative);
  try {
    return readdirSync(full, { withFileTypes: true, recursive: true })
      .filter((e) => e.isFile())
      .map((e) => path.relative(webAdmin, path.join(e.parentPath, e.name)))
      .sort();
  } catch {
    return [relative];
  }
}

/** SHA-256 over the console's source files (names and contents), in a stable order. */
export function consoleSourceHash(): string {
  const hash = createHash('sha256');
  for (const file of SOURCES.flatMap(filesUnder)) {
    hash.update(file).update('\0');
    try {
      hash.update(readFileSync(path.join(webAdmin, file)));
    } catch {
      hash.update('(missing)');
    }
    hash.update('\0');
  }
  return hash.digest('hex');
}

/** Whether `distDir` holds a build of the current sources. */
export function consoleBuildIsCurrent(distDir: string): boolean {
  try {
    readFileSync(path.join(distDir, 'index.html'));
    return readFileSync(path.join(distDir, SOURCE_STAMP), 'utf8').trim() === consoleSourceHash();
  } catch {
    return false;
  }
}
