/**
 * The layout the architecture promises, checked on every file of the repository: nothing reaches
 * outside the repository, and no hand-written source file grows past the size where it holds more
 * than one concern. Which folder may import which is ESLint's to check (eslint.config.js,
 * import-x/no-restricted-paths), import cycles test/repo/import-cycles.unit.test.ts's.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const repo = path.resolve(import.meta.dirname, '../..');
const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
  cwd: repo,
  encoding: 'utf8',
})
  .split('\n')
  // Generated: the gRPC contract's code, the Prisma client, the console's API types and spec check.
  .filter(
    (f) =>
      f &&
      !f.startsWith('proto/gen/') &&
      !f.startsWith('prisma/generated/') &&
      f !== 'client/src/schema.d.ts' &&
      f !== 'web-admin/src/pages/profiles/spec-validator.generated.js' &&
      !f.startsWith('web-admin/dist/'),
  )
  .filter((f) => {
    try {
      readFileSync(path.join(repo, f));
      return true;
    } catch {
      return false; // deleted in the working tree
    }
  });

/** Past this a file holds more than one concern: cut it at its seam. */
const MAX_LINES = 400;

const sources = files.filter(
  (f) => /\.(ts|tsx|mts|mjs|cjs|js|c|h|sh|proto|css)$/.test(f) && !f.startsWith('prisma/migrations/'),
);

describe('the repository layout', () => {
  it('no file refers to a place outside the repository', () => {
    // Spelled in pieces so that this file does not match itself.
    const outside = ['..' + '/shared', 'DOMAIN.md ' + '§', 'shared/' + 'fixtures'];
    const hits = files
      .filter((f) => !f.startsWith('fixtures/') && !/\.(png|o|gz|bin)$/.test(f))
      .flatMap((f) => {
        const text = readFileSync(path.join(repo, f), 'utf8');
        return outside.filter((s) => text.includes(s)).map((s) => `${f}: ${s}`);
      });
    expect(hits).toEqual([]);
  });

  it(`no hand-written source file is over ${MAX_LINES} lines`, () => {
    const long = sources
      .map((f) => ({ f, lines: readFileSync(path.join(repo, f), 'utf8').split('\n').length - 1 }))
      .filter(({ lines }) => lines > MAX_LINES)
      .map(({ f, lines }) => `${f}: ${lines}`);
    expect(long).toEqual([]);
  });
});
