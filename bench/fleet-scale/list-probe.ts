import { percentile } from '../statistics.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Times GET /v1/routers?limit=100 ten times a second until stopped; latencies by phase. */
export class ListProbe {
  private phase = 'idle';
  readonly samples = new Map<string, number[]>();
  private running = true;
  private done: Promise<void>;
  errors = 0;

  constructor(private readonly controller: () => { url: string; token: string } | undefined) {
    this.done = this.loop();
  }

  setPhase(phase: string): void {
    this.phase = phase;
  }

  private async loop(): Promise<void> {
    while (this.running) {
      const c = this.controller();
      const started = performance.now();
      if (c && this.phase !== 'idle') {
        try {
          const res = await fetch(`${c.url}/v1/routers?limit=100`, {
            headers: { authorization: `Bearer ${c.token}` },
            signal: AbortSignal.timeout(10_000),
          });
          await res.arrayBuffer();
          if (!res.ok) throw new Error(String(res.status));
          const list = this.samples.get(this.phase) ?? [];
          list.push(performance.now() - started);
          this.samples.set(this.phase, list);
        } catch {
          this.errors += 1;
        }
      }
      await sleep(Math.max(0, 100 - (performance.now() - started)));
    }
  }

  summary(phase: string) {
    const s = [...(this.samples.get(phase) ?? [])].sort((a, b) => a - b);
    if (s.length === 0) return { n: 0, p50: NaN, p99: NaN, max: NaN };
    return { n: s.length, p50: percentile(s, 50), p99: percentile(s, 99), max: s[s.length - 1]! };
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.done;
  }
}
