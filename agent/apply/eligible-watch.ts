/**
 * Watching the set of eligible WAN interfaces (agent/datapath/wan-eligibility.ts) for changes:
 * the ApplyManager follows them with the applied plan's datapath (wan-watch.ts), a standalone
 * datapath with applyEbpf (watchAndReevaluate).
 */
import type { RouterHost } from '../../core/host/router-host.js';
import { applyEbpf, type DatapathEvidence, type DatapathOptions } from '../datapath/loader.js';
import { eligibleInterfaces, type Eligibility, type WanSelection } from '../datapath/wan-eligibility.js';

/** An eligible interface as the WAN watch compares it: same name with a new ifindex is a new device. */
export interface WanDevice {
  ifname: string;
  ifindex: number;
}

export function wanDevices(e: Eligibility): WanDevice[] {
  return e.eligible.map(({ ifname, ifindex }) => ({ ifname, ifindex }));
}

/** The eligible set as one comparable string ("ifname#ifindex", sorted). */
function eligibleKey(devices: readonly WanDevice[]): string {
  return devices
    .map((d) => `${d.ifname}#${d.ifindex}`)
    .sort()
    .join(' ');
}

export interface EligibleWatchOptions extends WanSelection {
  /** Default 5000. */
  intervalMs?: number;
  /**
   * The eligible set differs from `baseline`. The watch waits for it before the next tick;
   * it sets the new baseline (normally the set read before it re-applied).
   */
  onChange: (now: Eligibility) => Promise<void>;
  onError?: (err: Error) => void;
  /** With no baseline yet, the first reading becomes the baseline instead of a change. */
  adoptFirst?: boolean;
}

/**
 * Polls the eligible set (eligibleInterfaces: one `ip route` and one `ip link` per tick) and
 * calls onChange when it differs from the baseline: a WAN that comes up late, goes away, or
 * is re-created (a redialled pppoe-wan has a new ifindex). OpenWrt has no event stream over
 * a plain command channel; hotplug scripts can call applyEbpf directly instead.
 */
export class EligibleWatch {
  /** The set the datapath was last brought in line with (null: not known yet). */
  baseline: WanDevice[] | null = null;
  private timer: NodeJS.Timeout | undefined;
  /** Bumped by start/stop, so a tick still running after stop() does not schedule another. */
  private generation = 0;
  private active = false;

  constructor(
    private readonly host: RouterHost,
    private readonly options: EligibleWatchOptions,
  ) {}

  get running(): boolean {
    return this.active;
  }

  read(): Promise<Eligibility> {
    return eligibleInterfaces(this.host, this.options);
  }

  differs(now: Eligibility): boolean {
    return this.baseline === null || eligibleKey(this.baseline) !== eligibleKey(now.eligible);
  }

  start(): void {
    if (this.active) return;
    this.active = true;
    this.schedule(++this.generation, 0);
  }

  stop(): void {
    this.active = false;
    this.generation += 1;
    clearTimeout(this.timer);
  }

  private schedule(generation: number, delay: number): void {
    this.timer = setTimeout(() => void this.tick(generation), delay);
    this.timer.unref();
  }

  private async tick(generation: number): Promise<void> {
    try {
      const now = await this.read();
      if (generation !== this.generation) return;
      if (this.baseline === null && this.options.adoptFirst) this.baseline = wanDevices(now);
      else if (this.differs(now)) await this.options.onChange(now);
    } catch (err) {
      this.options.onError?.(err as Error);
    } finally {
      if (generation === this.generation) this.schedule(generation, this.options.intervalMs ?? 5000);
    }
  }
}

/** applyEbpf whenever the eligible set changes (and once at start). Returns a stop function. */
export function watchAndReevaluate(
  host: RouterHost,
  opts: DatapathOptions,
  { intervalMs = 5000, onApplied }: { intervalMs?: number; onApplied?: (e: DatapathEvidence | Error) => void } = {},
): () => void {
  const watch: EligibleWatch = new EligibleWatch(host, {
    intervalMs,
    interfaces: opts.interfaces,
    skip: opts.skip,
    onChange: async (now) => {
      try {
        const ev = await applyEbpf(host, opts);
        watch.baseline = wanDevices(now);
        onApplied?.(ev);
      } catch (e) {
        onApplied?.(e as Error);
      }
    },
    onError: (e) => onApplied?.(e),
  });
  watch.start();
  return () => watch.stop();
}
