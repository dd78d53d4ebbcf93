import { defineConfig } from 'vitest/config';

/**
 * The router lab tier (`npm run test:lab`; the images are built on first use, or by `npm run lab -- build`):
 * real 32-bit MIPS kernels under QEMU, each test file booting its guest once. Files run one at a
 * time: an emulated guest takes a whole core, and the checks compare timings inside one guest.
 */
export default defineConfig({
  test: {
    include: ['test/lab/**/*.test.ts'],
    fileParallelism: false,
    globalSetup: ['test/lab/global-setup.ts'],
    testTimeout: 300_000,
    // A guest's boot (and, when the cache is cold, its image build) happens in beforeAll.
    hookTimeout: 900_000,
    pool: 'forks',
  },
});
