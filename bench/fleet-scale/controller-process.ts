/**
 * The controller of the fleet-scale bench as production runs it: its own process
 * (`server/launch.mjs server/main.ts`, as `npm run server`), its log scanned for the streams it
 * closes and why; and the REST calls the bench makes of it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { TestDatabase } from '../../test/support/databases.js';

export const repo = path.resolve(import.meta.dirname, '../..');
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function until<T>(
  check: () => Promise<T | undefined | false>,
  timeoutMs: number,
  what: string,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const v = await check().catch(() => undefined);
    if (v) return v;
    await sleep(100);
  }
  throw new Error(`timed out waiting for ${what}`);
}

export interface Controller {
  process: ChildProcess;
  url: string;
  grpcPort: number;
  token: string;
}

export class ControllerProcess {
  private readonly env: Record<string, string>;
  private log = createWriteStream(process.env.WF_BENCH_KEEP_LOG ?? '/dev/null', { flags: 'a' });
  /** Every controller log line at warn or above, and "closing agent stream" lines, by reason. */
  readonly closes = new Map<string, number>();
  current: Controller | undefined;

  constructor(
    private readonly db: TestDatabase,
    readonly httpPort: number,
    readonly grpcPort: number,
    /** Replicas of one installation share it (the job queue and the fleet bus). */
    redisPrefix: string,
    private readonly knobs: { redisUrl: string; tls: boolean },
    extraEnv: Record<string, string> = {},
  ) {
    this.env = {
      ...extraEnv,
      DATABASE_URL: db.databaseUrl!,
      REDIS_URL: knobs.redisUrl,
      WRTFLEET_REDIS_PREFIX: redisPrefix,
      WRTFLEET_DATA_DIR: db.dataDir,
      WRTFLEET_HTTP_PORT: String(httpPort),
      WRTFLEET_GRPC_PORT: String(grpcPort),
      LOG_LEVEL: 'info',
      ...(knobs.tls ? {} : { WRTFLEET_INSECURE_AGENTS: 'true' }),
      ...Object.fromEntries(
        (process.env.WF_BENCH_SERVER_ENV ?? '')
          .split(/\s+/)
          .filter(Boolean)
          .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
      ),
    };
  }

  async start(): Promise<Controller> {
    const flags = (process.env.WF_BENCH_SERVER_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean);
    const child = spawn(
      process.execPath,
      [
        ...flags,
        '--experimental-wasm-modules',
        '--disable-warning=DEP0123',
        '--enable-source-maps',
        'server/launch.mjs',
        'server/main.ts',
      ],
      { cwd: repo, env: { ...process.env, ...this.env }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let partial = '';
    const onData = (chunk: Buffer) => {
      this.log.write(chunk);
      const text = partial + chunk.toString('utf8');
      const lines = text.split('\n');
      partial = lines.pop()!;
      for (const line of lines) {
        if (!line.includes('"closing agent stream"')) continue;
        const code = /"code":"(\w+)"/.exec(line)?.[1] ?? '?';
        const reason = /"reason":"([^"]{0,80})/.exec(line)?.[1] ?? '?';
        const key = `${code}: ${reason}`;
        this.closes.set(key, (this.closes.get(key) ?? 0) + 1);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    const url = `http://127.0.0.1:${this.httpPort}`;
    await until(async () => (await fetch(`${url}/healthz`)).ok, 120_000, 'controller');
    const token = (await readFile(path.join(this.db.dataDir, 'admin-token'), 'utf8')).trim();
    this.current = { process: child, url, grpcPort: this.grpcPort, token };
    return this.current;
  }

  async kill(signal: NodeJS.Signals): Promise<void> {
    const c = this.current;
    if (!c) return;
    this.current = undefined;
    const exited = new Promise((r) => c.process.once('exit', r));
    c.process.kill(signal);
    await exited;
  }
}

export async function api<T = unknown>(c: Controller, route: string, init: { method?: string; body?: unknown } = {}) {
  const res = await fetch(`${c.url}${route}`, {
    method: init.method ?? 'GET',
    headers: {
      authorization: `Bearer ${c.token}`,
      ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${route}: ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
}

/** This replica's agent streams, from /metrics. */
export async function connectedAgents(c: Controller): Promise<number> {
  const res = await fetch(`${c.url}/metrics`, { headers: { authorization: `Bearer ${c.token}` } });
  const m = /^wrtfleet_connected_agents (\d+)/m.exec(await res.text());
  return m ? Number(m[1]) : 0;
}
