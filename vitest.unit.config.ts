import { defineConfig } from 'vitest/config';

/**
 * `npm run test:unit`: the tests of pure modules (plan, profile spec, facts parsing, capability
 * table, canonical JSON, counters parsing, telemetry deltas and windows, the bundle's section loader,
 * the repository layout, the install policy, the console's own logic).
 * No root, no kernel, no PostgreSQL or Redis: seconds on a laptop. `npm test` runs them too,
 * with everything else.
 */
export const UNIT_TESTS = [
  'test/core/**/*.test.ts',
  'test/agent/enrollment/controller-server-name.test.ts',
  'test/agent/datapath/counters.test.ts',
  'test/agent/iso-time.test.ts',
  'test/agent/apply/state-store.test.ts',
  'test/agent/packaging/section-loader.test.ts',
  'test/agent/apply/transaction-transcripts.test.ts',
  'test/server/onboarding/packages-transcripts.test.ts',
  'test/repo/layout.test.ts',
  'test/repo/import-cycles.test.ts',
  'test/repo/install-policy.test.ts',
  'test/repo/commit-msg-hook.test.ts',
  'test/web-admin/logic/**/*.test.ts',
  'test/server/telemetry/counter-deltas.test.ts',
  'test/server/telemetry/series-window.test.ts',
];

export default defineConfig({
  test: {
    include: UNIT_TESTS,
    testTimeout: 30_000,
  },
});
