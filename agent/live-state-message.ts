import { DatapathState_Mode, type LiveState as LiveStateMessage } from '../proto/gen/wrtfleet/agent/v1/agent.js';
import type { LiveState } from './apply/live.js';
import { offloadStateMessage } from './telemetry/index.js';

/**
 * What runs on the router, as Hello.live carries it (the fleet table lists and filters routers
 * by it): from the live state a real agent reads back, or the one a simulated router's plan
 * puts there (agent/sim/simulated-datapath.ts).
 */
export function liveStateMessage(live: LiveState): LiveStateMessage {
  const ebpf = live.ebpf.interfaces;
  const mode =
    ebpf.length > 0
      ? ebpf[0]!.mode === 'tcx'
        ? DatapathState_Mode.MODE_TCX
        : DatapathState_Mode.MODE_CLS_BPF
      : live.nft.present
        ? DatapathState_Mode.MODE_NFTABLES
        : live.iptables.present
          ? DatapathState_Mode.MODE_IPTABLES
          : DatapathState_Mode.MODE_NONE;
  return {
    datapath: {
      mode,
      interfaces:
        ebpf.length > 0 ? ebpf.map((i) => i.ifname) : live.nft.present ? live.nft.interfaces : live.iptables.interfaces,
      programs: [...new Set(ebpf.flatMap((i) => i.programs.map((p) => p.program)))],
    },
    offload: offloadStateMessage(live.offload),
  };
}
