/**
 * What the loader has pinned under bpffs, read and written. State lives in the kernel, not in
 * the agent: everything we own is pinned under the pin root (/sys/fs/bpf/wrtfleet):
 *
 *   <pinRoot>/<ifname>/ifindex-<N>/            the device this state belongs to
 *   <pinRoot>/<ifname>/<object>-<fp>/prog      the loaded program (fp = hash of the configured object)
 *   <pinRoot>/<ifname>/<object>-<fp>/link      TCX link (TCX mode only)
 *   <pinRoot>/<ifname>/<object>-<fp>/maps/wf_stats   counters
 *   <pinRoot>/<ifname>/wf_chain-<fp>/programs-<mask>/  the rewrites a wf_chain runs
 *   <pinRoot>/<ifname>/gso_max_segs-<orig>/    we lowered gso_max_segs; restore <orig> on detach
 *   <pinRoot>/<ifname>/clsact-ours/            we created the clsact qdisc
 *
 * <object> is a program name or wf_chain. bpffs only holds directories and pins, so markers
 * are directory names. bpffs refuses names containing '.', so an interface like eth0.2 is
 * stored as eth0:2 (':' cannot occur in interface names, which keeps the encoding reversible).
 * An agent restart re-reads this and changes nothing (TCX links live as long as their pin); a
 * crashed run leaves only things this layout names, which detach removes. A router upgraded in
 * place reads what the older agent pinned, so these names never change.
 */
import type { RouterHost } from '../../core/host/router-host.js';
import type { ProgramName } from '../../core/programs.js';
import { CLS_PRIO } from './cls-bpf.js';
import { CHAIN_OBJECT, chainMask, programsOfMask, type ObjectName } from './programs.js';
import { bpffsEntries, wfTcx } from './wf-tcx.js';

export const DEFAULT_PIN_ROOT = '/sys/fs/bpf/wrtfleet';

/** One pinned object on an interface: <object>-<fingerprint>/{prog,maps,link[,programs-<mask>]}. */
export interface ProgState {
  object: ObjectName;
  /** The rewrites it runs (wf_chain: from its programs-<mask> marker). */
  programs: ProgramName[];
  fingerprint: string;
  dir: string;
  hasLink: boolean;
}

/** Everything pinned for one interface. */
export interface IfaceState {
  ifname: string;
  dir: string;
  ifindex?: number;
  gsoOriginal?: number;
  clsactOurs: boolean;
  progs: ProgState[];
}

/** bpffs rejects '.', interface names cannot contain ':'. */
const ifDir = (ifname: string) => ifname.replace(/\./g, ':');
const ifFromDir = (dir: string) => dir.replace(/:/g, '.');

/** Interfaces that have a directory under the pin root. */
export async function pinnedInterfaces(host: RouterHost, helper: string, root: string): Promise<string[]> {
  return (await bpffsEntries(host, helper, root)).filter((e) => e.dir).map((e) => ifFromDir(e.name));
}

export async function readIfaceState(
  host: RouterHost,
  helper: string,
  root: string,
  ifname: string,
): Promise<IfaceState> {
  const dir = `${root}/${ifDir(ifname)}`;
  const st: IfaceState = { ifname, dir, clsactOurs: false, progs: [] };
  for (const e of await bpffsEntries(host, helper, dir)) {
    let m: RegExpMatchArray | null;
    if ((m = e.name.match(/^ifindex-(\d+)$/))) st.ifindex = Number(m[1]);
    else if ((m = e.name.match(/^gso_max_segs-(\d+)$/))) st.gsoOriginal = Number(m[1]);
    else if (e.name === 'clsact-ours') st.clsactOurs = true;
    else if ((m = e.name.match(/^([a-z_]+)-([0-9a-f]{12})$/)) && m[1]! in CLS_PRIO) {
      const pdir = `${dir}/${e.name}`;
      const inner = await bpffsEntries(host, helper, pdir);
      const object = m[1] as ObjectName;
      const mask = inner.map((x) => /^programs-(\d+)$/.exec(x.name)).find(Boolean);
      const programs = object === CHAIN_OBJECT ? programsOfMask(Number(mask?.[1] ?? 0)) : [object];
      st.progs.push({
        object,
        programs,
        fingerprint: m[2]!,
        dir: pdir,
        hasLink: inner.some((x) => x.name === 'link'),
      });
    }
  }
  return st;
}

/** Id of the program pinned at `pin`; null when nothing is pinned there. */
export async function pinnedProgId(host: RouterHost, pin: string): Promise<number | null> {
  const r = await host.run(['bpftool', '-j', 'prog', 'show', 'pinned', pin]);
  if (r.code !== 0) return null;
  return (JSON.parse(r.stdout) as { id: number }).id;
}

/** Where a configured object is pinned on an interface. */
export const objectDir = (st: IfaceState, object: ObjectName, fingerprint: string) =>
  `${st.dir}/${object}-${fingerprint}`;

/** Creates an object's directory; a wf_chain also records the rewrites it runs. */
export async function createObjectDir(
  host: RouterHost,
  helper: string,
  dir: string,
  object: ObjectName,
  runs: ProgramName[],
): Promise<void> {
  await wfTcx(host, helper, ['mkdir', dir]);
  if (object === CHAIN_OBJECT) await wfTcx(host, helper, ['mkdir', `${dir}/programs-${chainMask(runs)}`]);
}

export async function createPinRoot(host: RouterHost, helper: string, root: string): Promise<void> {
  await wfTcx(host, helper, ['mkdir', root]);
}

export async function markDevice(host: RouterHost, helper: string, st: IfaceState, ifindex: number): Promise<void> {
  await wfTcx(host, helper, ['mkdir', `${st.dir}/ifindex-${ifindex}`]);
}

export async function markClsactOurs(host: RouterHost, helper: string, st: IfaceState): Promise<void> {
  await wfTcx(host, helper, ['mkdir', `${st.dir}/clsact-ours`]);
}

export async function markGsoOriginal(
  host: RouterHost,
  helper: string,
  st: IfaceState,
  original: number,
): Promise<void> {
  await wfTcx(host, helper, ['mkdir', `${st.dir}/gso_max_segs-${original}`]);
}

export async function unmarkGsoOriginal(host: RouterHost, helper: string, st: IfaceState): Promise<void> {
  await wfTcx(host, helper, ['rm', `${st.dir}/gso_max_segs-${st.gsoOriginal}`]);
}

/** Removes a pinned path and everything below it (unpinning what it holds). */
export async function removePins(host: RouterHost, helper: string, path: string): Promise<void> {
  await wfTcx(host, helper, ['rm', path]);
}
