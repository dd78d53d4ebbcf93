/**
 * The console of another commit, built for a side-by-side benchmark: the commit's tree is
 * extracted (git archive) under .tmp/ in this checkout, so its imports resolve to this
 * checkout's node_modules, and built there by its own `web-admin/scripts/build.ts` (budget
 * check and precompressed files included, as the controller serves a real build).
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const repoRoot = path.resolve(import.meta.dirname, '..');

/** Builds (once per commit) the console of `commit`; returns its dist directory. */
export async function buildBaselineConsole(commit: string): Promise<string> {
  const { stdout } = await run('git', ['rev-parse', '--short=12', `${commit}^{commit}`], { cwd: repoRoot });
  const tree = path.join(repoRoot, '.tmp', `console-baseline-${stdout.trim()}`);
  const dist = path.join(tree, 'web-admin', 'dist');
  if (existsSync(path.join(dist, 'index.html'))) return dist;
  await rm(tree, { recursive: true, force: true });
  await mkdir(tree, { recursive: true });
  await run('bash', ['-c', `git archive ${stdout.trim()} web-admin server/console core | tar -x -C "${tree}"`], {
    cwd: repoRoot,
  });
  await run(process.execPath, ['--import', 'tsx', 'web-admin/scripts/build.ts'], {
    cwd: tree,
    env: { ...process.env, NODE_ENV: 'production' },
    timeout: 300_000,
  });
  return dist;
}
