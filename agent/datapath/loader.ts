/**
 * Attaches the rewrite chain to a router's egress interfaces, over any RouterHost.
 *
 * Kernel-facing commands: `ip`, `tc` (tc-bpf), `bpftool`, `rm` (object cleanup in /tmp) and
 * wf-tcx (bpf/tcx-helper, for TCX, which OpenWrt's tc/bpftool predate). Nothing else, so
 * the same code runs on the router and over SSH.
 *
 * State lives in the kernel, not in the agent: everything we own is pinned under
 * pinRoot (/sys/fs/bpf/wrtfleet):
 *
 *   <pinRoot>/<ifname>/ifindex-<N>/            the device this state belongs to
 *   <pinRoot>/<ifname>/<program>-<fp>/prog     the loaded program (fp = hash of the configured object)
 *   <pinRoot>/<ifname>/<program>-<fp>/link     TCX link (TCX mode only)
 *   <pinRoot>/<ifname>/<program>-<fp>/maps/wf_stats   counters
 *   <pinRoot>/<ifname>/gso_max_segs-<orig>/    we lowered gso_max_segs; restore <orig> on detach
 *   <pinRoot>/<ifname>/clsact-ours/            we created the clsact qdisc
 *
 * bpffs only holds directories and pins, so markers are directory names. bpffs refuses
 * names containing '.', so an interface like eth0.2 is stored as eth0:2 (':' cannot occur
 * in interface names, which keeps the encoding reversible). An agent restart
 * re-reads this and changes nothing (TCX links live as long as their pin); a crashed run
 * leaves only things this layout names, which detach() removes. cls_bpf filters are owned
 * by priority (CLS_PRIO) and handle (CLS_HANDLE), so leftovers are found even without pins.
 */
import { randomBytes } from 'node:crypto';
import { runChecked, type RouterHost } from '../../core/host/router-host.js';
import { readChainCounters, readCounters, type ProgramCounters } from './counters.js';
import {
  CHAIN_OBJECT,
  chainMask,
  configuredObject,
  detectEndian,
  LOCAL_TCX_HELPER,
  programsOfMask,
  type L2Mode,
  type ObjectName,
} from './programs.js';
import {
  PROGRAM_NAMES,
  validateRewrite,
  type AttachMode,
  type BpfEndian,
  type ProgramName,
  type RewriteConfig,
} from '../../core/programs.js';

export const DEFAULT_PIN_ROOT = '/sys/fs/bpf/wrtfleet';
/** Interfaces never touched, whatever the routes say (docs/DOMAIN.md, Attaching and falling back). */
export const DEFAULT_SKIP = ['lo', 'br-lan'];

/**
 * cls_bpf priorities we own, one per object: filters run in ascending priority, and
 * 0xC0DE.. sits far from tc's auto-assigned 49152 (0xC000) and from the small numbers
 * people type by hand. Each program returns TC_ACT_UNSPEC, so all of them run.
 */
export const CLS_PRIO: Record<ObjectName, number> = {
  set_ip_id_zero: 0xc0de,
  set_ip_ttl: 0xc0df,
  set_tcp_syn_window: 0xc0e0,
  clear_tcp_syn_ts: 0xc0e1,
  wf_chain: 0xc0e2,
};
export const CLS_HANDLE = 0x5746; // "WF"
const OUR_PRIOS = new Set(Object.values(CLS_PRIO));

/**
 * 'merged' (default): the selected rewrites run as one wf_chain program per interface when
 * there are two or more: one dispatch and one parse per packet instead of one per program,
 * which is most of what four programs cost on forwarded traffic (docs/BENCHMARKS.md).
 * 'separate': one program (and one TCX link or cls_bpf filter) per rewrite.
 */
export type ProgramLayout = 'merged' | 'separate';

/** What gets attached for a rewrite configuration: BPF objects and the rewrites each runs. */
export function attachUnits(
  rewrite: RewriteConfig,
  layout: ProgramLayout = 'merged',
): { object: ObjectName; programs: ProgramName[] }[] {
  const programs = PROGRAM_NAMES.filter((p) => rewrite.programs.includes(p));
  if (layout === 'merged' && programs.length > 1) return [{ object: CHAIN_OBJECT, programs }];
  return programs.map((p) => ({ object: p, programs: [p] }));
}

/** Fingerprint of the object that should run each selected program (what drift checks compare with). */
export function expectedFingerprints(
  endian: BpfEndian,
  rewrite: RewriteConfig,
  l2: L2Mode,
  layout: ProgramLayout = 'merged',
): Map<ProgramName, string> {
  const out = new Map<ProgramName, string>();
  for (const unit of attachUnits(rewrite, layout)) {
    const fingerprint = configuredObject(endian, unit.object, rewrite, l2).fingerprint;
    for (const program of unit.programs) out.set(program, fingerprint);
  }
  return out;
}

export interface DatapathOptions {
  rewrite: RewriteConfig;
  /** 'auto' (default): TCX when wf-tcx and the kernel support it, else cls_bpf. */
  mode?: 'auto' | AttachMode;
  /** BPF byte order; default: detected from the router's /bin/sh. */
  endian?: BpfEndian;
  /** wf-tcx on the router (default: the helper built by bpf/build.sh for this machine). */
  helper?: string;
  pinRoot?: string;
  /** Where configured objects are written on the router before loading (removed after). */
  uploadDir?: string;
  /**
   * set_ip_id_zero under segmentation offload: a GSO super-packet crosses TC egress once
   * and is split afterwards (NIC TSO or software GSO), which numbers the segments
   * ID, ID+1, ... So with 'single-segment' (default) the loader sets gso_max_segs 1 on
   * attached interfaces while set_ip_id_zero is in the chain: the router's own TCP then
   * builds one-segment skbs and every packet on the wire passes TC itself. 'leave' keeps
   * offload (cheaper for router-originated bulk TCP; only the first segment has ID 0).
   */
  ipIdGso?: 'single-segment' | 'leave';
  /** Explicit interface list instead of the default-route rule (types are still checked). */
  interfaces?: string[];
  skip?: string[];
  /** See ProgramLayout; default 'merged'. */
  layout?: ProgramLayout;
}

export interface AttachedProgram {
  program: ProgramName;
  /** The BPF object running it: the program's own, or wf_chain with the other rewrites. */
  object: ObjectName;
  fingerprint: string;
  progId: number;
  linkId?: number;
  prio?: number;
  pinDir: string;
}

export interface AttachedInterface {
  ifname: string;
  ifindex: number;
  l2: L2Mode;
  mode: AttachMode;
  programs: AttachedProgram[];
  /** Present when the loader lowered gso_max_segs (see ipIdGso). */
  gsoMaxSegs?: { original: number; current: number };
}

export interface DatapathEvidence {
  mode: AttachMode | 'none';
  interfaces: AttachedInterface[];
  skipped: { ifname: string; reason: string }[];
  /** What this call changed, in order (empty for an idempotent re-apply). */
  changes: string[];
}

interface LinkInfo {
  ifname: string;
  ifindex: number;
  link_type?: string;
  flags?: string[];
  gso_max_segs?: number;
  tso_max_segs?: number;
}

// ------------------------------------------------------------------ small command layer

async function tryRun(host: RouterHost, argv: string[]): Promise<{ ok: boolean; out: string; err: string }> {
  const r = await host.run(argv);
  return { ok: r.code === 0, out: r.stdout, err: (r.stderr || r.stdout).trim() };
}

async function helperJson<T>(host: RouterHost, helper: string, args: string[]): Promise<T> {
  const r = await host.run([helper, ...args]);
  let j: unknown;
  try {
    j = JSON.parse(r.stdout.trim().split('\n').pop() ?? '');
  } catch {
    throw new Error(`wf-tcx ${args.join(' ')}: no JSON (exit ${r.code}): ${r.stderr.trim()}`);
  }
  if (r.code !== 0) throw new Error(`wf-tcx ${args.join(' ')}: ${(j as { error?: string }).error ?? r.stderr}`);
  return j as T;
}

async function ls(host: RouterHost, helper: string, dir: string): Promise<{ name: string; dir: boolean }[]> {
  return (await helperJson<{ entries: { name: string; dir: boolean }[] }>(host, helper, ['ls', dir])).entries;
}

async function links(host: RouterHost): Promise<LinkInfo[]> {
  return JSON.parse(await runChecked(host, ['ip', '-d', '-j', 'link', 'show'])) as LinkInfo[];
}

async function progIdOf(host: RouterHost, pin: string): Promise<number | null> {
  const r = await tryRun(host, ['bpftool', '-j', 'prog', 'show', 'pinned', pin]);
  if (!r.ok) return null;
  return (JSON.parse(r.out) as { id: number }).id;
}

interface ClsFilter {
  prio: number;
  handle: string;
  progId?: number;
}

async function clsFilters(host: RouterHost, ifname: string): Promise<ClsFilter[]> {
  const r = await tryRun(host, ['tc', '-j', 'filter', 'show', 'dev', ifname, 'egress']);
  if (!r.ok || !r.out.trim()) return [];
  const rows = JSON.parse(r.out) as {
    pref: number;
    kind: string;
    options?: { handle?: string; prog?: { id: number } };
  }[];
  return rows
    .filter((f) => f.kind === 'bpf' && f.options?.handle)
    .map((f) => ({ prio: f.pref, handle: f.options!.handle!, progId: f.options?.prog?.id }));
}

async function hasClsact(host: RouterHost, ifname: string): Promise<boolean> {
  const r = await tryRun(host, ['tc', '-j', 'qdisc', 'show', 'dev', ifname]);
  if (!r.ok) return false;
  return (JSON.parse(r.out || '[]') as { kind: string }[]).some((q) => q.kind === 'clsact');
}

// ------------------------------------------------------------------ eligibility

export interface Eligibility {
  eligible: { ifname: string; ifindex: number; l2: L2Mode; gsoMaxSegs?: number; tsoMaxSegs?: number }[];
  skipped: { ifname: string; reason: string }[];
}

/**
 * IPv4 default-route interfaces (every table, multipath next hops included) of type
 * Ethernet or PPP, minus loopback and the skip list. Evaluated fresh on every call, so a
 * WAN that comes up late is picked up by the next re-evaluation.
 */
export async function eligibleInterfaces(
  host: RouterHost,
  opts: Pick<DatapathOptions, 'interfaces' | 'skip'> = {},
): Promise<Eligibility> {
  const skip = new Set(opts.skip ?? DEFAULT_SKIP);
  let candidates: string[];
  if (opts.interfaces) {
    candidates = [...opts.interfaces];
  } else {
    const routes = JSON.parse(
      (await runChecked(host, ['ip', '-4', '-j', 'route', 'show', 'default', 'table', 'all'])) || '[]',
    ) as {
      dev?: string;
      type?: string;
      nexthops?: { dev?: string }[];
    }[];
    candidates = [];
    for (const r of routes) {
      if (r.type && r.type !== 'unicast') continue;
      for (const d of [r.dev, ...(r.nexthops ?? []).map((n) => n.dev)])
        if (d && !candidates.includes(d)) candidates.push(d);
    }
  }
  const all = await links(host);
  const out: Eligibility = { eligible: [], skipped: [] };
  for (const name of candidates) {
    const l = all.find((x) => x.ifname === name);
    if (!l) {
      out.skipped.push({ ifname: name, reason: 'no such interface' });
      continue;
    }
    if (skip.has(name)) {
      out.skipped.push({ ifname: name, reason: 'excluded by name' });
      continue;
    }
    if (l.flags?.includes('LOOPBACK') || l.link_type === 'loopback') {
      out.skipped.push({ ifname: name, reason: 'loopback' });
      continue;
    }
    const l2: L2Mode | null = l.link_type === 'ether' ? 'ethernet' : l.link_type === 'ppp' ? 'raw-ip' : null;
    if (!l2) {
      out.skipped.push({ ifname: name, reason: `link type ${l.link_type ?? 'unknown'} is neither Ethernet nor PPP` });
      continue;
    }
    out.eligible.push({ ifname: name, ifindex: l.ifindex, l2, gsoMaxSegs: l.gso_max_segs, tsoMaxSegs: l.tso_max_segs });
  }
  return out;
}

// ------------------------------------------------------------------ probing

/** True when the kernel has TCX and wf-tcx runs on the host. */
export async function probeTcx(host: RouterHost, helper = LOCAL_TCX_HELPER): Promise<{ ok: boolean; reason?: string }> {
  const r = await host.run([helper, 'probe']);
  if (r.code === 0) return { ok: true };
  return { ok: false, reason: (r.stdout || r.stderr).trim() || `exit ${r.code}` };
}

// ------------------------------------------------------------------ per-interface state

/** One pinned object on an interface: <object>-<fingerprint>/{prog,maps,link[,programs-<mask>]}. */
interface ProgState {
  program: ObjectName;
  /** The rewrites it runs (wf_chain: from its programs-<mask> marker). */
  programs: ProgramName[];
  fingerprint: string;
  dir: string;
  hasLink: boolean;
}

interface IfaceState {
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

async function readIfaceState(host: RouterHost, helper: string, root: string, ifname: string): Promise<IfaceState> {
  const dir = `${root}/${ifDir(ifname)}`;
  const st: IfaceState = { ifname, dir, clsactOurs: false, progs: [] };
  for (const e of await ls(host, helper, dir)) {
    let m: RegExpMatchArray | null;
    if ((m = e.name.match(/^ifindex-(\d+)$/))) st.ifindex = Number(m[1]);
    else if ((m = e.name.match(/^gso_max_segs-(\d+)$/))) st.gsoOriginal = Number(m[1]);
    else if (e.name === 'clsact-ours') st.clsactOurs = true;
    else if ((m = e.name.match(/^([a-z_]+)-([0-9a-f]{12})$/)) && m[1]! in CLS_PRIO) {
      const pdir = `${dir}/${e.name}`;
      const inner = await ls(host, helper, pdir);
      const object = m[1] as ObjectName;
      const mask = inner.map((x) => /^programs-(\d+)$/.exec(x.name)).find(Boolean);
      const programs = object === CHAIN_OBJECT ? programsOfMask(Number(mask?.[1] ?? 0)) : [object];
      st.progs.push({
        program: object,
        programs,
        fingerprint: m[2]!,
        dir: pdir,
        hasLink: inner.some((x) => x.name === 'link'),
      });
    }
  }
  return st;
}

async function removeProg(
  host: RouterHost,
  helper: string,
  ifname: string,
  p: ProgState,
  changes: string[],
): Promise<void> {
  if (p.hasLink) {
    await helperJson(host, helper, ['detach', `${p.dir}/link`]);
    changes.push(`${ifname}: detached TCX link of ${p.program}-${p.fingerprint}`);
  }
  const progId = await progIdOf(host, `${p.dir}/prog`);
  if (progId !== null) {
    for (const f of await clsFilters(host, ifname)) {
      if (f.prio === CLS_PRIO[p.program] && f.progId === progId) {
        await runChecked(host, [
          'tc',
          'filter',
          'del',
          'dev',
          ifname,
          'egress',
          'prio',
          String(f.prio),
          'handle',
          f.handle,
          'bpf',
        ]);
        changes.push(`${ifname}: deleted cls_bpf filter prio ${f.prio} (${p.program})`);
      }
    }
  }
  await helperJson(host, helper, ['rm', p.dir]);
}

/** Removes every trace of our chain on one interface (pins, links, filters, gso, clsact). */
async function cleanIface(
  host: RouterHost,
  helper: string,
  st: IfaceState,
  present: LinkInfo | undefined,
  changes: string[],
): Promise<void> {
  for (const p of st.progs) {
    if (p.hasLink) {
      await helperJson(host, helper, ['detach', `${p.dir}/link`]);
      changes.push(`${st.ifname}: detached TCX link of ${p.program}`);
    }
  }
  const sameDevice = present && (st.ifindex === undefined || st.ifindex === present.ifindex);
  if (present && sameDevice) {
    await deleteOwnedFilters(host, st.ifname, changes);
    if (st.gsoOriginal !== undefined) {
      await runChecked(host, ['ip', 'link', 'set', 'dev', st.ifname, 'gso_max_segs', String(st.gsoOriginal)]);
      changes.push(`${st.ifname}: restored gso_max_segs ${st.gsoOriginal}`);
    }
    if (st.clsactOurs) await deleteClsactIfEmpty(host, st.ifname, changes);
  }
  await helperJson(host, helper, ['rm', st.dir]);
  changes.push(`${st.ifname}: removed ${st.dir}`);
}

async function deleteOwnedFilters(host: RouterHost, ifname: string, changes: string[]): Promise<void> {
  for (const f of await clsFilters(host, ifname)) {
    if (!OUR_PRIOS.has(f.prio)) continue;
    await runChecked(host, [
      'tc',
      'filter',
      'del',
      'dev',
      ifname,
      'egress',
      'prio',
      String(f.prio),
      'handle',
      f.handle,
      'bpf',
    ]);
    changes.push(`${ifname}: deleted cls_bpf filter prio ${f.prio}`);
  }
}

async function deleteClsactIfEmpty(host: RouterHost, ifname: string, changes: string[]): Promise<void> {
  const eg = await tryRun(host, ['tc', '-j', 'filter', 'show', 'dev', ifname, 'egress']);
  const ing = await tryRun(host, ['tc', '-j', 'filter', 'show', 'dev', ifname, 'ingress']);
  const empty = (s: string) => !s.trim() || (JSON.parse(s) as unknown[]).length === 0;
  if (eg.ok && ing.ok && empty(eg.out) && empty(ing.out) && (await hasClsact(host, ifname))) {
    await runChecked(host, ['tc', 'qdisc', 'del', 'dev', ifname, 'clsact']);
    changes.push(`${ifname}: deleted clsact qdisc (created by us, now empty)`);
  }
}

// ------------------------------------------------------------------ apply / detach / status

function resolved(opts: DatapathOptions) {
  return {
    helper: opts.helper ?? LOCAL_TCX_HELPER,
    root: opts.pinRoot ?? DEFAULT_PIN_ROOT,
    uploadDir: opts.uploadDir ?? '/tmp',
    ipIdGso: opts.ipIdGso ?? 'single-segment',
  };
}

/**
 * Brings the router to the desired state and returns what is attached. Idempotent:
 * a second call with the same options changes nothing. Call it again whenever interfaces
 * or routes change (see reevaluate/watch): new eligible interfaces get the chain, ones that
 * are no longer eligible lose it, devices that were recreated are re-attached.
 */
export async function applyEbpf(host: RouterHost, opts: DatapathOptions): Promise<DatapathEvidence> {
  validateRewrite(opts.rewrite);
  const { helper, root, uploadDir, ipIdGso } = resolved(opts);
  const changes: string[] = [];

  await helperJson(host, helper, ['mkdir', root]);
  let mode: AttachMode;
  if (opts.mode === 'tcx' || opts.mode === 'cls_bpf') mode = opts.mode;
  else mode = (await probeTcx(host, helper)).ok ? 'tcx' : 'cls_bpf';
  if (mode === 'tcx') {
    const p = await probeTcx(host, helper);
    if (!p.ok) throw new Error(`TCX requested but not available: ${p.reason}`);
  }
  const endian = opts.endian ?? (await detectEndian(host));
  const elig = await eligibleInterfaces(host, opts);
  const all = await links(host);

  // Interfaces we hold state for but that are no longer eligible (or vanished): clean up.
  const wanted = new Set(elig.eligible.map((e) => e.ifname));
  for (const e of await ls(host, helper, root)) {
    const ifname = ifFromDir(e.name);
    if (!e.dir || wanted.has(ifname)) continue;
    const st = await readIfaceState(host, helper, root, ifname);
    await cleanIface(
      host,
      helper,
      st,
      all.find((l) => l.ifname === ifname),
      changes,
    );
  }

  const interfaces: AttachedInterface[] = [];
  for (const iface of elig.eligible) {
    let st = await readIfaceState(host, helper, root, iface.ifname);
    if (st.ifindex !== undefined && st.ifindex !== iface.ifindex) {
      // Same name, new device (e.g. pppoe-wan redialled): its links are defunct, filters gone.
      changes.push(`${iface.ifname}: device recreated (ifindex ${st.ifindex} -> ${iface.ifindex})`);
      await cleanIface(host, helper, st, undefined, changes);
      st = await readIfaceState(host, helper, root, iface.ifname);
    }
    if (st.ifindex === undefined) await helperJson(host, helper, ['mkdir', `${st.dir}/ifindex-${iface.ifindex}`]);

    if (mode === 'cls_bpf' && !(await hasClsact(host, iface.ifname))) {
      await runChecked(host, ['tc', 'qdisc', 'add', 'dev', iface.ifname, 'clsact']);
      await helperJson(host, helper, ['mkdir', `${st.dir}/clsact-ours`]);
      changes.push(`${iface.ifname}: added clsact qdisc`);
    }
    // A mode switch (TCX <-> cls_bpf) must not leave the other mode's attachments running.
    if (mode === 'tcx') await deleteOwnedFilters(host, iface.ifname, changes);

    const attached: AttachedProgram[] = [];
    const units = attachUnits(opts.rewrite, opts.layout);
    for (const { object: program, programs: runs } of units) {
      const obj = configuredObject(endian, program, opts.rewrite, iface.l2);
      const pdir = `${st.dir}/${program}-${obj.fingerprint}`;
      const existing = st.progs.find((p) => p.program === program && p.fingerprint === obj.fingerprint);
      let progId = existing ? await progIdOf(host, `${pdir}/prog`) : null;
      if (progId === null) {
        if (existing) await helperJson(host, helper, ['rm', pdir]);
        // A random part: two agents sharing a /tmp (namespaced routers on one host, an agent
        // restarted mid-load) must never load or delete each other's upload.
        const objPath = `${uploadDir}/wrtfleet-${iface.ifname}-${program}-${obj.fingerprint}-${randomBytes(4).toString('hex')}.o`;
        await host.writeFile(objPath, obj.bytes, 0o600);
        await helperJson(host, helper, ['mkdir', pdir]);
        if (program === CHAIN_OBJECT) await helperJson(host, helper, ['mkdir', `${pdir}/programs-${chainMask(runs)}`]);
        try {
          await runChecked(host, [
            'bpftool',
            'prog',
            'load',
            objPath,
            `${pdir}/prog`,
            'type',
            'classifier',
            'pinmaps',
            `${pdir}/maps`,
          ]);
        } finally {
          await host.run(['rm', '-f', objPath]);
        }
        progId = (await progIdOf(host, `${pdir}/prog`))!;
        changes.push(`${iface.ifname}: loaded ${program}-${obj.fingerprint} (prog id ${progId})`);
      }

      const entry: Omit<AttachedProgram, 'program'> = {
        object: program,
        fingerprint: obj.fingerprint,
        progId,
        pinDir: pdir,
      };
      if (mode === 'tcx') {
        let info = existing?.hasLink
          ? await helperJson<{ link_id: number; prog_id: number; ifindex: number }>(host, helper, [
              'info',
              `${pdir}/link`,
            ]).catch(() => null)
          : null;
        if (info && (info.ifindex !== iface.ifindex || info.prog_id !== progId)) {
          await helperJson(host, helper, ['detach', `${pdir}/link`]);
          info = null;
        }
        if (!info) {
          const created = await helperJson<{ link_id: number; prog_id: number; ifindex: number }>(host, helper, [
            'attach',
            String(iface.ifindex),
            `${pdir}/prog`,
            `${pdir}/link`,
          ]);
          changes.push(`${iface.ifname}: TCX link ${created.link_id} for ${program}`);
          info = created;
        }
        entry.linkId = info.link_id;
      } else {
        // Leftover TCX link from an earlier TCX run of the same object: drop it.
        if (existing?.hasLink) await helperJson(host, helper, ['detach', `${pdir}/link`]);
        const prio = CLS_PRIO[program];
        const cur = (await clsFilters(host, iface.ifname)).find((f) => f.prio === prio);
        if (!cur || cur.progId !== progId) {
          // replace is atomic: the old program runs until the new one is in place.
          await runChecked(host, [
            'tc',
            'filter',
            'replace',
            'dev',
            iface.ifname,
            'egress',
            'prio',
            String(prio),
            'handle',
            `0x${CLS_HANDLE.toString(16)}`,
            'bpf',
            'da',
            'object-pinned',
            `${pdir}/prog`,
          ]);
          changes.push(`${iface.ifname}: cls_bpf filter prio ${prio} -> ${program} (prog id ${progId})`);
        }
        entry.prio = prio;
      }
      for (const p of runs) attached.push({ program: p, ...entry });

      // Older configurations of this program on this interface (new one already runs).
      for (const old of st.progs.filter((p) => p.program === program && p.fingerprint !== obj.fingerprint)) {
        await removeProg(host, helper, iface.ifname, old, changes);
        changes.push(`${iface.ifname}: removed ${old.program}-${old.fingerprint}`);
      }
    }
    // Objects no longer attached: programs taken out of the chain, or the other layout.
    for (const old of st.progs.filter((p) => !units.some((u) => u.object === p.program))) {
      await removeProg(host, helper, iface.ifname, old, changes);
      changes.push(`${iface.ifname}: removed ${old.program} (not in chain)`);
    }
    if (mode === 'cls_bpf') {
      // cls_bpf filters at our priorities whose program is not one we just attached.
      const ids = new Set(attached.map((a) => a.progId));
      for (const f of await clsFilters(host, iface.ifname)) {
        if (OUR_PRIOS.has(f.prio) && !ids.has(f.progId ?? -1)) {
          await runChecked(host, [
            'tc',
            'filter',
            'del',
            'dev',
            iface.ifname,
            'egress',
            'prio',
            String(f.prio),
            'handle',
            f.handle,
            'bpf',
          ]);
          changes.push(`${iface.ifname}: deleted stray filter prio ${f.prio}`);
        }
      }
    }

    const gso = await applyGsoPolicy(
      host,
      helper,
      st,
      iface,
      opts.rewrite.programs.includes('set_ip_id_zero') && ipIdGso === 'single-segment',
      changes,
    );
    interfaces.push({
      ifname: iface.ifname,
      ifindex: iface.ifindex,
      l2: iface.l2,
      mode,
      programs: attached,
      ...(gso ? { gsoMaxSegs: gso } : {}),
    });
  }
  return { mode: interfaces.length ? mode : 'none', interfaces, skipped: elig.skipped, changes };
}

async function applyGsoPolicy(
  host: RouterHost,
  helper: string,
  st: IfaceState,
  iface: { ifname: string; gsoMaxSegs?: number; tsoMaxSegs?: number },
  want: boolean,
  changes: string[],
): Promise<{ original: number; current: number } | undefined> {
  if (want) {
    let original = st.gsoOriginal;
    if (original === undefined) {
      // Already 1 without our marker: an earlier run lost its pins. The kernel default is
      // GSO_MAX_SEGS (65535) capped by the driver's tso_max_segs.
      original =
        iface.gsoMaxSegs === 1 || iface.gsoMaxSegs === undefined
          ? Math.min(65535, iface.tsoMaxSegs ?? 65535)
          : iface.gsoMaxSegs;
      await helperJson(host, helper, ['mkdir', `${st.dir}/gso_max_segs-${original}`]);
    }
    if (iface.gsoMaxSegs !== 1) {
      await runChecked(host, ['ip', 'link', 'set', 'dev', iface.ifname, 'gso_max_segs', '1']);
      changes.push(`${iface.ifname}: gso_max_segs ${iface.gsoMaxSegs} -> 1 (IP ID 0 on every segment)`);
    }
    return { original, current: 1 };
  }
  if (st.gsoOriginal !== undefined) {
    await runChecked(host, ['ip', 'link', 'set', 'dev', iface.ifname, 'gso_max_segs', String(st.gsoOriginal)]);
    await helperJson(host, helper, ['rm', `${st.dir}/gso_max_segs-${st.gsoOriginal}`]);
    changes.push(`${iface.ifname}: restored gso_max_segs ${st.gsoOriginal}`);
  }
  return undefined;
}

/** Same as applyEbpf: call when links, addresses or routes change (a WAN that comes up late). */
export const reevaluate = applyEbpf;

/**
 * Removes everything the loader ever created: all pinned state under pinRoot, TCX links,
 * our cls_bpf filters on every interface (also ones whose pins are gone, e.g. after a crash
 * between `tc filter replace` and the pin, or a deleted pin directory), gso_max_segs changes
 * and clsact qdiscs we added.
 */
export async function detachEbpf(
  host: RouterHost,
  opts: Partial<DatapathOptions> = {},
): Promise<{ changes: string[] }> {
  const helper = opts.helper ?? LOCAL_TCX_HELPER;
  const root = opts.pinRoot ?? DEFAULT_PIN_ROOT;
  const changes: string[] = [];
  const all = await links(host);
  for (const e of await ls(host, helper, root)) {
    if (!e.dir) continue;
    const ifname = ifFromDir(e.name);
    const st = await readIfaceState(host, helper, root, ifname);
    await cleanIface(
      host,
      helper,
      st,
      all.find((l) => l.ifname === ifname),
      changes,
    );
  }
  for (const l of all) await deleteOwnedFilters(host, l.ifname, changes);
  await helperJson(host, helper, ['rm', root]);
  return { changes };
}

/** Read-only view of what is attached (for telemetry and tests). */
export async function ebpfStatus(host: RouterHost, opts: Partial<DatapathOptions> = {}): Promise<DatapathEvidence> {
  const helper = opts.helper ?? LOCAL_TCX_HELPER;
  const root = opts.pinRoot ?? DEFAULT_PIN_ROOT;
  const all = await links(host);
  const interfaces: AttachedInterface[] = [];
  for (const e of await ls(host, helper, root)) {
    if (!e.dir) continue;
    const ifname = ifFromDir(e.name);
    const st = await readIfaceState(host, helper, root, ifname);
    const l = all.find((x) => x.ifname === ifname);
    if (!l) continue;
    const filters = await clsFilters(host, ifname);
    const programs: AttachedProgram[] = [];
    let mode: AttachMode = 'cls_bpf';
    for (const p of st.progs) {
      const progId = await progIdOf(host, `${p.dir}/prog`);
      if (progId === null) continue;
      const a: Omit<AttachedProgram, 'program'> = {
        object: p.program,
        fingerprint: p.fingerprint,
        progId,
        pinDir: p.dir,
      };
      if (p.hasLink) {
        const info = await helperJson<{ link_id: number; ifindex: number }>(host, helper, [
          'info',
          `${p.dir}/link`,
        ]).catch(() => null);
        if (!info || info.ifindex !== l.ifindex) continue;
        a.linkId = info.link_id;
        mode = 'tcx';
      } else {
        const f = filters.find((x) => x.progId === progId);
        if (!f) continue;
        a.prio = f.prio;
      }
      for (const program of p.programs) programs.push({ program, ...a });
    }
    programs.sort((x, y) => PROGRAM_NAMES.indexOf(x.program) - PROGRAM_NAMES.indexOf(y.program));
    interfaces.push({
      ifname,
      ifindex: l.ifindex,
      l2: l.link_type === 'ppp' ? 'raw-ip' : 'ethernet',
      mode,
      programs,
      ...(st.gsoOriginal !== undefined
        ? { gsoMaxSegs: { original: st.gsoOriginal, current: l.gso_max_segs ?? -1 } }
        : {}),
    });
  }
  const attached = interfaces.filter((i) => i.programs.length);
  return { mode: attached[0]?.mode ?? 'none', interfaces: attached, skipped: [], changes: [] };
}

/** Counters of every attached program, keyed "ifname/program". */
export async function readAllCounters(
  host: RouterHost,
  evidence: DatapathEvidence,
  endian: BpfEndian = 'bpfel',
): Promise<Record<string, ProgramCounters>> {
  const out: Record<string, ProgramCounters> = {};
  for (const i of evidence.interfaces) {
    const merged = i.programs.filter((p) => p.object === CHAIN_OBJECT);
    if (merged.length) {
      const counters = await readChainCounters(
        host,
        `${merged[0]!.pinDir}/maps/wf_chain_stats`,
        merged.map((p) => p.program),
        endian === 'bpfel',
      );
      for (const p of merged) out[`${i.ifname}/${p.program}`] = counters[p.program]!;
    }
    for (const p of i.programs) {
      if (p.object !== CHAIN_OBJECT)
        out[`${i.ifname}/${p.program}`] = await readCounters(host, `${p.pinDir}/maps/wf_stats`, endian === 'bpfel');
    }
  }
  return out;
}

/** An eligible interface as the WAN watch compares it: same name with a new ifindex is a new device. */
export interface WanDevice {
  ifname: string;
  ifindex: number;
}

export function wanDevices(e: Eligibility): WanDevice[] {
  return e.eligible.map(({ ifname, ifindex }) => ({ ifname, ifindex }));
}

/** The eligible set as one comparable string ("ifname#ifindex", sorted). */
export function eligibleKey(devices: readonly WanDevice[]): string {
  return devices
    .map((d) => `${d.ifname}#${d.ifindex}`)
    .sort()
    .join(' ');
}

export interface EligibleWatchOptions extends Pick<DatapathOptions, 'interfaces' | 'skip'> {
  /** Default 5000. */
  intervalMs?: number;
  /**
   * The eligible set differs from `baseline`. The watch waits for it before the next tick;
   * it sets the new baseline (normally the set read before it re-applied).
   */
  onChange: (now: Eligibility) => Promise<void>;
  onError?: (err: Error) => void;
  /** With no baseline yet, the first reading becomes the baseline instead of a change. */
  adoptFirst?: boolean;
}

/**
 * Polls the eligible set (eligibleInterfaces: one `ip route` and one `ip link` per tick) and
 * calls onChange when it differs from the baseline: a WAN that comes up late, goes away, or
 * is re-created (a redialled pppoe-wan has a new ifindex). OpenWrt has no event stream over
 * a plain command channel; hotplug scripts can call applyEbpf directly instead.
 */
export class EligibleWatch {
  /** The set the datapath was last brought in line with (null: not known yet). */
  baseline: WanDevice[] | null = null;
  private timer: NodeJS.Timeout | undefined;
  /** Bumped by start/stop, so a tick still running after stop() does not schedule another. */
  private generation = 0;
  private active = false;

  constructor(
    private readonly host: RouterHost,
    private readonly options: EligibleWatchOptions,
  ) {}

  get running(): boolean {
    return this.active;
  }

  read(): Promise<Eligibility> {
    return eligibleInterfaces(this.host, this.options);
  }

  differs(now: Eligibility): boolean {
    return this.baseline === null || eligibleKey(this.baseline) !== eligibleKey(now.eligible);
  }

  start(): void {
    if (this.active) return;
    this.active = true;
    this.schedule(++this.generation, 0);
  }

  stop(): void {
    this.active = false;
    this.generation += 1;
    clearTimeout(this.timer);
  }

  private schedule(generation: number, delay: number): void {
    this.timer = setTimeout(() => void this.tick(generation), delay);
    this.timer.unref();
  }

  private async tick(generation: number): Promise<void> {
    try {
      const now = await this.read();
      if (generation !== this.generation) return;
      if (this.baseline === null && this.options.adoptFirst) this.baseline = wanDevices(now);
      else if (this.differs(now)) await this.options.onChange(now);
    } catch (err) {
      this.options.onError?.(err as Error);
    } finally {
      if (generation === this.generation) this.schedule(generation, this.options.intervalMs ?? 5000);
    }
  }
}

/** applyEbpf whenever the eligible set changes (and once at start). Returns a stop function. */
export function watchAndReevaluate(
  host: RouterHost,
  opts: DatapathOptions,
  { intervalMs = 5000, onApplied }: { intervalMs?: number; onApplied?: (e: DatapathEvidence | Error) => void } = {},
): () => void {
  const watch: EligibleWatch = new EligibleWatch(host, {
    intervalMs,
    interfaces: opts.interfaces,
    skip: opts.skip,
    onChange: async (now) => {
      try {
        const ev = await applyEbpf(host, opts);
        watch.baseline = wanDevices(now);
        onApplied?.(ev);
      } catch (e) {
        onApplied?.(e as Error);
      }
    },
    onError: (e) => onApplied?.(e),
  });
  watch.start();
  return () => watch.stop();
}
