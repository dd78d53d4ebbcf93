import { defineConfig } from 'vitest/config';

/**
 * `npm run test:unit`: every test named `*.unit.test.ts`, the tests that need nothing but
 * `npm install`: no root, kernel feature, network namespace, database (PostgreSQL or PGlite),
 * Redis, browser, ssh, controller or child server, and no timing that a loaded machine could
 * upset. Seconds on a laptop. The name is the rule (test/README.md), so a new pure test joins the
 * tier by being named so; `npm test` runs them too, once, with everything else (`*.test.ts`).
 */
export default defineConfig({
  test: {
    include: ['test/**/*.unit.test.ts'],
    testTimeout: 30_000,
  },
});
