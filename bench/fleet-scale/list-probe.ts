import { fork, type ChildProcess } from 'node:child_process';
import { percentile } from '../statistics.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Target = { url: string; token: string } | undefined;

/** What the parent tells the probe process, and what the probe process answers. */
type ToProbe = { kind: 'target'; target: Target | null } | { kind: 'phase'; phase: string } | { kind: 'stop' };
type FromProbe = { sample: { phase: string; ms: number } } | { error: true };

/**
 * Times GET /v1/routers?limit=100 ten times a second until stopped; latencies by phase. The
 * requests go out from a process of their own, as an operator's script would: timed from the
 * bench's own event loop, which also reads the controller's log and polls its metrics, a
 * latency would include the bench's own turns.
 */
export class ListProbe {
  readonly samples = new Map<string, number[]>();
  errors = 0;
  private readonly child: ChildProcess;
  private readonly exited: Promise<void>;
  private lastTarget: Target;
  private readonly watch: NodeJS.Timeout;

  constructor(private readonly controller: () => Target) {
    this.child = fork(import.meta.filename, ['--probe'], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.exited = new Promise((r) => this.child.once('exit', () => r()));
    this.child.on('message', (m: FromProbe) => {
      if ('error' in m) this.errors += 1;
      else {
        const list = this.samples.get(m.sample.phase) ?? [];
        list.push(m.sample.ms);
        this.samples.set(m.sample.phase, list);
      }
    });
    // The controller changes across a kill -9 and restart: pass the new one on.
    this.watch = setInterval(() => this.sendTarget(), 100);
    this.sendTarget();
  }

  private sendTarget(): void {
    const target = this.controller();
    if (target?.url === this.lastTarget?.url && target?.token === this.lastTarget?.token) return;
    this.lastTarget = target;
    // null, not undefined: IPC's JSON drops a key whose value is undefined.
    this.send({ kind: 'target', target: target ? { url: target.url, token: target.token } : null });
  }

  private send(m: ToProbe): void {
    if (this.child.connected) this.child.send(m);
  }

  setPhase(phase: string): void {
    this.sendTarget();
    this.send({ kind: 'phase', phase });
  }

  summary(phase: string) {
    const s = [...(this.samples.get(phase) ?? [])].sort((a, b) => a - b);
    if (s.length === 0) return { n: 0, p50: NaN, p99: NaN, max: NaN };
    return { n: s.length, p50: percentile(s, 50), p99: percentile(s, 99), max: s[s.length - 1]! };
  }

  async stop(): Promise<void> {
    clearInterval(this.watch);
    this.send({ kind: 'stop' });
    await this.exited;
  }
}

/** The probe process: one request at a time, started every 100 ms, reported to the parent. */
async function probeLoop(): Promise<void> {
  let target: Target;
  let phase = 'idle';
  let running = true;
  let warm: Target;
  process.on('message', (m: ToProbe) => {
    if (m.kind === 'target') target = m.target ?? undefined;
    else if (m.kind === 'phase') phase = m.phase;
    else running = false;
  });
  const report = (m: FromProbe) => process.send!(m);
  while (running) {
    const started = performance.now();
    const c = target;
    const during = phase;
    if (c && during !== 'idle') {
      try {
        // The first request to a controller opens the connection and warms fetch: not timed.
        if (warm !== c) {
          await (await fetch(`${c.url}/healthz`, { signal: AbortSignal.timeout(10_000) })).arrayBuffer();
          warm = c;
        }
        const timed = performance.now();
        const res = await fetch(`${c.url}/v1/routers?limit=100`, {
          headers: { authorization: `Bearer ${c.token}` },
          signal: AbortSignal.timeout(10_000),
        });
        await res.arrayBuffer();
        if (!res.ok) throw new Error(String(res.status));
        report({ sample: { phase: during, ms: performance.now() - timed } });
      } catch {
        report({ error: true });
      }
    }
    await sleep(Math.max(0, 100 - (performance.now() - started)));
  }
  process.disconnect();
}

if (process.argv.includes('--probe')) void probeLoop();
