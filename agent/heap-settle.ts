/**
 * One full garbage collection a few seconds after the agent changed the router.
 *
 * Why: an apply's objects outlive several scavenges of the small young generation the
 * on-router agent runs with, so V8 promotes them and they die in the old generation, which an
 * idle agent never fills enough to collect. Without this the garbage stays resident for the
 * life of the process; measured in docs/BENCHMARKS.md#agent-memory.
 *
 * `gc` exists only where node runs with --expose-gc, which the procd init script passes
 * (agent/packaging/openwrt/wrtfleet-agent.init, with --compact-on-every-full-gc so that the
 * collection also moves survivors off sparse pages and frees them). Elsewhere (the proxy, tests,
 * the simulated fleet) this does nothing.
 */

/** After the last apply result: long enough for its follow-up work (Ack, state save) to finish. */
export const HEAP_SETTLE_DELAY_MS = 3_000;

/**
 * Between applies, at most this far apart: the periodic work of an applied agent (WAN poll,
 * drift check, telemetry, heartbeats) promotes a little garbage too. Why this often: a collection
 * of the agent's small heap is cheap, and longer periods let the RSS creep up; measured in
 * docs/BENCHMARKS.md#agent-memory.
 */
export const HEAP_SETTLE_PERIOD_MS = 30_000;

export class HeapSettler {
  private timer: NodeJS.Timeout | undefined;
  private periodic: NodeJS.Timeout | undefined;
  private lastCollection = 0;
  /** Full collections run so far (for tests). */
  collections = 0;

  constructor(
    private readonly collect: (() => void) | undefined = (globalThis as { gc?: () => void }).gc,
    private readonly delayMs = HEAP_SETTLE_DELAY_MS,
  ) {}

  /** Whether collections can run at all (node started with --expose-gc). */
  get enabled(): boolean {
    return this.collect !== undefined;
  }

  /** Schedules one collection delayMs from now; a later call postpones it (a burst of applies gets one). */
  soon(): void {
    const collect = this.collect;
    if (!collect) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.collectNow(collect);
    }, this.delayMs);
    // Never what keeps an agent that is shutting down alive.
    this.timer.unref();
  }

  /** Also collects every periodMs, skipping a period in which a collection already ran. */
  every(periodMs = HEAP_SETTLE_PERIOD_MS): void {
    const collect = this.collect;
    if (!collect || this.periodic) return;
    this.periodic = setInterval(() => {
      // A second of slack: the previous periodic collection ran one timer tick ago, give or take.
      if (Date.now() - this.lastCollection >= periodMs - 1_000) this.collectNow(collect);
    }, periodMs);
    this.periodic.unref();
  }

  stop(): void {
    clearTimeout(this.timer);
    clearInterval(this.periodic);
    this.timer = undefined;
    this.periodic = undefined;
  }

  private collectNow(collect: () => void): void {
    collect();
    this.collections += 1;
    this.lastCollection = Date.now();
  }
}

/** The process's one settler: collections are per process, not per managed router. */
export const heapSettler = new HeapSettler();
