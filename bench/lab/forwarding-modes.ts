/**
 * Forwarding through one MIPS guest in each datapath mode the product can leave a router in:
 * throughput (iperf3 from the LAN client to the WAN peer) and the guest's CPU per forwarded
 * packet (busy ticks of the guest's /proc/stat over the packets its NICs received), the modes in
 * a new order every round so drift in the host's load lands on all of them alike.
 *
 * The modes are states, not scripts: switching computes what differs (eBPF chain attached or
 * not, our nftables table or not, fw4's table with or without its flowtable) and changes only
 * that, through the agent's own loader and nftables fallback for the rewrites and the lab's
 * fw4 table (lab/checks/flowtable.ts) for offloading.
 */
import { applyEbpf, applyNft, detachEbpf, removeNft, type DatapathOptions } from '../../agent/datapath/index.js';
import { runChecked, type RouterHost } from '../../core/host/router-host.js';
import { installFw4, parseCpu, parseNetDev, removeFw4 } from '../../lab/checks/flowtable.js';
import type { IperfPath } from '../../lab/checks/iperf-path.js';
import { shuffled } from '../statistics.js';

export interface ModeState {
  ebpf: boolean;
  nft: boolean;
  /** fw4's table: none, the forward chain with conntrack alone, or with the flowtable. */
  fw4: 'none' | 'conntrack' | 'offload';
}

export interface ForwardingMode {
  name: string;
  state: ModeState;
}

export const FORWARDING_MODES: ForwardingMode[] = [
  { name: 'nothing', state: { ebpf: false, nft: false, fw4: 'none' } },
  { name: 'eBPF chain (loader default)', state: { ebpf: true, nft: false, fw4: 'none' } },
  { name: 'nftables fallback', state: { ebpf: false, nft: true, fw4: 'none' } },
  { name: 'fw4 conntrack, no offload', state: { ebpf: false, nft: false, fw4: 'conntrack' } },
  { name: 'software flow offload', state: { ebpf: false, nft: false, fw4: 'offload' } },
  { name: 'software flow offload + eBPF chain', state: { ebpf: true, nft: false, fw4: 'offload' } },
];
export const BASELINE_MODE = 'nothing';
const FLOWTABLE_DEVICES = ['eth0', 'eth1'];

export interface ForwardingOptions {
  rounds: number;
  seconds: number;
  datapath: DatapathOptions;
}

export interface ForwardingRun {
  mbps: number;
  /** Packets the guest received on LAN and WAN during the run (data one way, ACKs the other). */
  packets: number;
  busyTicks: number;
  /** Guest CPU per forwarded packet, µs (USER_HZ 100: a tick is 10 ms). */
  cpuUsPerPacket: number;
  /** Busy share of the guest's CPU time over the run. */
  busyShare: number;
}

export interface ForwardingResult {
  modes: { name: string; runs: ForwardingRun[] }[];
  /** How the eBPF chain was attached (the loader's choice on this kernel). */
  attach: string;
  seconds: number;
}

/** Moves the guest from `from` to `to`, touching only what differs. */
async function switchState(host: RouterHost, from: ModeState, to: ModeState, o: ForwardingOptions): Promise<string> {
  let attach = '';
  if (from.ebpf && !to.ebpf) await detachEbpf(host, o.datapath);
  if (from.nft && !to.nft) await removeNft(host);
  if (from.fw4 !== to.fw4) {
    if (to.fw4 === 'none') await removeFw4(host);
    else await installFw4(host, FLOWTABLE_DEVICES, to.fw4 === 'offload');
  }
  if (!from.nft && to.nft) await applyNft(host, o.datapath);
  if (!from.ebpf && to.ebpf) attach = (await applyEbpf(host, o.datapath)).mode;
  return attach;
}

interface CpuSample {
  busy: number;
  idle: number;
  packets: number;
}

/** /proc/stat and /proc/net/dev in one light command (no nft or tc: they would cost guest CPU themselves). */
async function sampleCpu(host: RouterHost): Promise<CpuSample> {
  const out = await runChecked(host, ['sh', '-c', 'cat /proc/net/dev; head -n1 /proc/stat']);
  const dev = parseNetDev(out);
  const cpu = parseCpu(out.split('\n').find((l) => l.startsWith('cpu ')) ?? '');
  return { ...cpu, packets: (dev.eth0?.rx ?? 0) + (dev.eth1?.rx ?? 0) };
}

async function measure(host: RouterHost, path: IperfPath, seconds: number): Promise<ForwardingRun> {
  const before = await sampleCpu(host);
  const { mbps } = await path.iperf(seconds);
  const after = await sampleCpu(host);
  const busy = after.busy - before.busy;
  const idle = after.idle - before.idle;
  const packets = after.packets - before.packets;
  return {
    mbps,
    packets,
    busyTicks: busy,
    cpuUsPerPacket: (busy * 10_000) / Math.max(1, packets),
    busyShare: busy / Math.max(1, busy + idle),
  };
}

export async function forwardingBench(
  host: RouterHost,
  path: IperfPath,
  o: ForwardingOptions,
  modes: ForwardingMode[] = FORWARDING_MODES,
  log: (line: string) => void = () => undefined,
): Promise<ForwardingResult> {
  const started = Date.now();
  const runs = new Map(modes.map((m) => [m.name, [] as ForwardingRun[]]));
  let state: ModeState = { ebpf: false, nft: false, fw4: 'none' };
  let attach = '';
  try {
    for (let round = 0; round < o.rounds; round++) {
      for (const mode of shuffled(modes)) {
        attach = (await switchState(host, state, mode.state, o)) || attach;
        state = mode.state;
        const run = await measure(host, path, o.seconds);
        runs.get(mode.name)!.push(run);
        log(
          `round ${round + 1}/${o.rounds} ${mode.name}: ${run.mbps.toFixed(1)} Mbit/s, ${run.cpuUsPerPacket.toFixed(1)} µs/packet`,
        );
      }
    }
  } finally {
    await switchState(host, state, { ebpf: false, nft: false, fw4: 'none' }, o);
  }
  return {
    modes: modes.map((m) => ({ name: m.name, runs: runs.get(m.name)! })),
    attach,
    seconds: (Date.now() - started) / 1000,
  };
}
