/**
 * A lab guest's kernel-side state, read with the guest's own tools, and what changed in it: the
 * datapath checks take it before the agent touches the guest and hold every rollback and detach
 * to leaving it as found.
 */
import { runChecked, type RouterHost } from '../../core/host/router-host.js';

/** Where the proxy puts what it uploads (agent/router-agent.ts: paths.uploadDir). */
export const UPLOAD_DIR = '/tmp';

const STATE_MARK = '@@wflab-state';

/**
 * The guest's kernel-side state as the brief lists it, from the guest's own tools (not the
 * agent's readers): qdiscs, tc filters both ways on every device, loaded programs, the bpffs
 * tree, the nftables ruleset, every device's gso_max_segs, and object files left in /tmp.
 */
export async function guestState(host: RouterHost): Promise<Record<string, string>> {
  const links = JSON.parse(await runChecked(host, ['ip', '-d', '-j', 'link', 'show'])) as {
    ifname: string;
    gso_max_segs?: number;
  }[];
  const reads: [string, string][] = [
    ['tc qdisc show', 'tc qdisc show'],
    ...links.flatMap((l): [string, string][] => [
      [`tc filter ${l.ifname} egress`, `tc filter show dev '${l.ifname}' egress`],
      [`tc filter ${l.ifname} ingress`, `tc filter show dev '${l.ifname}' ingress`],
    ]),
    ['bpftool prog show', 'bpftool prog show'],
    ['/sys/fs/bpf', 'find /sys/fs/bpf'],
    ['nft list ruleset', 'nft list ruleset'],
    ['/tmp objects', `ls ${UPLOAD_DIR} | grep -E '^wrtfleet-.*\\.o$' || true`],
  ];
  // One command for all of them: on dropbear before 2024.86 commands run one at a time, and
  // each costs a few hundred ms of emulated fork and exec.
  const script = reads.map(([key, cmd]) => `echo '${STATE_MARK} ${key}'; { ${cmd}; } 2>&1; echo "${STATE_MARK}rc $?"`);
  const text = await runChecked(host, ['sh', '-c', script.join('\n')]);
  const out: Record<string, string> = {};
  let key: string | undefined;
  let body: string[] = [];
  for (const line of text.split('\n')) {
    if (line.startsWith(`${STATE_MARK} `)) {
      key = line.slice(STATE_MARK.length + 1);
      body = [];
    } else if (key !== undefined && line.startsWith(`${STATE_MARK}rc `)) {
      out[key] = `${line.slice(STATE_MARK.length + 3)} ${body.join('\n')}`;
      key = undefined;
    } else body.push(line);
  }
  const missing = reads.filter(([k]) => !(k in out)).map(([k]) => k);
  if (missing.length) throw new Error(`${host.description}: no state read for ${missing.join(', ')}`);
  out['gso_max_segs'] = links.map((l) => `${l.ifname}=${l.gso_max_segs}`).join(' ');
  return out;
}

/** The keys whose state differs, with both texts (empty: the same). */
export function stateDiff(before: Record<string, string>, after: Record<string, string>): string[] {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...keys]
    .filter((k) => before[k] !== after[k])
    .map((k) => `${k}: before ${JSON.stringify(before[k] ?? null)} after ${JSON.stringify(after[k] ?? null)}`);
}
