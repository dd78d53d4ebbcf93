/**
 * No import cycles in the hand-written code, type-only imports included: a cycle makes module
 * order matter (a class undefined at import time) and hides a layer that points the wrong way.
 * dpdm resolves the imports as TypeScript does; the generated Prisma client is left out.
 */
import { parseCircular, parseDependencyTree } from 'dpdm';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const repo = path.resolve(import.meta.dirname, '../..');

describe('import cycles', () => {
  it('no module imports itself through others (type-only imports count)', { timeout: 300_000 }, async () => {
    const cwd = process.cwd();
    process.chdir(repo);
    try {
      const tree = await parseDependencyTree(
        [
          'server/**/*.ts',
          'agent/**/*.ts',
          'core/**/*.ts',
          'cli/**/*.ts',
          'client/src/**/*.ts',
          'lab/**/*.ts',
          'web-admin/src/**/*.{ts,tsx}',
        ],
        {
          context: repo,
          transform: false,
          skipDynamicImports: false,
          exclude: /node_modules|prisma\/generated|proto\/gen/,
        },
      );
      const cycles = parseCircular(tree).map((cycle) => cycle.join(' -> '));
      expect(cycles).toEqual([]);
    } finally {
      process.chdir(cwd);
    }
  });
});
