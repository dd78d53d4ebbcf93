import { chmodSync, readdirSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';

/**
 * Makes PGlite's data directory readable by its owner only, like the keys beside it. PGlite
 * unpacks its initial cluster (and the template copy keeps) files 0644 and directories 0755;
 * what PostgreSQL creates later is 0600/0700 already. A directory that is 0700 was made private
 * by an earlier start, so only the top is checked then; otherwise (new, or from an older
 * version) every file becomes 0600 and every directory 0700.
 */
export async function restrictToOwner(dir: string): Promise<void> {
  if (((await stat(dir)).mode & 0o777) === 0o700) return;
  // Synchronous on purpose, like the template copy: ~1,000 awaited chmods queue behind the
  // thread pool, and nothing else can proceed before the database is open anyway.
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const file = path.join(entry.parentPath, entry.name);
    if (entry.isDirectory()) chmodSync(file, 0o700);
    else if (entry.isFile()) chmodSync(file, 0o600);
  }
  // Last, so that a start interrupted midway repairs the rest next time.
  chmodSync(dir, 0o700);
}
