/**
 * Software flow offloading against the rewrites on the mipsel guest's real 6.1 kernel (issue 34,
 * item 3): one boot, lab/checks/flow-offload.ts's four phases, and each claim of
 * core/plan/conflicts.ts as an assertion on what the kernel did. Needs root, QEMU and the lab
 * image (built on first use); a guest that cannot boot fails the file, it never skips.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGuest, type Guest } from '../../lab/guest.js';
import {
  FORWARDED_TTL,
  OFFLOAD_REWRITE,
  observeFlowOffload,
  type FlowOffloadObservations,
  type PhaseObservation,
} from '../../lab/checks/flow-offload.js';
import { SQM_RATES } from '../../lab/checks/offload-sqm.js';

let guest: Guest | undefined;
let seen: FlowOffloadObservations;

beforeAll(async () => {
  guest = await startGuest('mipsel', { jit: true });
  seen = await observeFlowOffload(guest);
  // The evidence, one line per phase, for whoever reads the run's output.
  for (const p of Object.values(seen.phases)) {
    console.log(JSON.stringify({ ...p, conntrack: p.conntrack.slice(0, 3) }));
  }
  console.log(JSON.stringify({ sqm: seen.sqm }));
}, 900_000);

afterAll(async () => {
  await guest?.stop();
}, 60_000);

const phase = (name: keyof FlowOffloadObservations['phases']): PhaseObservation => seen.phases[name];

describe('software flow offload on the mipsel guest (fw4 flowtable on eth0 + eth1)', () => {
  it('offloads the forwarded TCP flow: [OFFLOAD] in /proc/net/nf_conntrack, the forward hook no longer counts it', () => {
    const p = phase('offload');
    expect(p.offloadedFlows, p.conntrack.join('\n')).toBeGreaterThanOrEqual(1);
    expect(p.conntrack.some((l) => l.includes('[OFFLOAD]') && l.includes('dport=5201'))).toBe(true);
    expect(p.lanRx).toBeGreaterThan(500);
    expect(p.forwardHook).not.toBeNull();
    // Packets keep coming in at the LAN; the forward chain's counter stands still.
    expect(p.forwardHook!).toBeLessThan(p.lanRx / 100);
  });

  it('offloaded packets still pass the WAN egress qdisc (dev_queue_xmit): queueing disciplines see them', () => {
    for (const name of ['offload', 'offload+ebpf', 'offload+nftables'] as const) {
      const p = phase(name);
      expect(p.offloadedFlows, `${name}: ${p.conntrack.join('\n')}`).toBeGreaterThanOrEqual(1);
      expect(p.wanQdisc, name).toBeGreaterThan(p.lanRx / 2);
    }
  });

  it('the eBPF chain (TC egress, cls_bpf) still rewrites every packet of an offloaded flow', () => {
    const p = phase('offload+ebpf');
    expect(p.offloadedFlows).toBeGreaterThanOrEqual(1);
    expect(p.wire.data).toBeGreaterThan(1000);
    expect(p.wire.dataTtlRewritten).toBe(p.wire.data);
    expect(p.wire.dataIdZero).toBe(p.wire.data);
    expect(p.wire.firstSyns.length).toBeGreaterThan(0);
    for (const syn of p.wire.firstSyns)
      expect(syn).toMatchObject({ ttl: OFFLOAD_REWRITE.ttl, window: OFFLOAD_REWRITE.synWindow, timestamp: false });
  });

  it('the nftables fallback rewrites the first SYN, then stops for the flow once it is offloaded', () => {
    const p = phase('offload+nftables');
    expect(p.offloadedFlows).toBeGreaterThanOrEqual(1);
    // The first SYN takes the full path (a flow is offloaded only once established): all four rewrites.
    expect(p.wire.firstSyns.length).toBeGreaterThan(0);
    for (const syn of p.wire.firstSyns)
      expect(syn).toMatchObject({ ttl: OFFLOAD_REWRITE.ttl, window: OFFLOAD_REWRITE.synWindow, timestamp: false });
    // Then the offloaded segments arrive with the forwarded TTL and the client's IP IDs ...
    expect(p.wire.data).toBeGreaterThan(1000);
    expect(p.wire.dataTtlForwarded).toBeGreaterThan(p.wire.data * 0.9);
    expect(p.wire.data - p.wire.dataIdZero).toBeGreaterThan(p.wire.data * 0.9);
    // ... and once a flow's segment went unrewritten, none was rewritten again while it stayed
    // offloaded (a closing flow leaves the flowtable: its last segments may be rewritten again).
    for (const f of p.wire.flows) expect(f.rewrittenBetween, JSON.stringify(f)).toBe(0);
    // At most the first data segment of a flow passes before the offload (handshake ACK + one).
    for (const f of p.wire.flows) expect(f.rewrittenBefore, JSON.stringify(f)).toBeLessThanOrEqual(2);
    // Our postrouting rules stop counting while packets keep coming in.
    expect(p.nftRewrite).not.toBeNull();
    expect(p.nftRewrite!).toBeLessThan(p.lanRx / 100);
  });

  it('control: the same nftables fallback without a flowtable rewrites every data segment', () => {
    const p = phase('nftables');
    expect(p.offloadedFlows).toBe(0);
    expect(p.wire.data).toBeGreaterThan(1000);
    expect(p.wire.dataTtlRewritten).toBe(p.wire.data);
    expect(p.wire.dataIdZero).toBe(p.wire.data);
    expect(p.nftRewrite!).toBeGreaterThan(p.lanRx / 2);
    expect(FORWARDED_TTL).not.toBe(OFFLOAD_REWRITE.ttl);
  });

  it('SQM still shapes software-offloaded flows: cake on the WAN egress, and ifb + cake on its ingress', () => {
    const { upload, download, egressCake, ingressCake } = seen.sqm;
    // Upload: offloaded, yet held to the egress cake (the flowtable transmits through dev_queue_xmit).
    expect(upload.offloadedFlows, upload.conntrack.join('\n')).toBeGreaterThanOrEqual(1);
    expect(upload.mbps).toBeGreaterThan(0);
    expect(upload.mbps).toBeLessThanOrEqual(SQM_RATES.uploadMbit * 1.05);
    // Download: the ifb re-injects with tc classification skipped, which skips the flowtable's
    // ingress hook too: the WAN -> LAN packets take the forward hook and are shaped.
    expect(download.mbps).toBeGreaterThan(0);
    expect(download.mbps).toBeLessThanOrEqual(SQM_RATES.downloadMbit * 1.05);
    expect(download.forwardHook).toBeGreaterThan(download.wanRx / 2);
    expect(egressCake.packets).toBeGreaterThan(0);
    expect(ingressCake.packets).toBeGreaterThan(0);
    expect(egressCake.drops + ingressCake.drops).toBeGreaterThan(0);
  });
});
