/**
 * What a simulated router reports of the plan it runs: the live state of its Hello (as the
 * real agent reads it back, agent/router-agent.ts liveMessage; the fleet table lists and
 * filters routers by it) and its telemetry samples.
 */
import type { Plan } from '../../core/plan/types.js';
import {
  DatapathState_Mode,
  OffloadState_Mode,
  type LiveState,
  type Telemetry,
} from '../../proto/gen/wrtfleet/agent/v1/agent.js';
import type { SimulatedCounters } from './simulated-counters.js';

/** Offloaded flows a simulated router reports in each offload mode (no flow table exists here). */
const SIMULATED_FLOWS = { software: 40, hardware: 120 };
/** What a simulated router reports as its agent's RSS (a proxy shares one process). */
const SIMULATED_RSS_BYTES = 24 * 1024 * 1024;

function offloadState(plan: Plan | undefined) {
  const offload = plan?.offload.mode ?? 'off';
  return {
    mode:
      offload === 'hardware'
        ? OffloadState_Mode.MODE_HARDWARE
        : offload === 'software'
          ? OffloadState_Mode.MODE_SOFTWARE
          : OffloadState_Mode.MODE_OFF,
    reason: 'simulated',
  };
}

export function simulatedLiveState(plan: Plan | undefined, wan: string): LiveState {
  const mode = plan?.datapath.mode ?? 'none';
  return {
    datapath: {
      mode:
        mode === 'ebpf'
          ? plan!.datapath.attach === 'tcx'
            ? DatapathState_Mode.MODE_TCX
            : DatapathState_Mode.MODE_CLS_BPF
          : mode === 'nftables'
            ? DatapathState_Mode.MODE_NFTABLES
            : mode === 'iptables'
              ? DatapathState_Mode.MODE_IPTABLES
              : DatapathState_Mode.MODE_NONE,
      interfaces: mode === 'none' ? [] : [wan],
      programs: mode === 'ebpf' ? plan!.datapath.programs.map((p) => p.name) : [],
    },
    offload: offloadState(plan),
  };
}

export function simulatedTelemetry(plan: Plan | undefined, counters: SimulatedCounters): Telemetry {
  const offload = plan?.offload.mode ?? 'off';
  return {
    programs: counters.read(),
    offload: offloadState(plan),
    offloadedFlowsSoftware: offload === 'software' ? SIMULATED_FLOWS.software : 0,
    offloadedFlowsHardware: offload === 'hardware' ? SIMULATED_FLOWS.hardware : 0,
    agentRssBytes: SIMULATED_RSS_BYTES,
  };
}
