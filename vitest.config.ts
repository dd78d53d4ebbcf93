import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Kernel, database and network tests share one machine (2 cores): run files one at a time
    // so namespaces, ports and timings do not fight each other.
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    execArgv: ['--experimental-wasm-modules'],
  },
});
