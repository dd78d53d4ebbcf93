/**
 * Packet capture inside a network namespace with tcpdump: what arrives at a WAN peer is what
 * the router put on the wire. Shared by the x86 datapath tests (test/support/datapath-topology.ts)
 * and the lab's checks on the MIPS guests, which capture in the guest's WAN peer namespace.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readPcap, type PcapPacket } from './pcap.js';

export interface CapturePoint {
  /** Network namespace name (/run/netns/<netns>). */
  netns: string;
  /** Interface in that namespace. */
  dev: string;
}

/**
 * Runs `fn` while tcpdump listens on `at` for incoming packets (`args`: output and filter),
 * then stops it once they have had time to land (`settleMs`); its standard output goes to
 * `onOutput`.
 */
export async function whileTcpdump(
  at: CapturePoint,
  args: string[],
  fn: () => Promise<void>,
  onOutput?: (text: string) => void,
  settleMs = 300,
): Promise<void> {
  const td = spawn('nsenter', [`--net=/run/netns/${at.netns}`, 'tcpdump', '-i', at.dev, '-Q', 'in', ...args], {
    stdio: ['ignore', onOutput ? 'pipe' : 'ignore', 'pipe'],
  });
  let err = '';
  td.stdout?.on('data', (d) => onOutput!(String(d)));
  td.stderr!.on('data', (d) => (err += String(d)));
  for (let i = 0; i < 50 && !err.includes('listening'); i++) await new Promise((res) => setTimeout(res, 100));
  if (!err.includes('listening')) {
    td.kill('SIGKILL');
    throw new Error(`tcpdump on ${at.netns}/${at.dev} did not start: ${err}`);
  }
  try {
    await fn();
    await new Promise((res) => setTimeout(res, settleMs));
  } finally {
    const done = new Promise((res) => td.once('exit', res));
    td.kill('SIGINT');
    await done;
  }
}

/**
 * Runs `fn` while tcpdump captures whole packets matching `filter` arriving at `at`;
 * returns them (Ethernet frames: anything else is an error).
 */
export async function capturePackets(
  at: CapturePoint,
  filter: string,
  fn: () => Promise<void>,
  settleMs = 300,
): Promise<PcapPacket[]> {
  const dir = mkdtempSync(join(tmpdir(), 'wf-capture-'));
  const file = join(dir, 'capture.pcap');
  try {
    await whileTcpdump(at, ['-s', '0', '-U', '--immediate-mode', '-n', '-w', file, filter], fn, undefined, settleMs);
    const pcap = readPcap(file);
    if (pcap.linktype !== 1) throw new Error(`unexpected linktype ${pcap.linktype}`);
    return pcap.packets;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
