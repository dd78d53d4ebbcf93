import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { TestDatabase } from './databases.js';

const repo = path.resolve(import.meta.dirname, '../..');
const REDIS_URL = process.env.WRTFLEET_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * A controller in a process of its own (`server/main.ts`), on the test database and Redis,
 * for tests that kill it with a signal. Heartbeats every second, warnings only; `env` adds to
 * that or overrides it (WRTFLEET_INSECURE_AGENTS, the Redis prefix of replicas sharing a bus).
 */
export function spawnController(
  db: TestDatabase,
  ports: { http: number; grpc: number },
  env: Record<string, string> = {},
): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    cwd: repo,
    env: {
      ...process.env,
      DATABASE_URL: db.databaseUrl,
      REDIS_URL,
      WRTFLEET_DATA_DIR: db.dataDir,
      WRTFLEET_HTTP_PORT: String(ports.http),
      WRTFLEET_GRPC_PORT: String(ports.grpc),
      WRTFLEET_HEARTBEAT_SECONDS: '1',
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: 'ignore',
  });
}
