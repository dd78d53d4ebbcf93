import { chmod, readdir, stat } from 'node:fs/promises';
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
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    const file = path.join(entry.parentPath, entry.name);
    if (entry.isDirectory()) await chmod(file, 0o700);
    else if (entry.isFile()) await chmod(file, 0o600);
  }
  // Last, so that a start interrupted midway repairs the rest next time.
  await chmod(dir, 0o700);
}
