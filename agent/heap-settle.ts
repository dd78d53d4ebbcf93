/**
 * One full garbage collection a few seconds after the agent changed the router.
 *
 * Why: an apply runs for about a second and allocates a few MB (command output, the plan, the
 * transaction's snapshot). Its objects live through several scavenges of the 1 MB young
 * generation the on-router agent runs with, so V8 promotes them, and they die in the old
 * generation. V8 collects that only at its allocation limit (~16 MB here, never reached by an
 * idle agent) or from its memory reducer, which an apply does not arm once the first full GC
 * has run. The garbage then stays resident for the life of the process: +1.6 MiB of RSS on
 * the idle on-router agent after one apply (docs/BENCHMARKS.md, Agent).
 *
 * `gc` exists only where node runs with --expose-gc, which the procd init script passes
 * (agent/packaging/openwrt/wrtfleet-agent.init, with --compact-on-every-full-gc so that the
 * collection also moves survivors off sparse pages and frees them). Elsewhere (the proxy, tests,
 * the simulated fleet) this does nothing.
 */

/** After the last apply result: long enough for its follow-up work (Ack, state save) to finish. */
export const HEAP_SETTLE_DELAY_MS = 3_000;

/**
 * Between applies, at most this far apart. The periodic work of an applied agent (WAN poll,
 * drift check, telemetry, heartbeats) promotes a little garbage on every scavenge too: RSS crept
 * from 48.1 to 49.6 MiB over 240 s without this; 10-250 s after an apply it stayed within
 * 47.1-48.1 MiB with a 60 s period and 47.0-47.8 MiB with 30 s (docs/BENCHMARKS.md, Agent). A
 * full collection of the agent's ~7 MB heap takes ~14 ms here: 0.05 % of a CPU at 30 s, well
 * under 1 % on a router CPU ten times slower.
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
