import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The repository's captured router trees (fixtures/README.md says where each came from).
 * Computed on use: the agent bundle's `agent fleet` gets its trees from --fixtures instead.
 */
export function fixturesDir(): string {
  return fileURLToPath(new URL('../../fixtures', import.meta.url));
}

/** The extra trees the facts and plan tests use: detection beyond the fleet's three models. */
export function extraFixturesDir(): string {
  return join(fixturesDir(), 'routers-extra');
}

/** The router trees a simulated fleet runs: fixtures/routers, or $WRTFLEET_FIXTURES. */
export function defaultFixturesDir(): string {
  return process.env.WRTFLEET_FIXTURES ?? join(fixturesDir(), 'routers');
}

/** The model folders (one router tree each) under `dir`, sorted. */
export async function fixtureModels(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  return entries
    .filter((e) => e.isDirectory())
    .map((e) => join(dir, e.name))
    .sort();
}
