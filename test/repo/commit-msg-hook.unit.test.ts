/**
 * The repository's commit-msg hook (.githooks/commit-msg) and its installation: a subject of
 * at most 72 characters, then a blank line; `npm install` (the `prepare` script) points git at
 * the hooks folder.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const HOOK = join(ROOT, '.githooks', 'commit-msg');
const dir = mkdtempSync(join(tmpdir(), 'wf-commit-msg-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function hook(message: string): { code: number | null; stderr: string } {
  const file = join(dir, 'COMMIT_EDITMSG');
  writeFileSync(file, message);
  const r = spawnSync('sh', [HOOK, file], { encoding: 'utf8' });
  return { code: r.status, stderr: r.stderr };
}

describe('commit-msg hook', () => {
  it('accepts a 72-character subject with a body after a blank line, and one without a body', () => {
    expect(hook(`${'a'.repeat(72)}\n\nWhy it changed.\n`).code).toBe(0);
    expect(hook('Short subject\n').code).toBe(0);
  });

  it('counts characters, not bytes: 72 non-ASCII characters pass', () => {
    expect(hook(`${'é'.repeat(72)}\n`).code).toBe(0);
  });

  it('refuses a 73-character subject and says how long it was', () => {
    const r = hook(`${'a'.repeat(73)}\n\nbody\n`);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/73 characters; at most 72/);
  });

  it('refuses a body that starts on the second line, and an empty subject', () => {
    expect(hook('Subject\nbody right below\n').code).toBe(1);
    expect(hook('# only a comment\n\n').code).toBe(1);
  });

  it("ignores git's comment lines before the subject", () => {
    expect(hook(`# Please enter the commit message\n${'b'.repeat(70)}\n`).code).toBe(0);
  });

  it('is what `npm install` installs: prepare points core.hooksPath at .githooks', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts.prepare).toContain('git config core.hooksPath .githooks');
    const repo = mkdtempSync(join(tmpdir(), 'wf-hooks-repo-'));
    try {
      execFileSync('git', ['init', '-q', repo]);
      execFileSync('sh', ['-c', pkg.scripts.prepare!], { cwd: repo });
      expect(execFileSync('git', ['config', 'core.hooksPath'], { cwd: repo, encoding: 'utf8' }).trim()).toBe(
        '.githooks',
      );
    } finally {
      rmSync(repo, { recursive: true, force: true });
    }
  });
});
