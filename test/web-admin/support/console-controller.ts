import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { defaultFixturesDir, fixtureModels } from '../../../agent/sim/fixtures.js';
import { startSimulatedFleet, stopFleet } from '../../../agent/sim/simulated-fleet.js';
import type { SimulatedRouter } from '../../../agent/sim/simulated-router.js';
import type { ControllerConfig } from '../../../server/config.js';
import { DEFAULT_CONSOLE_DIR } from '../../../server/console/console-build.js';
import { consoleBuildIsCurrent } from '../../../server/console/console-source.js';
import type { Controller } from '../../../server/controller.js';
import { createPgliteDatabase, type TestDatabase } from '../../support/databases.js';
import { eventually, startTestController } from '../../support/controller.js';

const run = promisify(execFile);
const repoRoot = path.resolve(import.meta.dirname, '../../..');

/** The demo's fleet: four simulated routers of each of the three captured models. */
export const DEMO_ROUTERS = 12;

/**
 * Builds the console when this checkout has no build of its current sources (npm install
 * normally made it), as `npm run web:build` does: in a process of its own, since under the
 * test runner NODE_ENV is "test" and React would be built for development.
 */
export async function ensureConsoleBuilt(): Promise<void> {
  if (consoleBuildIsCurrent(DEFAULT_CONSOLE_DIR)) return;
  const env = { ...process.env, NODE_ENV: 'production' };
  await run(process.execPath, ['--import', 'tsx', 'web-admin/scripts/build.ts'], {
    cwd: repoRoot,
    env,
    timeout: 300_000,
  });
}

export interface ConsoleController {
  controller: Controller;
  /** http://127.0.0.1:<port>, where the console is served at /. */
  url: string;
  /** An admin API token (owner "tester"). */
  token: string;
  fleet: SimulatedRouter[];
  logs: string[];
  close(): Promise<void>;
}

/**
 * A real controller serving the console build, on a fresh embedded database, with the
 * simulated fleet of the demo connected (MIPS and ARM routers cannot exist here: each is a
 * captured router file tree behind a real agent stream).
 */
export async function startConsoleController(
  options: { routersPerModel?: number; config?: Partial<ControllerConfig> } = {},
): Promise<ConsoleController> {
  await ensureConsoleBuilt();
  const db: TestDatabase = await createPgliteDatabase();
  const perModel = options.routersPerModel ?? DEMO_ROUTERS / 3;
  let started: Awaited<ReturnType<typeof startTestController>> | undefined;
  let fleet: SimulatedRouter[] = [];
  try {
    started = await startTestController(db, {
      console: { distDir: DEFAULT_CONSOLE_DIR, buildWhenMissing: false },
      ...options.config,
    });
    const { controller } = started;
    const roots = await fixtureModels(defaultFixturesDir());
    fleet = await startSimulatedFleet({
      controller: controller.grpcAddress,
      fixtureRoots: roots,
      perModel,
      reconnect: { jitterWindowMs: 200 },
    });
    const expected = roots.length * perModel;
    await eventually(async () => controller.gateway.sessions.size === expected, 30_000, `${expected} agents online`);
  } catch (err) {
    await stopFleet(fleet);
    await started?.controller.close();
    await db.drop();
    throw err;
  }
  const { controller, token, logs } = started;
  return {
    controller,
    url: controller.httpUrl,
    token,
    fleet,
    logs,
    async close() {
      await stopFleet(fleet);
      await controller.close();
      await db.drop();
    },
  };
}
