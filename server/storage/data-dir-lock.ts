import { spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { StorageError } from './storage-error.js';

/**
 * PGlite is a single-process database: two processes on one directory corrupt it. The guard is
 * an exclusive flock(2) on `<dataDir>.lock`, which the kernel drops the moment its holder dies
 * (a `kill -9`, a zombie nobody reaped yet, a reused pid: none of them keeps it), so a
 * supervisor's restart succeeds at once while a second live process is refused. Node has no
 * flock, so flock(1) (util-linux or BusyBox) takes it on our own descriptor, handed over as its
 * fd 3, and exits: the lock belongs to the open file, which this process keeps open until close.
 * The file holds the owner's pid, only to name it in the refusal.
 */
const heldLocks = new Set<string>();

export async function lockDataDir(dataDir: string): Promise<() => Promise<void>> {
  const lockPath = `${dataDir}.lock`;
  if (heldLocks.has(lockPath)) {
    throw new StorageError(
      `The data directory ${dataDir} is already open in this process; close it first.`,
      'data_dir_in_use',
    );
  }
  let handle: FileHandle;
  try {
    // Node opens with O_CLOEXEC: children the controller starts later never inherit the lock.
    handle = await open(lockPath, constants.O_RDWR | constants.O_CREAT, 0o600);
  } catch (error) {
    throw new StorageError(
      `Cannot use the data directory ${dataDir} (${(error as NodeJS.ErrnoException).code ?? 'error'} on ${lockPath}); check its permissions or set WRTFLEET_DATA_DIR.`,
      'data_dir_unusable',
      { cause: error },
    );
  }
  try {
    const outcome = await flockExclusive(handle.fd);
    if (outcome.kind === 'busy') {
      const pid = Number((await handle.readFile('utf8').catch(() => '')).trim());
      const owner = Number.isInteger(pid) && pid > 0 ? `process ${pid}` : 'another process';
      throw new StorageError(
        `The data directory ${dataDir} is in use by ${owner}; stop it or choose another data directory.`,
        'data_dir_in_use',
      );
    }
    if (outcome.kind === 'failed') {
      throw new StorageError(
        `Cannot lock the data directory ${dataDir} (${outcome.reason}); install flock(1) (util-linux or BusyBox) or set DATABASE_URL.`,
        'data_dir_unusable',
      );
    }
    await handle.truncate(0);
    await handle.write(String(process.pid), 0);
  } catch (error) {
    await handle.close().catch(() => {});
    throw error;
  }
  heldLocks.add(lockPath);
  // The file stays: removing it would let a starter lock the unlinked file while the next one
  // creates and locks a new one, two owners at once.
  return async () => {
    try {
      await handle.truncate(0);
    } finally {
      await handle.close();
      heldLocks.delete(lockPath);
    }
  };
}

type FlockOutcome = { kind: 'locked' } | { kind: 'busy' } | { kind: 'failed'; reason: string };

function flockExclusive(fd: number): Promise<FlockOutcome> {
  return new Promise((resolve) => {
    const child = spawn('flock', ['-n', '-x', '3'], { stdio: ['ignore', 'ignore', 'pipe', fd] });
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', (error: NodeJS.ErrnoException) =>
      resolve({ kind: 'failed', reason: error.code === 'ENOENT' ? 'no flock(1) on the PATH' : error.message }),
    );
    child.on('close', (code, signal) => {
      if (code === 0) resolve({ kind: 'locked' });
      // -n: a lock held elsewhere is exit 1 and says nothing; any other failure explains itself.
      else if (code === 1 && stderr.trim() === '') resolve({ kind: 'busy' });
      else resolve({ kind: 'failed', reason: `flock(1): ${stderr.trim() || `exit ${code ?? signal}`}` });
    });
  });
}
