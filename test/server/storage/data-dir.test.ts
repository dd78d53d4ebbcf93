import { spawn } from 'node:child_process';
import { chmod, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, StorageError } from '../../../server/storage/index.js';

/** Every file and directory under `dir` (itself included) whose mode is not owner-only. */
async function notOwnerOnly(dir: string): Promise<string[]> {
  const loose: string[] = [];
  const check = async (file: string, isDir: boolean) => {
    const mode = (await stat(file)).mode & 0o777;
    if (mode !== (isDir ? 0o700 : 0o600)) loose.push(`${mode.toString(8)} ${path.relative(dir, file) || '.'}`);
  };
  await check(dir, true);
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isDirectory() || entry.isFile())
      await check(path.join(entry.parentPath, entry.name), entry.isDirectory());
  }
  return loose;
}

describe('the PGlite data directory', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'wrtfleet-datadir-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  for (const [start, pgliteTemplate] of [
    ['copied from the template', true],
    ['initialised by PGlite', false],
  ] as const) {
    it(`is 0700 with files 0600 and an 0600 lock file when ${start}`, async () => {
      const dataDir = path.join(dir, pgliteTemplate ? 'template' : 'initdb', 'pglite');
      const messages: (string | undefined)[] = [];
      const record = (_: object, msg?: string) => void messages.push(msg);
      const db = await openDatabase({ dataDir, pgliteTemplate, logger: { info: record, warn: record, debug: record } });
      try {
        // The template is built at npm install; without it this case would not be the one named.
        expect(messages.includes('initialised the embedded database from the migrated template')).toBe(pgliteTemplate);
        await db.prisma.router.create({ data: { name: 'r1', identity: 'id-r1' } });
        expect(await notOwnerOnly(dataDir)).toEqual([]);
        expect((await stat(`${dataDir}.lock`)).mode & 0o777).toBe(0o600);
        expect((await stat(path.dirname(dataDir))).mode & 0o777).toBe(0o700);
      } finally {
        await db.close();
      }
      expect(await notOwnerOnly(dataDir)).toEqual([]);
    }, 240_000);
  }

  it('a world-readable directory left by an earlier version is made owner-only at the next open', async () => {
    const dataDir = path.join(dir, 'template', 'pglite');
    await chmod(dataDir, 0o755);
    await chmod(path.join(dataDir, 'PG_VERSION'), 0o644);
    await chmod(path.join(dataDir, 'base'), 0o755);
    const db = await openDatabase({ dataDir });
    await db.close();
    expect(await notOwnerOnly(dataDir)).toEqual([]);
  }, 120_000);

  it('a pid in the lock file that now belongs to an unrelated live process does not block', async () => {
    const dataDir = path.join(dir, 'reused', 'pglite');
    await openDatabase({ dataDir, pgliteTemplate: true }).then((db) => db.close());
    // Our parent is alive and unrelated to this directory, as a reused pid would be.
    await writeFile(`${dataDir}.lock`, String(process.ppid));
    const db = await openDatabase({ dataDir });
    await db.close();
  }, 120_000);

  it('a directory locked by another live process is refused, naming that process', async () => {
    const dataDir = path.join(dir, 'held', 'pglite');
    await openDatabase({ dataDir, pgliteTemplate: true }).then((db) => db.close());
    // flock(1) holding the lock while its command runs: the same kind of lock, another process.
    const holder = spawn(
      'flock',
      ['-x', `${dataDir}.lock`, 'sh', '-c', `echo $$ > ${dataDir}.lock; echo $$; exec sleep 30`],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
        detached: true,
      },
    );
    try {
      const pid = await new Promise<number>((resolve, reject) => {
        holder.stdout.setEncoding('utf8').on('data', (line: string) => resolve(Number(line.trim())));
        holder.on('exit', () => reject(new Error('the lock holder exited')));
      });
      const error = await openDatabase({ dataDir }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StorageError);
      expect((error as StorageError).code).toBe('data_dir_in_use');
      expect((error as StorageError).message).toBe(
        `The data directory ${dataDir} is in use by process ${pid}; stop it or choose another data directory.`,
      );
    } finally {
      // The whole group: the command flock(1) runs inherits its locked descriptor.
      process.kill(-holder.pid!, 'SIGKILL');
    }
    await new Promise((resolve) => holder.once('close', resolve));
    // Gone with its holder: no pid check, no clean-up needed.
    const db = await openDatabase({ dataDir });
    await db.close();
  }, 120_000);
});
