import { defineConfig } from 'vitest/config';

/**
 * The compatibility tier's checks (`test/compat/*.compat.ts`), which test/compat/run.sh runs on
 * each other Node line with that line's node; named apart from `*.test.ts` so the main suite,
 * which already covers the same paths on this machine's Node, does not run them twice.
 */
export default defineConfig({
  test: {
    include: ['test/compat/**/*.compat.ts'],
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    execArgv: ['--experimental-wasm-modules'],
  },
});
