/**
 * Kernel/tool preflight for the datapath tests: a missing feature fails the suite with the
 * feature's name; nothing is skipped.
 */
import { LocalHost } from '../../core/host/local-host.js';
import { LOCAL_TCX_HELPER } from '../../agent/datapath/programs.js';
import { probeTcx } from '../../agent/datapath/wf-tcx.js';
import type { Topology } from './datapath-topology.js';

export async function requireFeatures(topo: Topology, need: ('tcx' | 'cls_bpf' | 'nftables')[]): Promise<void> {
  const local = new LocalHost();
  for (const bin of ['bpftool', 'tc', 'ip', 'nft', 'tcpdump', 'iperf3', 'ethtool', 'nsenter', LOCAL_TCX_HELPER]) {
    const r = await local.run(['sh', '-c', `command -v ${bin}`]);
    if (r.code !== 0)
      throw new Error(`missing tool: ${bin}${bin === LOCAL_TCX_HELPER ? ' (run npm run bpf:build)' : ''}`);
  }
  const mk = await local.run([LOCAL_TCX_HELPER, 'mkdir', topo.pinRoot]);
  if (mk.code !== 0) throw new Error(`missing kernel feature: bpffs at /sys/fs/bpf (${mk.stdout.trim()})`);
  if (need.includes('tcx')) {
    const p = await probeTcx(topo.router);
    if (!p.ok) throw new Error(`missing kernel feature: TCX (BPF_TCX_EGRESS links, CONFIG_NET_XGRESS): ${p.reason}`);
  }
  if (need.includes('cls_bpf')) {
    const q = await topo.router.run(['tc', 'qdisc', 'add', 'dev', 'lan0', 'clsact']);
    if (q.code !== 0) throw new Error(`missing kernel feature: clsact qdisc (CONFIG_NET_SCH_INGRESS): ${q.stderr}`);
    await topo.router.run(['tc', 'qdisc', 'del', 'dev', 'lan0', 'clsact']);
  }
  if (need.includes('nftables')) {
    const n = await topo.router.run(['nft', '-f', '-'], {
      input:
        'table inet wf_probe {\n chain c {\n  type filter hook postrouting priority 0;\n  tcp flags & (syn | ack) == syn reset tcp option timestamp\n }\n}\ndelete table inet wf_probe\n',
    });
    if (n.code !== 0)
      throw new Error(`missing kernel feature: nftables inet postrouting with tcp option reset: ${n.stderr}`);
  }
  const g = await topo.router.run(['ip', 'link', 'set', 'dev', 'lan0', 'gso_max_segs', '65535']);
  if (g.code !== 0) throw new Error(`missing feature: ip link set gso_max_segs (IFLA_GSO_MAX_SEGS): ${g.stderr}`);
}
