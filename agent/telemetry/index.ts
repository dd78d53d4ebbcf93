/**
 * Telemetry of one router: per-program counters (seen / rewritten, summed over CPUs, from
 * the pinned wf_stats maps), offload state and offloaded flow counts ([OFFLOAD] software vs
 * [HW_OFFLOAD] hardware in /proc/net/nf_conntrack, where the kernel shows them), and the
 * agent's own RSS. Sent on the interval the controller's Welcome names.
 *
 * A proxy process manages many routers, so its RSS is the whole process's; the controller
 * divides by the number of routers behind that proxy if it wants a per-router figure.
 */
import { OffloadState_Mode, type OffloadState, type Telemetry } from '../../proto/gen/wrtfleet/agent/v1/agent.js';
import type { DatapathPaths } from '../apply/live.js';
import { readNft } from '../apply/live.js';
import { ebpfStatus, readAllCounters } from '../datapath/index.js';
import type { BpfEndian } from '../../core/programs.js';
import type { RouterHost } from '../../core/host/router-host.js';
import { readIptablesCounters } from '../datapath/iptables.js';
import { countOffloadedFlows, readOffload, type OffloadState as LiveOffload } from '../offload/index.js';

export function offloadStateMessage(state: LiveOffload): OffloadState {
  if (!state.support.supported) return { mode: OffloadState_Mode.MODE_UNSUPPORTED, reason: state.support.reason };
  const mode =
    state.live === 'hardware'
      ? OffloadState_Mode.MODE_HARDWARE
      : state.live === 'software'
        ? OffloadState_Mode.MODE_SOFTWARE
        : OffloadState_Mode.MODE_OFF;
  const reason = state.fallback
    ? `flow_offloading_hw=1 but ${state.support.firewall ?? 'the firewall'} offloads in software (no hardware offload on this device)`
    : `uci asks for ${state.configured}, ${state.support.firewall ?? 'the firewall'} runs ${state.live}`;
  return { mode, reason };
}

/** Counters of our nftables rules (fallback datapath), one per program in rule order. */
function nftCounters(ruleset: string): { program: string; packetsSeen: number; packetsRewritten: number }[] {
  const out: { program: string; packetsSeen: number; packetsRewritten: number }[] = [];
  for (const line of ruleset.split('\n')) {
    const m = line.match(/counter packets (\d+)/);
    if (!m) continue;
    const program = /ip id set/.test(line)
      ? 'set_ip_id_zero'
      : /(ip ttl|hoplimit) set/.test(line)
        ? 'set_ip_ttl'
        : /tcp window set/.test(line)
          ? 'set_tcp_syn_window'
          : /reset tcp option/.test(line)
            ? 'clear_tcp_syn_ts'
            : 'unknown';
    // nft counts only packets its rule rewrote (the rules match "!= target" first).
    out.push({ program: `nftables/${program}`, packetsSeen: 0, packetsRewritten: Number(m[1]) });
  }
  return out;
}

export async function collectTelemetry(
  host: RouterHost,
  opts: DatapathPaths & { endian?: BpfEndian } = {},
): Promise<Telemetry> {
  const status = await ebpfStatus(host, opts);
  const counters = await readAllCounters(host, status, opts.endian ?? 'bpfel').catch(() => ({}));
  const programs = Object.entries(counters).map(([key, c]) => ({
    program: key,
    packetsSeen: Number(c.seen),
    packetsRewritten: Number(c.rewritten),
  }));
  const nft = await readNft(host);
  if (nft.ruleset) programs.push(...nftCounters(nft.ruleset));
  for (const [program, matched] of await readIptablesCounters(host, opts.iptables))
    programs.push({ program: `iptables/${program}`, packetsSeen: 0, packetsRewritten: matched });
  const offload = await readOffload(host);
  const conntrack = await host.readFile('/proc/net/nf_conntrack');
  const flows = conntrack ? countOffloadedFlows(conntrack) : { software: 0, hardware: 0 };
  return {
    programs,
    offload: offloadStateMessage(offload),
    offloadedFlowsSoftware: flows.software,
    offloadedFlowsHardware: flows.hardware,
    agentRssBytes: process.memoryUsage().rss,
  };
}
