/**
 * Bringing one eligible interface to the configured chain: load each object once (pinned, so
 * a re-apply finds it), attach it by TCX link or cls_bpf filter, and only then remove what the
 * new configuration no longer runs.
 */
import { randomBytes } from 'node:crypto';
import { runChecked, type RouterHost } from '../../core/host/router-host.js';
import {
  PROGRAM_NAMES,
  type AttachMode,
  type BpfEndian,
  type ProgramName,
  type RewriteConfig,
} from '../../core/programs.js';
import {
  addClsact,
  CLS_PRIO,
  clsFilters,
  deleteOwnedFilters,
  deleteStrayFilters,
  hasClsact,
  replaceFilter,
} from './cls-bpf.js';
import { cleanInterface, removeObject } from './detach-interface.js';
import {
  createObjectDir,
  markClsactOurs,
  markDevice,
  markGsoOriginal,
  objectDir,
  pinnedProgId,
  readIfaceState,
  removePins,
  unmarkGsoOriginal,
  type IfaceState,
  type ProgState,
} from './pinned-state.js';
import { CHAIN_OBJECT, configuredObject, type L2Mode, type ObjectName } from './programs.js';
import type { Eligibility } from './wan-eligibility.js';
import { attachTcx, detachTcx, tcxLinkInfo } from './wf-tcx.js';

/**
 * 'merged' (default): the selected rewrites run as one wf_chain program per interface when
 * there are two or more: one dispatch and one parse per packet instead of one per program.
 * Why: those are most of what four programs cost on forwarded traffic; measured in
 * docs/BENCHMARKS.md#why-the-programs-look-the-way-they-do.
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
  /** Present when the loader lowered gso_max_segs (see DatapathOptions.ipIdGso). */
  gsoMaxSegs?: { original: number; current: number };
}

/** The apply's options with their defaults filled in, and the decisions made once per apply. */
export interface AttachContext {
  rewrite: RewriteConfig;
  mode: AttachMode;
  endian: BpfEndian;
  layout: ProgramLayout;
  helper: string;
  root: string;
  uploadDir: string;
  ipIdGso: 'single-segment' | 'leave';
}

type EligibleInterface = Eligibility['eligible'][number];

export async function attachInterface(
  host: RouterHost,
  ctx: AttachContext,
  iface: EligibleInterface,
  changes: string[],
): Promise<AttachedInterface> {
  const { helper, root, mode } = ctx;
  let st = await readIfaceState(host, helper, root, iface.ifname);
  if (st.ifindex !== undefined && st.ifindex !== iface.ifindex) {
    // Same name, new device (e.g. pppoe-wan redialled): its links are defunct, filters gone.
    changes.push(`${iface.ifname}: device recreated (ifindex ${st.ifindex} -> ${iface.ifindex})`);
    await cleanInterface(host, helper, st, undefined, changes);
    st = await readIfaceState(host, helper, root, iface.ifname);
  }
  if (st.ifindex === undefined) await markDevice(host, helper, st, iface.ifindex);

  if (mode === 'cls_bpf' && !(await hasClsact(host, iface.ifname))) {
    await addClsact(host, iface.ifname);
    await markClsactOurs(host, helper, st);
    changes.push(`${iface.ifname}: added clsact qdisc`);
  }
  // A mode switch (TCX <-> cls_bpf) must not leave the other mode's attachments running.
  if (mode === 'tcx') await deleteOwnedFilters(host, iface.ifname, changes);

  const attached: AttachedProgram[] = [];
  const units = attachUnits(ctx.rewrite, ctx.layout);
  for (const { object, programs: runs } of units) {
    const { dir, fingerprint, progId, existing } = await ensureLoaded(host, ctx, st, iface, object, runs, changes);
    const entry: Omit<AttachedProgram, 'program'> = { object, fingerprint, progId, pinDir: dir };
    const target: HookTarget = { host, helper, iface, object, dir, progId, existing, changes };
    if (mode === 'tcx') entry.linkId = await ensureTcxLink(target);
    else entry.prio = await ensureClsFilter(target);
    for (const p of runs) attached.push({ program: p, ...entry });

    // Older configurations of this object on this interface (new one already runs).
    for (const old of st.progs.filter((p) => p.object === object && p.fingerprint !== fingerprint)) {
      await removeObject(host, helper, iface.ifname, old, changes);
      changes.push(`${iface.ifname}: removed ${old.object}-${old.fingerprint}`);
    }
  }
  // Objects no longer attached: programs taken out of the chain, or the other layout.
  for (const old of st.progs.filter((p) => !units.some((u) => u.object === p.object))) {
    await removeObject(host, helper, iface.ifname, old, changes);
    changes.push(`${iface.ifname}: removed ${old.object} (not in chain)`);
  }
  // cls_bpf filters at our priorities whose program is not one we just attached.
  if (mode === 'cls_bpf') await deleteStrayFilters(host, iface.ifname, new Set(attached.map((a) => a.progId)), changes);

  const gso = await applyGsoPolicy(
    host,
    helper,
    st,
    iface,
    ctx.rewrite.programs.includes('set_ip_id_zero') && ctx.ipIdGso === 'single-segment',
    changes,
  );
  return {
    ifname: iface.ifname,
    ifindex: iface.ifindex,
    l2: iface.l2,
    mode,
    programs: attached,
    ...(gso ? { gsoMaxSegs: gso } : {}),
  };
}

/** The object configured for this interface, pinned and loaded: the one already pinned when it still loads. */
async function ensureLoaded(
  host: RouterHost,
  ctx: AttachContext,
  st: IfaceState,
  iface: EligibleInterface,
  object: ObjectName,
  runs: ProgramName[],
  changes: string[],
): Promise<{ dir: string; fingerprint: string; progId: number; existing?: ProgState }> {
  const obj = configuredObject(ctx.endian, object, ctx.rewrite, iface.l2);
  const dir = objectDir(st, object, obj.fingerprint);
  const existing = st.progs.find((p) => p.object === object && p.fingerprint === obj.fingerprint);
  let progId = existing ? await pinnedProgId(host, `${dir}/prog`) : null;
  if (progId === null) {
    if (existing) await removePins(host, ctx.helper, dir);
    // A random part: two agents sharing a /tmp (namespaced routers on one host, an agent
    // restarted mid-load) must never load or delete each other's upload.
    const objPath = `${ctx.uploadDir}/wrtfleet-${iface.ifname}-${object}-${obj.fingerprint}-${randomBytes(4).toString('hex')}.o`;
    await host.writeFile(objPath, obj.bytes, 0o600);
    await createObjectDir(host, ctx.helper, dir, object, runs);
    try {
      await runChecked(host, [
        'bpftool',
        'prog',
        'load',
        objPath,
        `${dir}/prog`,
        'type',
        'classifier',
        'pinmaps',
        `${dir}/maps`,
      ]);
    } finally {
      await host.run(['rm', '-f', objPath]);
    }
    progId = (await pinnedProgId(host, `${dir}/prog`))!;
    changes.push(`${iface.ifname}: loaded ${object}-${obj.fingerprint} (prog id ${progId})`);
  }
  return { dir, fingerprint: obj.fingerprint, progId, existing };
}

/** One loaded object to hook to an interface: where it is pinned and what is already there. */
interface HookTarget {
  host: RouterHost;
  helper: string;
  iface: EligibleInterface;
  object: ObjectName;
  dir: string;
  progId: number;
  existing: ProgState | undefined;
  changes: string[];
}

/** The TCX link running `progId` on this device: the pinned one when it still does, else a new one. */
async function ensureTcxLink({
  host,
  helper,
  iface,
  object,
  dir,
  progId,
  existing,
  changes,
}: HookTarget): Promise<number> {
  let info = existing?.hasLink ? await tcxLinkInfo(host, helper, `${dir}/link`) : null;
  if (info && (info.ifindex !== iface.ifindex || info.prog_id !== progId)) {
    await detachTcx(host, helper, `${dir}/link`);
    info = null;
  }
  if (!info) {
    info = await attachTcx(host, helper, iface.ifindex, `${dir}/prog`, `${dir}/link`);
    changes.push(`${iface.ifname}: TCX link ${info.link_id} for ${object}`);
  }
  return info.link_id;
}

/** Our cls_bpf filter for `object`, pointed at `progId`; returns its priority. */
async function ensureClsFilter({
  host,
  helper,
  iface,
  object,
  dir,
  progId,
  existing,
  changes,
}: HookTarget): Promise<number> {
  // Leftover TCX link from an earlier TCX run of the same object: drop it.
  if (existing?.hasLink) await detachTcx(host, helper, `${dir}/link`);
  const prio = CLS_PRIO[object];
  const cur = (await clsFilters(host, iface.ifname)).find((f) => f.prio === prio);
  if (!cur || cur.progId !== progId) {
    await replaceFilter(host, iface.ifname, prio, `${dir}/prog`);
    changes.push(`${iface.ifname}: cls_bpf filter prio ${prio} -> ${object} (prog id ${progId})`);
  }
  return prio;
}

/** Lowers gso_max_segs to 1 while `want` (see DatapathOptions.ipIdGso), else restores what we lowered. */
async function applyGsoPolicy(
  host: RouterHost,
  helper: string,
  st: IfaceState,
  iface: EligibleInterface,
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
      await markGsoOriginal(host, helper, st, original);
    }
    if (iface.gsoMaxSegs !== 1) {
      await runChecked(host, ['ip', 'link', 'set', 'dev', iface.ifname, 'gso_max_segs', '1']);
      changes.push(`${iface.ifname}: gso_max_segs ${iface.gsoMaxSegs} -> 1 (IP ID 0 on every segment)`);
    }
    return { original, current: 1 };
  }
  if (st.gsoOriginal !== undefined) {
    await runChecked(host, ['ip', 'link', 'set', 'dev', iface.ifname, 'gso_max_segs', String(st.gsoOriginal)]);
    await unmarkGsoOriginal(host, helper, st);
    changes.push(`${iface.ifname}: restored gso_max_segs ${st.gsoOriginal}`);
  }
  return undefined;
}
