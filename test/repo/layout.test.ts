/**
 * The layout the architecture promises, checked on every file of the repository:
 * `core/` is the shared domain (imports neither process), the controller imports the agent
 * only through its one entry point, nothing reaches outside the repository, and no
 * hand-written source file grows past the size where it holds more than one concern.
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
      f !== 'web-admin/src/api/schema.d.ts' &&
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
const sources = files.filter(
  (f) => /\.(ts|tsx|mts|mjs|cjs|js|c|h|sh|proto|css)$/.test(f) && !f.startsWith('prisma/migrations/'),
);

/** Every relative import of a TypeScript or JavaScript file, resolved to a repository path. */
function importsOf(file: string): string[] {
  const text = readFileSync(path.join(repo, file), 'utf8');
  const specs = [...text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+)['"](\.{1,2}\/[^'"]+)['"]/g)];
  return specs.map((m) => path.posix.normalize(path.posix.join(path.posix.dirname(file), m[1]!)));
}

const code = sources.filter((f) => /\.(ts|tsx|mts|mjs|cjs|js)$/.test(f));
const under = (dir: string) => code.filter((f) => f.startsWith(`${dir}/`));

describe('the repository layout', () => {
  it('core/ imports neither the agent nor the controller', () => {
    const crossing = under('core').flatMap((f) =>
      importsOf(f)
        .filter((i) => i.startsWith('agent/') || i.startsWith('server/'))
        .map((i) => `${f} -> ${i}`),
    );
    expect(crossing).toEqual([]);
  });

  it('the agent does not import the controller', () => {
    const crossing = under('agent').flatMap((f) =>
      importsOf(f)
        .filter((i) => i.startsWith('server/'))
        .map((i) => `${f} -> ${i}`),
    );
    expect(crossing).toEqual([]);
  });

  it('the controller imports the agent only through agent/index.ts', () => {
    const crossing = under('server').flatMap((f) =>
      importsOf(f)
        .filter((i) => i.startsWith('agent/') && i !== 'agent/index.js')
        .map((i) => `${f} -> ${i}`),
    );
    expect(crossing).toEqual([]);
    expect(under('server').some((f) => importsOf(f).includes('agent/index.js'))).toBe(true);
  });

  it("the console's browser code reaches the controller only through its REST API", () => {
    const crossing = under('web-admin/src').flatMap((f) =>
      importsOf(f)
        .filter((i) => !i.startsWith('web-admin/src/'))
        .map((i) => `${f} -> ${i}`),
    );
    expect(crossing).toEqual([]);
    expect(under('web-admin/src').length).toBeGreaterThan(10);
  });

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

  it('no hand-written source file is over 500 lines', () => {
    const long = sources
      .map((f) => ({ f, lines: readFileSync(path.join(repo, f), 'utf8').split('\n').length - 1 }))
      .filter(({ lines }) => lines > 500)
      .map(({ f, lines }) => `${f}: ${lines}`);
    expect(long).toEqual([]);
  });
});
