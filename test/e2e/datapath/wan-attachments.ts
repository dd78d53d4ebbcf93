/**
 * What the kernel has attached at the router namespace's WAN, asked of the kernel's own tools
 * (wf-tcx query, tc, ip), not of the loader's pins: the eBPF end-to-end test holds the loader's
 * evidence and every detach to these.
 */
import { LOCAL_TCX_HELPER } from '../../../agent/datapath/programs.js';
import type { Topology } from '../../support/datapath-topology.js';

export function wanAttachments(topo: Topology) {
  return {
    /** The TCX links on the device. */
    async tcxQuery(): Promise<{ prog_id: number; link_id: number }[]> {
      const idx = JSON.parse((await topo.router.run(['ip', '-j', 'link', 'show', 'wan0'])).stdout)[0].ifindex as number;
      const r = await topo.router.run([LOCAL_TCX_HELPER, 'query', String(idx)]);
      return (JSON.parse(r.stdout) as { programs: { prog_id: number; link_id: number }[] }).programs;
    },

    async egressFilters(dev = 'wan0'): Promise<{ pref: number; kind: string }[]> {
      const r = await topo.router.run(['tc', '-j', 'filter', 'show', 'dev', dev, 'egress']);
      return r.stdout.trim() ? (JSON.parse(r.stdout) as { pref: number; kind: string }[]) : [];
    },

    async qdiscKinds(dev = 'wan0'): Promise<string[]> {
      return (
        JSON.parse((await topo.router.run(['tc', '-j', 'qdisc', 'show', 'dev', dev])).stdout) as { kind: string }[]
      ).map((q) => q.kind);
    },

    async gsoMaxSegs(dev = 'wan0'): Promise<number> {
      return JSON.parse((await topo.router.run(['ip', '-d', '-j', 'link', 'show', dev])).stdout)[0]
        .gso_max_segs as number;
    },
  };
}
