/**
 * Start-up of the demo (the bar: the demo's routers at GET /v1/routers within 10 s of
 * `npm run demo` on a fresh data directory), in one run so the ratios hold on a noisy machine:
 * rounds alternate between `npm run demo` (server/launch.mjs: an esbuild bundle of the repo's
 * modules) and the same entry point under `node --import tsx`, each on a new data directory.
 *
 * Run: npm run -s bench:startup   (knobs: WF_BENCH_ROUNDS (5))
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../test/support/ports.js';
import { median } from '../statistics.js';

const repo = path.resolve(import.meta.dirname, '../..');
const ROUNDS = Number(process.env.WF_BENCH_ROUNDS ?? 5);
const ROUTERS = 12;

const variants: Record<string, string[]> = {
  'npm run demo (launch.mjs bundle)': ['npm', 'run', '-s', 'demo'],
  'node --import tsx server/demo.ts': [
    process.execPath,
    '--experimental-wasm-modules',
    '--disable-warning=DEP0123',
    '--import',
    'tsx',
    'server/demo.ts',
  ],
};

/** Milliseconds from spawn to every demo router listed online. */
async function timeToOnline(command: string[]): Promise<number> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'wf-bench-demo-'));
  const [httpPort, grpcPort] = [await freePort(), await freePort()];
  const started = performance.now();
  const child = spawn(command[0]!, command.slice(1), {
    cwd: repo,
    env: {
      ...process.env,
      WRTFLEET_DATA_DIR: dataDir,
      WRTFLEET_HTTP_PORT: String(httpPort),
      WRTFLEET_GRPC_PORT: String(grpcPort),
    },
    stdio: 'ignore',
    detached: true,
  });
  try {
    for (;;) {
      if (performance.now() - started > 60_000)
        throw new Error(`${command.join(' ')}: the fleet was not online after 60 s`);
      try {
        const token = (await readFile(path.join(dataDir, 'admin-token'), 'utf8')).trim();
        const res = await fetch(`http://127.0.0.1:${httpPort}/v1/routers?limit=100`, {
          headers: { authorization: `Bearer ${token}` },
        });
        const body = (await res.json()) as { items?: { status: string }[] };
        if ((body.items ?? []).filter((r) => r.status === 'online').length >= ROUTERS)
          return performance.now() - started;
      } catch {
        /* not up yet */
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    try {
      process.kill(-child.pid!, 'SIGINT');
    } catch {
      /* gone */
    }
    await new Promise((r) => child.once('close', r));
    await rm(dataDir, { recursive: true, force: true });
  }
}

const samples: Record<string, number[]> = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, command] of Object.entries(variants)) samples[name]!.push(await timeToOnline(command));
}
const rows = Object.entries(samples).map(([variant, xs]) => ({
  variant,
  'median s': +(median(xs) / 1000).toFixed(2),
  'min s': +(Math.min(...xs) / 1000).toFixed(2),
  'max s': +(Math.max(...xs) / 1000).toFixed(2),
}));
console.log(
  `demo start on a fresh data directory to ${ROUTERS} routers online at GET /v1/routers (${ROUNDS} alternating rounds; bar: 10 s)`,
);
console.table(rows);
