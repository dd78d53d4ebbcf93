/**
 * Frames whose IPv4 header sits in page fragments, the programs' pull path: sent out of the
 * router's wan0 through an AF_PACKET TX ring (tx-ring-send.py), which leaves only the Ethernet
 * header in the skb's linear area, with a probe filter (paged-probe.bpf.c) in front of ours that
 * counts the frames whose header really is outside it.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileBpfObject } from '../../bpf/progrun.js';
import type { Topology } from '../../support/datapath-topology.js';

const HERE = fileURLToPath(new URL('.', import.meta.url));
/** cls_bpf priority of the paged-header probe: below ours (CLS_PRIO), so it runs first. */
const PROBE_PRIO = 1;

/** The frames sent (Ethernet header added), what the peer captured, and how many the probe saw paged. */
export async function sendPagedFrames(topo: Topology, label: string, payloads: Buffer[]) {
  const mac = async (ns: 'router' | 'peer', dev: string) =>
    Buffer.from(
      (JSON.parse((await topo[ns].run(['ip', '-j', 'link', 'show', dev])).stdout)[0].address as string).replaceAll(
        ':',
        '',
      ),
      'hex',
    );
  const l2 = Buffer.concat([await mac('peer', 'up0'), await mac('router', 'wan0'), Buffer.from([0x08, 0x00])]);
  const frames = payloads.map((p) => Buffer.concat([l2, p]));
  const work = mkdtempSync(join(tmpdir(), 'wf-paged-'));
  const pin = `${topo.pinRoot}-paged-probe`;
  try {
    const obj = compileBpfObject(join(HERE, 'paged-probe.bpf.c'), join(work, 'paged-probe.o'));
    mkdirSync(pin, { recursive: true });
    execFileSync('bpftool', ['prog', 'load', obj, `${pin}/prog`, 'type', 'classifier', 'pinmaps', `${pin}/maps`]);
    const tc = await topo.router.run([
      'tc',
      'filter',
      'add',
      'dev',
      'wan0',
      'egress',
      'prio',
      String(PROBE_PRIO),
      'bpf',
      'object-pinned',
      `${pin}/prog`,
      'direct-action',
    ]);
    if (tc.code !== 0) throw new Error(`attaching the probe: ${tc.stderr}`);
    const pkts = await topo.capture(async () => {
      const r = await topo.router.run([
        'python3',
        join(HERE, 'tx-ring-send.py'),
        'wan0',
        ...frames.map((f) => f.toString('hex')),
      ]);
      if (r.code !== 0) throw new Error(`tx-ring-send.py: ${r.stderr}`);
    }, label);
    const dump = JSON.parse(
      execFileSync('bpftool', ['-j', 'map', 'dump', 'pinned', `${pin}/maps/paged_counts`]).toString(),
    ) as { formatted: { value: { frames: number; paged: number } } }[];
    return { pkts, frames, paged: dump[0]!.formatted.value.paged };
  } finally {
    await topo.router.run(['tc', 'filter', 'del', 'dev', 'wan0', 'egress', 'prio', String(PROBE_PRIO)]);
    rmSync(pin, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
  }
}
