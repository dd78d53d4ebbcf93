/**
 * `npm run server`: one controller replica, configured from the environment
 * (see server/config.ts). Exits with one clear sentence when it cannot start.
 */
import { ConfigError, configFromEnv } from './config.js';
import { createLogger, startController } from './controller.js';
import { StorageError } from './storage/index.js';

const config = (() => {
  try {
    return configFromEnv();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`wrtfleet: ${err.message}`);
      process.exit(2);
    }
    throw err;
  }
})();
const logger = createLogger(config.logLevel);

try {
  const controller = await startController(config, logger);
  const shutdown = (signal: string) => {
    logger.info({ signal }, 'shutting down');
    controller.close().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));
} catch (err) {
  if (err instanceof StorageError || (err as NodeJS.ErrnoException).code === 'EADDRINUSE') {
    console.error(`wrtfleet: ${(err as Error).message}`);
    process.exit(1);
  }
  throw err;
}
