/**
 * SQM against software flow offloading on a real kernel: does a software-offloaded flow still
 * get shaped? Shaping is set up the way sqm-scripts' piece_of_cake does it: cake on the WAN's
 * egress for upload, and for download a matchall + mirred redirect from the WAN's ingress to an
 * ifb device with cake on it. With fw4's flowtable on (./flowtable.ts), one iperf3 each way.
 *
 * What the 6.1 kernel does (net/core/dev.c, net/netfilter/nf_flow_table_ip.c): an offloaded
 * packet leaves through neigh_xmit / dev_queue_xmit, so the egress qdisc queues it; tc ingress
 * runs before the netfilter ingress hook, and a packet the ifb hands back is marked to skip
 * classification, which skips the flowtable's ingress hook too: the download direction is
 * shaped and takes the full forward path. Both rates are held to the shaper.
 */
import { runChecked, type RouterHost } from '../../core/host/router-host.js';
import { installFw4, iperfFlows, removeFw4, sampleKernel, type KernelSample } from './flowtable.js';
import { PATH_ADDR, type IperfPath } from './iperf-path.js';

export const SQM_RATES = { uploadMbit: 20, downloadMbit: 10 };
const IFB = 'ifb4eth1';
const SECONDS = 10;

export interface SqmDirection {
  mbps: number;
  offloadedFlows: number;
  /** Packets on fw4's forward hook and in at the LAN/WAN between two samples a few seconds in. */
  forwardHook: number;
  lanRx: number;
  wanRx: number;
  conntrack: string[];
}

export interface SqmObservation {
  upload: SqmDirection;
  download: SqmDirection;
  /** Packets and drops of the two cakes over both runs. */
  egressCake: { packets: number; drops: number };
  ingressCake: { packets: number; drops: number };
}

async function cakeStats(host: RouterHost, dev: string): Promise<{ packets: number; drops: number }> {
  const j = JSON.parse(await runChecked(host, ['tc', '-s', '-j', 'qdisc', 'show', 'dev', dev, 'root'])) as {
    kind: string;
    packets?: number;
    drops?: number;
  }[];
  if (j[0]?.kind !== 'cake') throw new Error(`${dev}: root qdisc is ${j[0]?.kind}, not cake`);
  return { packets: j[0].packets ?? 0, drops: j[0].drops ?? 0 };
}

async function direction(host: RouterHost, path: IperfPath, reverse: boolean): Promise<SqmDirection> {
  const run = path.iperf(SECONDS, reverse);
  run.catch(() => undefined); // awaited below
  await new Promise((res) => setTimeout(res, 3000));
  const a: KernelSample = await sampleKernel(host);
  await new Promise((res) => setTimeout(res, 2000));
  const b: KernelSample = await sampleKernel(host);
  const { mbps } = await run;
  const flows = iperfFlows(b, PATH_ADDR.peer).filter((f) => f.state === '' || f.state === 'ESTABLISHED');
  return {
    mbps,
    offloadedFlows: flows.filter((f) => f.offload).length,
    forwardHook: (b.forwardPackets ?? 0) - (a.forwardPackets ?? 0),
    lanRx: (b.dev.eth0?.rx ?? 0) - (a.dev.eth0?.rx ?? 0),
    wanRx: (b.dev.eth1?.rx ?? 0) - (a.dev.eth1?.rx ?? 0),
    conntrack: flows.map((f) => f.line),
  };
}

/** Runs both directions with SQM and the flowtable on; removes both afterwards. */
export async function observeSqmWithOffload(host: RouterHost, path: IperfPath): Promise<SqmObservation> {
  const setup = [
    'modprobe -a sch_cake ifb act_mirred cls_matchall',
    `tc qdisc replace dev eth1 root cake bandwidth ${SQM_RATES.uploadMbit}mbit`,
    `ip link add ${IFB} type ifb`,
    `ip link set ${IFB} up`,
    'tc qdisc add dev eth1 handle ffff: ingress',
    `tc filter add dev eth1 parent ffff: matchall action mirred egress redirect dev ${IFB}`,
    `tc qdisc replace dev ${IFB} root cake bandwidth ${SQM_RATES.downloadMbit}mbit`,
  ];
  try {
    await runChecked(host, ['sh', '-ec', setup.join('\n')]);
    await installFw4(host, ['eth0', 'eth1']);
    const upload = await direction(host, path, false);
    const download = await direction(host, path, true);
    return { upload, download, egressCake: await cakeStats(host, 'eth1'), ingressCake: await cakeStats(host, IFB) };
  } finally {
    await removeFw4(host).catch(() => undefined);
    await host.run(['tc', 'qdisc', 'del', 'dev', 'eth1', 'ingress']);
    await host.run(['tc', 'qdisc', 'del', 'dev', 'eth1', 'root']);
    await host.run(['ip', 'link', 'del', IFB]);
  }
}

/** The verdicts: both directions held to their shaper while the flowtable offloads. */
export function judgeSqm(o: SqmObservation): string[] {
  const bad: string[] = [];
  const that = (cond: boolean, what: string) => {
    if (!cond) bad.push(what);
  };
  that(o.upload.offloadedFlows >= 1, `sqm upload: no flow offloaded: ${o.upload.conntrack.join(' | ')}`);
  that(
    o.upload.mbps > 0 && o.upload.mbps <= SQM_RATES.uploadMbit * 1.05,
    `sqm upload: ${o.upload.mbps.toFixed(1)} Mbit/s past the ${SQM_RATES.uploadMbit} Mbit/s egress cake`,
  );
  that(
    o.download.mbps > 0 && o.download.mbps <= SQM_RATES.downloadMbit * 1.05,
    `sqm download: ${o.download.mbps.toFixed(1)} Mbit/s past the ${SQM_RATES.downloadMbit} Mbit/s ingress cake`,
  );
  that(o.egressCake.drops + o.ingressCake.drops > 0, 'sqm: neither cake dropped a packet: not shaping');
  return bad;
}
