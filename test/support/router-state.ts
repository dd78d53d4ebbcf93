/**
 * Full-state dumps of a namespace router, taken independently of the agent's own readers,
 * for "exactly as before" comparisons: TC/TCX attachments, bpffs pins, the nftables
 * ruleset, qdiscs and gso_max_segs. Kernel-assigned numbers (program and link ids, tags,
 * load times, counters, the TCX chain's change counter) are masked: a program restored by reloading the same object is the
 * same program with a new id; everything else (names, fingerprinted pin paths, priorities,
 * handles, rules) must match exactly.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOCAL_TCX_HELPER } from '../../agent/datapath/programs.js';
import type { RouterHost } from '../../core/host/router-host.js';
import { readPcap, type PcapPacket } from '../../lab/wire/pcap.js';

function mask(text: string): string {
  return text
    .replace(
      /"(prog_id|link_id|id|tag|load_time|run_time_ns|run_cnt|bytes|packets|handle|revision)":\s*("?[0-9a-fx]+"?)/g,
      '"$1":"#"',
    )
    .replace(/\b(id|tag|packets|bytes) [0-9a-fx]+/g, '$1 #')
    .replace(/bpf_[0-9a-f]+/g, 'bpf_#');
}

export async function fullState(
  host: RouterHost,
  ifnames: string[],
  pinRoot = '/sys/fs/bpf',
): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const grab = async (key: string, argv: string[]) => {
    const r = await host.run(argv);
    out[key] = mask(`${r.code} ${r.stdout}`);
  };
  for (const dev of ifnames) {
    await grab(`tc filter ${dev}`, ['tc', '-j', 'filter', 'show', 'dev', dev, 'egress']);
    await grab(`tc qdisc ${dev}`, ['tc', 'qdisc', 'show', 'dev', dev]);
    const link = await host.run(['ip', '-d', '-j', 'link', 'show', 'dev', dev]);
    const info = (JSON.parse(link.stdout) as { ifindex: number; gso_max_segs: number }[])[0]!;
    out[`gso ${dev}`] = String(info.gso_max_segs);
    await grab(`tcx ${dev}`, [LOCAL_TCX_HELPER, 'query', String(info.ifindex)]);
  }
  // bpffs lists entries in creation order; a restored pin is the same pin, so compare as a set.
  await grab('pins', ['sh', '-c', `find ${pinRoot} -path '${pinRoot}/*' -not -name '*.debug' | sort`]);
  await grab('nft', ['nft', 'list', 'ruleset']);
  return out;
}

/**
 * Captures IPv4 arriving on `dev` in namespace `ns` while `fn` runs (tcpdump). Immediate mode:
 * otherwise a few packets can sit in a not-yet-retired TPACKET_V3 block when tcpdump is stopped.
 */
export async function capture(ns: string, dev: string, fn: () => Promise<void>): Promise<PcapPacket[]> {
  const dir = mkdtempSync(join(tmpdir(), 'wf-cap-'));
  const file = join(dir, 'c.pcap');
  const td = spawn(
    'nsenter',
    [
      `--net=/run/netns/${ns}`,
      'tcpdump',
      '--immediate-mode',
      '-i',
      dev,
      '-Q',
      'in',
      '-s',
      '0',
      '-U',
      '-n',
      '-w',
      file,
      'ip',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let err = '';
  td.stderr!.on('data', (d) => (err += String(d)));
  for (let i = 0; i < 50 && !err.includes('listening'); i++) await new Promise((r) => setTimeout(r, 100));
  if (!err.includes('listening')) {
    td.kill('SIGKILL');
    throw new Error(`tcpdump did not start: ${err}`);
  }
  try {
    await fn();
    await new Promise((r) => setTimeout(r, 300));
  } finally {
    const done = new Promise((r) => td.once('exit', r));
    td.kill('SIGINT');
    await done;
  }
  const pcap = readPcap(file);
  if (process.env.WF_DEBUG_CAPTURE) console.error(err, pcap.packets.length);
  rmSync(dir, { recursive: true, force: true });
  return pcap.packets;
}
