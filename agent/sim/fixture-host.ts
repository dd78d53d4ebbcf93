import { readFile } from 'node:fs/promises';
import { join, normalize } from 'node:path';
import type { CommandResult, RouterHost } from '../../core/host/router-host.js';

/**
 * A simulated router: a captured file tree (fixtures/routers/<model>) standing in
 * for a real device that cannot exist here (a MIPS router). Files are read below the root;
 * commands are answered from `commands/<argv joined by '-'>` (e.g. `uname -m` reads
 * `commands/uname-m`, `ubus call system board` reads `commands/ubus-call-system-board.json`).
 * A command with no capture exits 127, as a missing binary would. Writes are refused: a
 * fixture is read-only evidence.
 */
export class FixtureHost implements RouterHost {
  readonly description: string;

  constructor(private readonly root: string) {
    this.description = `fixture ${root}`;
  }

  private resolve(path: string): string {
    // normalize() folds '..' so a path can never climb out of the fixture root.
    return join(this.root, normalize(`/${path}`));
  }

  async run(argv: string[]): Promise<CommandResult> {
    const base = join(
      this.root,
      'commands',
      argv
        .join('-')
        .replace(/[^A-Za-z0-9_.-]/g, '_')
        .replace(/-+/g, '-'),
    );
    for (const candidate of [base, `${base}.json`, `${base}.txt`]) {
      try {
        return { code: 0, stdout: await readFile(candidate, 'utf8'), stderr: '' };
      } catch {
        /* try the next spelling */
      }
    }
    return { code: 127, stdout: '', stderr: `${argv[0]}: not found (no capture in fixture)` };
  }

  async readFile(path: string): Promise<string | null> {
    try {
      return await readFile(this.resolve(path), 'utf8');
    } catch {
      return null;
    }
  }

  async readBinary(path: string): Promise<Buffer | null> {
    try {
      return await readFile(this.resolve(path));
    } catch {
      return null;
    }
  }

  async writeFile(path: string): Promise<void> {
    throw new Error(`fixture host is read-only: refused write to ${path}`);
  }

  async close(): Promise<void> {}
}
