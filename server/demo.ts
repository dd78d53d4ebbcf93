/**
 * `npm run demo`: the controller on the embedded default (PGlite in ./data, jobs
 * in-process) plus a simulated fleet, one agent per captured router model times
 * WRTFLEET_DEMO_PER_MODEL (default 4). Ctrl-C stops the fleet, then the controller.
 */
import path from 'node:path';
import { defaultFixturesDir, fixtureModels, startSimulatedFleet, stopFleet } from '../agent/index.js';
import { ConfigError, configFromEnv } from './config.js';
import { createLogger, startController } from './controller.js';
import { enrollThroughController } from './pki/local-enrollment.js';
import { StorageError } from './storage/index.js';
import { addDemoImages } from './firmware/demo-images.js';

const perModel = Number(process.env.WRTFLEET_DEMO_PER_MODEL ?? 4);
try {
  const config = configFromEnv({ LOG_LEVEL: 'warn', ...process.env });
  const controller = await startController(config, createLogger(config.logLevel));
  // The console's URL comes first, before the fleet takes its few seconds to enrol and connect.
  const tokenFile = path.resolve(config.dataDir, 'admin-token');
  console.log(`
wrtfleet demo: controller on ${controller.db.kind} (${controller.db.location})
  console                ${controller.httpUrl}/  (sign in with an account: npx wrtfleet accounts create alice --role admin)
  API docs (Swagger UI)  ${controller.httpUrl}/docs
  OpenAPI document       ${controller.httpUrl}/docs/json
  routers                ${controller.httpUrl}/v1/routers
  agents' gRPC endpoint  ${controller.grpcAddress}
  admin API token        in ${tokenFile} (mode 0600; Swagger UI: Authorize)
  try: curl -H "Authorization: Bearer $(cat ${tokenFile})" ${controller.httpUrl}/v1/routers
`);
  // One sysupgrade image per model, for an upgrade tried from the console (simulated routers only).
  await addDemoImages(controller.images);
  const roots = await fixtureModels(defaultFixturesDir());
  const fleetStopping = new AbortController();
  const fleet = await startSimulatedFleet({
    controller: controller.grpcAddress,
    fixtureRoots: roots,
    perModel,
    // Same path as real agents: a single-use enrollment token per router, CSR over TLS, mTLS stream.
    credentialsFor: controller.security.pki
      ? (identity, name) =>
          enrollThroughController(controller.security, controller.grpcAddress, { identity, name }, 'system:demo')
      : undefined,
    // A demo restart should show the fleet back within seconds, not a production jitter window.
    reconnect: { jitterWindowMs: 2_000, maxDelayMs: 5_000 },
    // One router that cannot enroll is reported and retried; the controller and the others go on.
    onEnrollFailure: (identity, error, retryInMs) =>
      console.error(`router ${identity}: enrollment failed (${error.message}); retrying in ${retryInMs / 1000} s`),
    // A decommissioned one (or one whose certificate was revoked) is told once and stops dialling.
    onRefused: (identity, message) => console.error(`router ${identity}: ${message}`),
    signal: fleetStopping.signal,
  });
  console.log(`${fleet.length} of ${roots.length * perModel} simulated routers started. Press Ctrl-C to stop.`);
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    console.log('\nstopping the simulated fleet and the controller...');
    fleetStopping.abort();
    await stopFleet(fleet);
    await controller.close();
    console.log('stopped.');
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
} catch (err) {
  if (
    err instanceof StorageError ||
    err instanceof ConfigError ||
    (err as NodeJS.ErrnoException).code === 'EADDRINUSE'
  ) {
    console.error(`wrtfleet demo: ${(err as Error).message}`);
    process.exit(1);
  }
  throw err;
}
