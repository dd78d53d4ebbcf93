/**
 * The agents of the fleet-scale bench: `agent fleet` processes, serials apart, enrolled and
 * connected over mutual TLS (or plaintext); and the wait for their streams to come up.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { connectedAgents, repo, sleep, type Controller } from './controller-process.js';
import { cpuSeconds } from './process-readings.js';

const MODELS = 3; // fixtures/routers holds three captured trees; `agent fleet` runs per-model of each

export interface FleetKnobs {
  agents: number;
  processes: number;
  tls: boolean;
  /** Node flags of the fleet processes, e.g. --cpu-prof. */
  nodeFlags: string[];
}

/** The `agent fleet` processes: PROCESSES of them, serials apart. */
export class Fleet {
  private children: ChildProcess[] = [];
  readonly perModel: number;

  constructor(
    private readonly knobs: FleetKnobs,
    private readonly dir: string,
    private readonly caFingerprint: string | undefined,
  ) {
    this.perModel = Math.ceil(knobs.agents / MODELS / knobs.processes);
  }

  get total(): number {
    return this.perModel * MODELS * this.knobs.processes;
  }

  start(grpcAddress: string): void {
    for (let i = 0; i < this.knobs.processes; i++) {
      const args = [
        ...this.knobs.nodeFlags,
        '--experimental-wasm-modules',
        '--disable-warning=DEP0123',
        // Bundled like `npm run server` (server/launch.mjs), not through tsx's loader thread:
        // four fleet processes starting at once spent ~2 s of CPU each on module loading.
        'server/launch.mjs',
        'agent/main.ts',
        'fleet',
        '--controller',
        grpcAddress,
        '--per-model',
        String(this.perModel),
        '--first-serial',
        String(1 + i * this.perModel),
      ];
      if (this.knobs.tls)
        args.push(
          '--credentials-dir',
          path.join(this.dir, 'credentials'),
          '--enroll-token-file',
          path.join(this.dir, `tokens-${i}.txt`),
          '--ca-fingerprint',
          this.caFingerprint!,
        );
      const child = spawn(process.execPath, args, { cwd: repo, stdio: ['ignore', 'ignore', 'pipe'] });
      child.stderr!.on('data', (d: Buffer) => {
        const text = d.toString();
        if (/error|fail/i.test(text)) process.stderr.write(`fleet ${i}: ${text.slice(0, 300)}`);
      });
      this.children.push(child);
    }
  }

  pids(): number[] {
    return this.children.map((c) => c.pid!);
  }

  async stop(): Promise<void> {
    await Promise.all(
      this.children.map(
        (c) =>
          new Promise<void>((resolve) => {
            if (c.exitCode !== null) return resolve();
            const force = setTimeout(() => c.kill('SIGKILL'), 20_000);
            c.once('exit', () => {
              clearTimeout(force);
              resolve();
            });
            c.kill('SIGTERM');
          }),
      ),
    );
    this.children = [];
  }
}

/** Waits until `want` streams are up, noting when 10/50/90/100 % were reached (seconds from `t0`). */
export async function storm(
  c: () => Controller | undefined,
  want: number,
  t0: number,
  timeoutMs: number,
): Promise<{ at: Record<string, number>; complete: boolean }> {
  const marks = [0.1, 0.5, 0.9, 1];
  const at: Record<string, number> = {};
  const deadline = t0 + timeoutMs;
  while (Date.now() < deadline) {
    const ctl = c();
    const n = ctl ? await connectedAgents(ctl).catch(() => 0) : 0;
    for (const m of marks)
      if (at[`${m * 100}%`] === undefined && n >= m * want) at[`${m * 100}%`] = (Date.now() - t0) / 1000;
    if (n >= want) return { at, complete: true };
    // Once a second: a scrape of /metrics is itself work for the controller under test.
    await sleep(1_000);
  }
  return { at, complete: false };
}

/** CPU seconds the fleet processes have used since they started (their whole life so far). */
export async function fleetCpuSeconds(fleet: Fleet): Promise<number> {
  const each = await Promise.all(fleet.pids().map((p) => cpuSeconds(p).catch(() => 0)));
  return each.reduce((a, b) => a + b, 0);
}
