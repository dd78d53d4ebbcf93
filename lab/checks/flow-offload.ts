/**
 * Software flow offloading against the rewrites, on a real kernel (issue 34, item 3): what
 * core/plan/conflicts.ts claims, observed. The guest gets fw4's flowtable (./flowtable.ts) on
 * its LAN and WAN devices; TCP from the LAN client to the WAN peer (iperf3) is forwarded by it,
 * and the peer captures what arrives. Phases, each with the flowtable made afresh:
 *  - offload alone: the flow is offloaded ([OFFLOAD] in /proc/net/nf_conntrack) and from then
 *    on skips the forward hook (its counter freezes) but still passes the WAN's egress qdisc;
 *  - offload + the eBPF chain (the agent's loader over SSH, cls_bpf on a 6.1 kernel): the
 *    offloaded packets still leave through dev_queue_xmit, so TC egress rewrites every one;
 *  - offload + the nftables fallback (the agent's applyNft): the first SYN and the handshake
 *    take the full path and are rewritten, the offloaded packets skip postrouting and are not;
 *  - the nftables fallback without offload, the control: every packet rewritten.
 * GRO is off on the guest's LAN side so each forwarded packet crosses TC egress by itself (the
 * known GRO limit of set_ip_id_zero, docs/BENCHMARKS.md#the-id-rewrite-under-segmentation-offload,
 * is not what this check is about).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { applyEbpf, applyNft, detachEbpf, removeNft } from '../../agent/datapath/index.js';
import { tcxHelperBinaryFor } from '../../agent/datapath/programs.js';
import type { RouterHost } from '../../core/host/router-host.js';
import { PROGRAM_NAMES, type RewriteConfig } from '../../core/programs.js';
import { whileTcpdump } from '../wire/capture.js';
import { findIpv4 } from '../wire/frames.js';
import { readPcap, type PcapPacket } from '../wire/pcap.js';
import { installFw4, iperfFlows, removeFw4, sampleKernel, type KernelSample } from './flowtable.js';
import { IPERF_PORT, IperfPath, PATH_ADDR } from './iperf-path.js';
import type { CheckedGuest, LabCheck } from './lab-check.js';
import { judgeSqm, observeSqmWithOffload, type SqmObservation } from './offload-sqm.js';

/** What the check needs of a booted guest. */
export type OffloadGuest = CheckedGuest;

/** A TTL and window no stack sends, so a rewritten packet shows; the client's TTL 64 arrives as 63. */
export const OFFLOAD_REWRITE: RewriteConfig = {
  programs: [...PROGRAM_NAMES],
  ttl: 77,
  synWindow: 29200,
  ipv6HopLimit: false,
};
export const FORWARDED_TTL = 63;
const FLOWTABLE_DEVICES = ['eth0', 'eth1'];
const HELPER = '/tmp/wrtfleet-wf-tcx';
/**
 * A flow long enough that both samples fall inside its offloaded middle: a command over SSH on
 * the emulated guest takes 1-2 s, and a flow's FIN hands it back to the slow path.
 */
const SECONDS = 12;
const FIRST_SAMPLE_MS = 3000;
const BETWEEN_SAMPLES_MS = 2000;

export type PhaseName = 'offload' | 'offload+ebpf' | 'offload+nftables' | 'nftables';

/**
 * One client -> peer TCP flow's data segments in arrival order, as runs: rewritten before the
 * first unrewritten one (the slow path before offload), unrewritten, rewritten again between
 * unrewritten ones (would mean offload comes and goes), and rewritten again at the end only
 * (the flow handed back to the slow path: a FIN or RST tears an offloaded flow down).
 */
export interface FlowRuns {
  sport: number;
  data: number;
  rewrittenBefore: number;
  notRewritten: number;
  rewrittenBetween: number;
  rewrittenTail: number;
  /** TTL of the client's first FIN or RST, if captured (a closing flow leaves the flowtable). */
  closeTtl: number | null;
}

/** The client's packets to the peer's iperf3 port as the peer received them. */
export interface FlowWire {
  firstSyns: { ttl: number; window: number; timestamp: boolean; id: number }[];
  /** Segments with payload, all flows. */
  data: number;
  dataTtlRewritten: number;
  dataTtlForwarded: number;
  dataIdZero: number;
  flows: FlowRuns[];
  maxFrame: number;
}

export interface PhaseObservation {
  phase: PhaseName;
  mbps: number;
  /** iperf3 flows with [OFFLOAD] in either sample, and their conntrack lines. */
  offloadedFlows: number;
  conntrack: string[];
  /** Between the two samples (a couple of seconds into the flow): packets in at the LAN, ... */
  lanRx: number;
  /** ... on fw4's forward hook, ... */
  forwardHook: number | null;
  /** ... counted by our nftables fallback's rules, ... */
  nftRewrite: number | null;
  /** ... and sent by the WAN's root qdisc. */
  wanQdisc: number;
  wire: FlowWire;
}

export interface FlowOffloadObservations {
  phases: Record<PhaseName, PhaseObservation>;
  /** SQM (cake egress, ifb + cake ingress) with the flowtable on. */
  sqm: SqmObservation;
  seconds: number;
}

/** Runs the four phases on the guest and returns what the kernel did; leaves the guest as found. */
export async function observeFlowOffload(guest: OffloadGuest): Promise<FlowOffloadObservations> {
  const { host, arch } = guest;
  const started = Date.now();
  const helper = tcxHelperBinaryFor(arch, arch === 'mips' ? 'big' : 'little');
  if (!helper) throw new Error(`no wf-tcx build for ${arch}: run npm run -s bpf:build`);
  await host.writeFile(HELPER, helper, 0o755);
  const datapath = { rewrite: OFFLOAD_REWRITE, mode: 'cls_bpf' as const, helper: HELPER, uploadDir: '/tmp' };
  const traffic = await IperfPath.open(guest.namespaces.qemu);
  const phases = {} as Record<PhaseName, PhaseObservation>;
  let sqm: SqmObservation | undefined;
  try {
    await host.run(['ethtool', '-K', 'eth0', 'gro', 'off']);
    await installFw4(host, FLOWTABLE_DEVICES);
    phases.offload = await observePhase('offload', host, traffic);

    await installFw4(host, FLOWTABLE_DEVICES);
    await applyEbpf(host, datapath);
    phases['offload+ebpf'] = await observePhase('offload+ebpf', host, traffic);
    await detachEbpf(host, datapath);

    await installFw4(host, FLOWTABLE_DEVICES);
    await applyNft(host, datapath);
    phases['offload+nftables'] = await observePhase('offload+nftables', host, traffic);

    await removeFw4(host);
    phases.nftables = await observePhase('nftables', host, traffic);
    await removeNft(host);

    sqm = await observeSqmWithOffload(host, traffic);
  } finally {
    await detachEbpf(host, datapath).catch(() => undefined);
    await removeNft(host).catch(() => undefined);
    await removeFw4(host).catch(() => undefined);
    await host.run(['ethtool', '-K', 'eth0', 'gro', 'on']);
    await host.run(['rm', '-f', HELPER]);
    await traffic.close();
  }
  return { phases, sqm: sqm!, seconds: (Date.now() - started) / 1000 };
}

async function observePhase(phase: PhaseName, host: RouterHost, traffic: IperfPath): Promise<PhaseObservation> {
  const dir = mkdtempSync(join(tmpdir(), 'wf-offload-'));
  const file = join(dir, 'peer.pcap');
  let mbps = 0;
  const samples: KernelSample[] = [];
  try {
    await whileTcpdump(
      { netns: traffic.peer.netns, dev: traffic.peerDev },
      ['-s', '128', '-U', '-n', '-w', file, `tcp and src host ${PATH_ADDR.client} and dst port ${IPERF_PORT}`],
      async () => {
        const run = traffic.iperf(SECONDS);
        run.catch(() => undefined); // awaited below; a failure while sampling must not go unhandled
        const t0 = Date.now();
        await sleep(FIRST_SAMPLE_MS);
        samples.push(await sampleKernel(host));
        await sleep(BETWEEN_SAMPLES_MS);
        samples.push(await sampleKernel(host));
        if (Date.now() - t0 > (SECONDS - 1) * 1000)
          throw new Error(`${phase}: sampling the guest outlasted the ${SECONDS} s flow`);
        mbps = (await run).mbps;
      },
    );
    const packets = readPcap(file).packets;
    const [a, b] = samples as [KernelSample, KernelSample];
    const wire = flowWire(packets, OFFLOAD_REWRITE);
    // This phase's flows only: entries of earlier phases linger in TIME_WAIT.
    const ours = new Set(wire.flows.map((f) => f.sport));
    const flows = [...iperfFlows(a, PATH_ADDR.peer), ...iperfFlows(b, PATH_ADDR.peer)].filter((f) => ours.has(f.sport));
    const offloaded = new Set(flows.filter((f) => f.offload).map((f) => f.sport));
    const delta = (f: (s: KernelSample) => number | null) => {
      const x = f(a);
      const y = f(b);
      return x === null || y === null ? null : y - x;
    };
    return {
      phase,
      mbps,
      offloadedFlows: offloaded.size,
      conntrack: [...new Set(flows.map((f) => f.line))],
      lanRx: delta((s) => s.dev.eth0?.rx ?? 0) ?? 0,
      forwardHook: delta((s) => s.forwardPackets),
      nftRewrite: delta((s) => s.nftRewritePackets),
      wanQdisc: delta((s) => s.qdiscPackets) ?? 0,
      wire,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Sorts the captured client -> peer segments into first SYNs and per-flow data runs, judged against `rewrite`. */
export function flowWire(packets: PcapPacket[], rewrite: RewriteConfig): FlowWire {
  const w: FlowWire = {
    firstSyns: [],
    data: 0,
    dataTtlRewritten: 0,
    dataTtlForwarded: 0,
    dataIdZero: 0,
    flows: [],
    maxFrame: 0,
  };
  const marks = new Map<number, { rewritten: boolean[]; closeTtl: number | null }>();
  for (const pk of packets) {
    const p = findIpv4(pk.data);
    if (!p?.tcp) continue;
    w.maxFrame = Math.max(w.maxFrame, pk.origLen);
    const t = p.tcp;
    if ((t.flags & 0x12) === 0x02) {
      w.firstSyns.push({ ttl: p.ttl, window: t.window, timestamp: t.options.some((o) => o[0] === 8), id: p.id });
      continue;
    }
    const sport = pk.data.readUInt16BE(t.l4);
    const flow = marks.get(sport) ?? { rewritten: [], closeTtl: null };
    marks.set(sport, flow);
    if (t.flags & 0x05) flow.closeTtl ??= p.ttl;
    const doff = (pk.data[t.l4 + 12]! >> 4) * 4;
    if (p.totLen - p.ihl - doff <= 0) continue;
    w.data++;
    if (p.id === 0) w.dataIdZero++;
    if (p.ttl === rewrite.ttl) w.dataTtlRewritten++;
    else if (p.ttl === FORWARDED_TTL) w.dataTtlForwarded++;
    flow.rewritten.push(p.ttl === rewrite.ttl);
  }
  for (const [sport, { rewritten, closeTtl }] of marks) {
    const first = rewritten.indexOf(false);
    const last = rewritten.lastIndexOf(false);
    const count = (from: number, to: number) => rewritten.slice(from, to).filter(Boolean).length;
    w.flows.push({
      sport,
      data: rewritten.length,
      rewrittenBefore: first < 0 ? rewritten.length : first,
      notRewritten: rewritten.filter((x) => !x).length,
      rewrittenBetween: first < 0 ? 0 : count(first, last),
      rewrittenTail: first < 0 ? 0 : count(last + 1, rewritten.length),
      closeTtl,
    });
  }
  return w;
}

const sleep = (ms: number) => new Promise((res) => setTimeout(res, ms));

/** One verdict per claim of core/plan/conflicts.ts the phases test; empty when all hold. */
export function judgeFlowOffload(o: FlowOffloadObservations): string[] {
  const bad: string[] = [];
  const that = (cond: boolean, what: string) => {
    if (!cond) bad.push(what);
  };
  const synsRewritten = (p: PhaseObservation) =>
    p.wire.firstSyns.length > 0 &&
    p.wire.firstSyns.every(
      (s) => s.ttl === OFFLOAD_REWRITE.ttl && s.window === OFFLOAD_REWRITE.synWindow && !s.timestamp,
    );
  for (const p of Object.values(o.phases)) {
    that(p.lanRx > 500, `${p.phase}: only ${p.lanRx} packets came in at the LAN between the samples`);
    that(p.wire.data > 1000, `${p.phase}: the peer saw only ${p.wire.data} data segments`);
  }
  for (const name of ['offload', 'offload+ebpf', 'offload+nftables'] as const) {
    const p = o.phases[name];
    that(p.offloadedFlows >= 1, `${name}: no iperf3 flow marked [OFFLOAD]: ${p.conntrack.join(' | ')}`);
    that(
      p.forwardHook !== null && p.forwardHook < p.lanRx / 100,
      `${name}: the forward hook counted ${p.forwardHook} of ${p.lanRx} packets: not bypassed`,
    );
    // Software offload leaves through dev_queue_xmit: the egress qdisc still sends every packet.
    that(p.wanQdisc > p.lanRx / 2, `${name}: the WAN qdisc sent ${p.wanQdisc} packets for ${p.lanRx} in`);
  }
  that(o.phases.offload.forwardHook !== null, 'offload: no forward counter');
  const ebpf = o.phases['offload+ebpf'];
  that(
    ebpf.wire.dataTtlRewritten === ebpf.wire.data,
    `offload+ebpf: ${ebpf.wire.data - ebpf.wire.dataTtlRewritten} data segments without the TTL rewrite`,
  );
  that(
    ebpf.wire.dataIdZero === ebpf.wire.data,
    `offload+ebpf: ${ebpf.wire.data - ebpf.wire.dataIdZero} data segments with a non-zero IP ID`,
  );
  that(synsRewritten(ebpf), `offload+ebpf: first SYNs not rewritten: ${JSON.stringify(ebpf.wire.firstSyns)}`);
  const nft = o.phases['offload+nftables'];
  that(synsRewritten(nft), `offload+nftables: first SYNs not rewritten: ${JSON.stringify(nft.wire.firstSyns)}`);
  that(
    nft.wire.dataTtlForwarded > nft.wire.data * 0.9,
    `offload+nftables: ${nft.wire.dataTtlForwarded} of ${nft.wire.data} data segments arrived with the forwarded TTL ${FORWARDED_TTL}`,
  );
  const between = nft.wire.flows.reduce((n, f) => n + f.rewrittenBetween, 0);
  that(
    between === 0,
    `offload+nftables: ${between} segments rewritten between unrewritten ones (offload came and went)`,
  );
  that(nft.wire.data - nft.wire.dataIdZero > nft.wire.data * 0.9, 'offload+nftables: IP IDs still zeroed');
  that(
    nft.nftRewrite !== null && nft.nftRewrite < nft.lanRx / 100,
    `offload+nftables: our rules counted ${nft.nftRewrite} of ${nft.lanRx} packets: not bypassed`,
  );
  const control = o.phases.nftables;
  that(control.offloadedFlows === 0, 'nftables (control): a flow was offloaded without a flowtable');
  that(
    control.wire.dataTtlRewritten === control.wire.data,
    `nftables (control): ${control.wire.data - control.wire.dataTtlRewritten} data segments not rewritten`,
  );
  that(control.wire.dataIdZero === control.wire.data, 'nftables (control): IP IDs not all zero');
  return bad;
}

export interface FlowOffloadCheckResult {
  name: string;
  ok: boolean;
  detail: string;
  numbers: Record<string, number>;
  failures: string[];
  report: FlowOffloadObservations;
}

export async function runFlowOffloadCheck(guest: OffloadGuest): Promise<FlowOffloadCheckResult> {
  const o = await observeFlowOffload(guest);
  const failures = [...judgeFlowOffload(o), ...judgeSqm(o.sqm)];
  const numbers: Record<string, number> = { 'total.seconds': o.seconds };
  for (const p of Object.values(o.phases)) {
    numbers[`${p.phase}.mbps`] = Math.round(p.mbps * 10) / 10;
    numbers[`${p.phase}.offloadedFlows`] = p.offloadedFlows;
    numbers[`${p.phase}.dataSegments`] = p.wire.data;
    numbers[`${p.phase}.dataTtlRewritten`] = p.wire.dataTtlRewritten;
    numbers[`${p.phase}.forwardHookPerLanRx`] = p.forwardHook === null ? -1 : p.forwardHook / Math.max(1, p.lanRx);
  }
  numbers['sqm.upload.mbps'] = Math.round(o.sqm.upload.mbps * 10) / 10;
  numbers['sqm.download.mbps'] = Math.round(o.sqm.download.mbps * 10) / 10;
  const e = o.phases['offload+ebpf'].wire;
  const n = o.phases['offload+nftables'].wire;
  return {
    name: 'flow-offload',
    ok: failures.length === 0,
    detail:
      failures.length === 0
        ? `${guest.arch}: software-offloaded flows skip the forward and postrouting hooks but not TC egress or the qdisc: eBPF rewrote ${e.dataTtlRewritten}/${e.data} offloaded data segments, nftables ${n.dataTtlRewritten}/${n.data} (first SYNs rewritten in both); SQM held them to ${o.sqm.upload.mbps.toFixed(1)}/${o.sqm.download.mbps.toFixed(1)} Mbit/s`
        : `${guest.arch}: ${failures.length} failures: ${failures.slice(0, 5).join(' | ')}`,
    numbers,
    failures,
    report: o,
  };
}

/** The registry's view (lab/checks/index.ts): mipsel only, whose kernel has nf_flow_table as modules. */
export const flowOffloadCheck: LabCheck = {
  name: 'flow-offload',
  arches: ['mipsel'],
  async run(guest) {
    const r = await runFlowOffloadCheck(guest);
    return { ok: r.ok, detail: r.detail, numbers: r.numbers };
  },
};
