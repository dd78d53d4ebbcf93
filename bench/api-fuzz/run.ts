/**
 * The API fuzz test's long run: requests derived from the controller's OpenAPI document, valid
 * and mutated, with an admin token, against a real controller on a fresh database. Every
 * answer must be a non-5xx within 5 s, and every 4xx the documented error shape
 * (test/support/api-fuzz-run.ts). Prints the requests tried by status class and status.
 *
 *   API_FUZZ_RUNS=20000 API_FUZZ_SEED=1 API_FUZZ_BACKEND=postgres|pglite \
 *     node --import tsx bench/api-fuzz/run.ts
 *
 * Exits 1 on the first request that breaks the contract, naming it.
 */
import { fuzzApi } from '../../test/support/api-fuzz-run.js';
import { seedFuzzFleet } from '../../test/support/api-fuzz-seed.js';
import { startTestController } from '../../test/support/controller.js';
import { createPgliteDatabase, createPostgresDatabase } from '../../test/support/databases.js';

const runs = Number(process.env.API_FUZZ_RUNS ?? 10_000);
const seed = Number(process.env.API_FUZZ_SEED ?? Date.now() % 2 ** 31);
const backend = process.env.API_FUZZ_BACKEND ?? 'postgres';
if (!Number.isInteger(runs) || runs < 1) throw new Error('API_FUZZ_RUNS must be a positive integer');

const db = await (backend === 'pglite' ? createPgliteDatabase() : createPostgresDatabase());
const { controller, token } = await startTestController(db);
try {
  const known = await seedFuzzFleet(controller, token);
  const started = Date.now();
  const outcome = await fuzzApi({ baseUrl: controller.httpUrl, token, runs, seed, known });
  const seconds = (Date.now() - started) / 1000;
  console.log(JSON.stringify({ backend, seed, runs, seconds, ...outcome }, null, 2));
  if (outcome.failure) process.exitCode = 1;
} finally {
  await controller.close();
  await db.drop();
}
