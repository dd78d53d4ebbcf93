import { defineConfig } from 'vitest/config';

/**
 * The router lab tier (`npm run test:lab`, and `npm test` after the suite): one file per guest,
 * each booting its guest once (the image is built on first use, or by `npm run lab -- build`).
 * The two guests run side by side: an emulated guest takes one core, and no check compares
 * timings across guests.
 */
export default defineConfig({
  test: {
    include: ['test/lab/**/*.test.ts'],
    maxWorkers: 2,
    globalSetup: ['test/lab/global-setup.ts'],
    // The boot (and, with a cold cache, the image build: the mips kernel is compiled) is in beforeAll.
    hookTimeout: 60 * 60_000,
    pool: 'forks',
  },
});
