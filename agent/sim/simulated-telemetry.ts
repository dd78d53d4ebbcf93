/**
 * A simulated router's telemetry: its datapath counters (agent/sim/simulated-counters.ts), the
 * offload mode its plan runs with a simulated count of offloaded flows (no flow table exists
 * here), and a simulated agent RSS (a whole fleet shares one process). Sent on the same
 * ControllerLink a real agent's samples take.
 */
import { OffloadState_Mode } from '../../proto/gen/wrtfleet/agent/v1/agent.js';
import type { LiveState } from '../apply/live.js';
import type { ControllerLink } from '../controller-link.js';
import type { SimulatedCounters } from './simulated-counters.js';

/** Offloaded flows a simulated router reports in each offload mode. */
const SIMULATED_FLOWS = { software: 40, hardware: 120 };
/** What a simulated router reports as its agent's RSS. */
const SIMULATED_RSS_BYTES = 24 * 1024 * 1024;

export class SimulatedTelemetry {
  private timer: NodeJS.Timeout | undefined;
  /** Holds the periodic samples (tests). */
  paused = false;

  constructor(
    private readonly link: ControllerLink,
    private readonly counters: SimulatedCounters,
    /** What the router runs now. */
    private readonly live: () => LiveState,
  ) {}

  /** Samples every `intervalMs` from now (0: none), replacing an earlier schedule. */
  start(intervalMs: number): void {
    this.stop();
    if (intervalMs <= 0) return;
    this.timer = setInterval(() => {
      if (!this.paused) this.send();
    }, intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** One sample now (false: not connected). */
  send(): boolean {
    const offload = this.live().offload.live ?? 'off';
    const mode =
      offload === 'hardware'
        ? OffloadState_Mode.MODE_HARDWARE
        : offload === 'software'
          ? OffloadState_Mode.MODE_SOFTWARE
          : OffloadState_Mode.MODE_OFF;
    return (
      this.link.send({
        $case: 'telemetry',
        value: {
          programs: this.counters.read(),
          offload: { mode, reason: 'simulated' },
          offloadedFlowsSoftware: offload === 'software' ? SIMULATED_FLOWS.software : 0,
          offloadedFlowsHardware: offload === 'hardware' ? SIMULATED_FLOWS.hardware : 0,
          agentRssBytes: SIMULATED_RSS_BYTES,
        },
      }) > 0
    );
  }
}
