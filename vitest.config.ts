import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The router lab's guests are a tier of their own (vitest.lab.config.ts), after the images are built.
    exclude: ['test/lab/**', '**/node_modules/**'],
    // Kernel, database and network tests share one machine (2 cores): run files one at a time
    // so namespaces, ports and timings do not fight each other.
    fileParallelism: false,
    // One worker process for every file: each file importing the server anew (Prisma, gRPC,
    // Fastify) cost ~2 s, 4-5 min of a CI run. Tests own what they start and stop it.
    isolate: false,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    execArgv: ['--experimental-wasm-modules'],
  },
});
