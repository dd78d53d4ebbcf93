import { pino } from 'pino';
import type { ControllerConfig } from '../../server/config.js';
import { startController, type Controller } from '../../server/controller.js';
import type { TestDatabase } from './databases.js';

export function testConfig(db: TestDatabase, overrides: Partial<ControllerConfig> = {}): ControllerConfig {
  return {
    databaseUrl: db.databaseUrl,
    dataDir: db.dataDir,
    httpHost: '127.0.0.1',
    httpPort: 0,
    grpcHost: '127.0.0.1',
    grpcPort: 0,
    heartbeatIntervalSeconds: 1,
    missedHeartbeatsBeforeOffline: 3,
    autoRegister: true,
    logLevel: 'silent',
    ...overrides,
  };
}

/** A controller on free loopback ports; logs are kept in memory for assertions. */
export async function startTestController(db: TestDatabase, overrides: Partial<ControllerConfig> = {}) {
  const lines: string[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(line) });
  const controller: Controller = await startController(testConfig(db, overrides), logger);
  return { controller, logs: lines };
}

/** Polls until `check` returns a truthy value or the deadline passes. */
export async function eventually<T>(check: () => Promise<T | undefined | null | false>, timeoutMs = 10_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value) return value;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${String(last)}` : ''}`);
}
