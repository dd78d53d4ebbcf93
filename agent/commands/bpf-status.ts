/**
 * The BPF section of a diagnostic bundle on a real router: what the agent itself reads back
 * (our pinned programs, their attach mode per interface, the nftables fallback table, the
 * eligible WAN set), then the kernel's own views of the same, `tc filter show` per interface
 * and `bpftool net` / `bpftool prog`, for what our reader might miss.
 */
import type { RouterHost } from '../../core/host/router-host.js';
import { readLive, type DatapathPaths } from '../apply/live.js';
import type { SectionSource } from './section-source.js';

export async function bpfStatus(host: RouterHost, paths: DatapathPaths): Promise<SectionSource> {
  const commands = ['wrtfleet live state'];
  const lines: string[] = [];
  const live = await readLive(host, paths);
  lines.push(`datapath: ${live.ebpf.mode}${live.nft.present ? ' (nftables fallback table present)' : ''}`);
  for (const i of live.ebpf.interfaces)
    lines.push(
      `  ${i.ifname} (ifindex ${i.ifindex}, ${i.mode}): ${i.programs.map((p) => `${p.program} in ${p.object} prog ${p.progId}${p.linkId ? ` link ${p.linkId}` : ''}`).join(', ') || 'nothing attached'}`,
    );
  if (live.nft.present)
    lines.push(`  nftables: ${live.nft.rules} rules on ${live.nft.interfaces.join(', ') || 'no interface'}`);
  lines.push(`eligible WAN: ${live.eligible.join(', ') || 'none'}`);
  lines.push(`offload: configured ${live.offload.configured ?? 'unknown'}, live ${live.offload.live ?? 'unknown'}`);
  const interfaces = [...new Set([...live.eligible, ...live.ebpf.interfaces.map((i) => i.ifname)])].sort();
  const views = [
    ...interfaces.map((ifname) => ['tc', 'filter', 'show', 'dev', ifname, 'egress']),
    ['bpftool', 'net', 'show'],
    ['bpftool', 'prog', 'show'],
  ];
  for (const argv of views) {
    const command = argv.join(' ');
    commands.push(command);
    const r = await host.run(argv);
    lines.push(
      '',
      `# ${command}${r.code === 0 ? '' : ` (exit ${r.code ?? 'none'}: ${r.code === 127 ? 'not found' : r.stderr.trim()})`}`,
    );
    if (r.stdout.trim()) lines.push(r.stdout.trimEnd());
  }
  return { command: commands.join('; '), text: `${lines.join('\n')}\n`, error: '' };
}
