import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Controller } from '../../server/controller.js';
import { fuzzApi } from '../support/api-fuzz-run.js';
import { seedFuzzFleet } from '../support/api-fuzz-seed.js';
import { startTestController } from '../support/controller.js';
import { createPgliteDatabase, createPostgresDatabase, type TestDatabase } from '../support/databases.js';

/**
 * Bounded so both backends take about a minute in `npm test`; bench/api-fuzz/run.ts runs longer.
 * Operations are drawn at random: the runs must stay well above the operations (56) times
 * their logarithm, so every operation is hit.
 */
const BACKEND_RUNS = [
  ['PostgreSQL', createPostgresDatabase, 800],
  ['embedded PGlite', createPgliteDatabase, 400],
] as const;

describe.each(BACKEND_RUNS)(
  'the REST API under requests derived from its OpenAPI document on %s',
  (name, createDb, runs) => {
    let db: TestDatabase;
    let controller: Controller;
    let token: string;
    let known: Record<string, unknown[]>;

    beforeAll(async () => {
      db = await createDb();
      ({ controller, token } = await startTestController(db));
      known = await seedFuzzFleet(controller, token);
    });
    afterAll(async () => {
      await controller?.close();
      await db?.drop();
    });

    it(`${runs} valid and mutated requests over every operation: no 5xx, no hang, every 4xx the documented error`, async () => {
      const outcome = await fuzzApi({ baseUrl: controller.httpUrl, token, runs, known });
      console.log(`api fuzz on ${name}: ${JSON.stringify(outcome)}`);
      expect(outcome.failure).toBeUndefined();
      expect(outcome.sent).toBe(runs);
      expect(outcome.operations).toBeGreaterThanOrEqual(30);
      expect(outcome.routesHit).toBe(outcome.operations);
      // Valid requests must get through as well as mutated ones get refused.
      expect(outcome.byClass['2xx'] ?? 0).toBeGreaterThan(runs * 0.05);
      expect(outcome.byClass['4xx'] ?? 0).toBeGreaterThan(runs * 0.5);
      expect((await fetch(`${controller.httpUrl}/healthz`)).status).toBe(200);
    }, 240_000);
  },
);
