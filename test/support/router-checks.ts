/**
 * Checks for the agent tests on a real kernel (test/support/datapath-topology.ts): what the kernel
 * runs at TCX egress of a WAN, and what router-originated traffic looks like on the wire.
 */
import { expect } from 'vitest';
import { ebpfStatus } from '../../agent/datapath/loader.js';
import { LOCAL_TCX_HELPER } from '../../agent/datapath/programs.js';
import { PROGRAM_NAMES } from '../../core/programs.js';
import type { RouterHost } from '../../core/host/router-host.js';
import { ADDR, type Topology } from './datapath-topology.js';
import { checkWire, type WireReport } from '../../lab/wire/wire-check.js';

/** Ids of the TCX programs on the device, asked of the kernel (wf-tcx query), not of our pins. */
export async function tcxProgIds(host: RouterHost, dev = 'wan0'): Promise<number[]> {
  const ifindex = (JSON.parse((await host.run(['ip', '-j', 'link', 'show', dev])).stdout) as { ifindex: number }[])[0]!
    .ifindex;
  const r = await host.run([LOCAL_TCX_HELPER, 'query', String(ifindex)]);
  return (JSON.parse(r.stdout) as { programs: { prog_id: number }[] }).programs.map((p) => p.prog_id).sort();
}

/**
 * The four rewrites run on the device: ebpfStatus lists all four, and the kernel runs
 * exactly their programs (one per rewrite, or one chained program: the loader's layout).
 */
export async function fourRewritesRun(host: RouterHost, pinRoot: string, dev = 'wan0'): Promise<boolean> {
  const iface = (await ebpfStatus(host, { pinRoot })).interfaces.find((i) => i.ifname === dev);
  if (!iface || iface.mode !== 'tcx' || iface.programs.map((p) => p.program).join() !== PROGRAM_NAMES.join())
    return false;
  const ids = [...new Set(iface.programs.map((p) => p.progId))].sort();
  return ids.join() === (await tcxProgIds(host, dev)).join();
}

/** Router-originated ping + iperf3 (two TCP handshakes) captured on the peer, checked on the wire. */
export async function wireFromRouter(topo: Topology, label: string, ttl: number): Promise<WireReport> {
  const pkts = await topo.capture(async () => {
    const p = await topo.router.run(['ping', '-c', '3', '-i', '0.2', '-W', '2', ADDR.peer]);
    if (p.code !== 0) throw new Error(`ping: ${p.stdout}${p.stderr}`);
    const r = await topo.router.run(['iperf3', '-c', ADDR.peer, '-p', '5201', '-n', '1M', '-J'], { timeoutMs: 30_000 });
    if (r.code !== 0) throw new Error(`iperf3: ${r.stdout.slice(-300)}${r.stderr}`);
  }, label);
  const rep = checkWire(pkts, {
    ttl,
    idZero: true,
    synWindow: 65535,
    noSynTimestamp: true,
    allowPartialChecksum: true,
  });
  expect(rep.violations, label).toEqual([]);
  // The checks had something to bite on: ICMP and the first SYNs of iperf3's control and data connections.
  expect(rep.icmp, `${label}: ICMP echo requests`).toBe(3);
  expect(rep.firstSyns, `${label}: first SYNs`).toBeGreaterThanOrEqual(2);
  return rep;
}
