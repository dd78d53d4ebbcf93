/**
 * Attaches the rewrite chain to a router's egress interfaces, over any RouterHost: apply,
 * detach and status. Which interfaces: wan-eligibility.ts; one interface: attach-interface.ts
 * and detach-interface.ts; what we own, pinned under bpffs: pinned-state.ts.
 *
 * Kernel-facing commands: `ip`, `tc` (tc-bpf), `bpftool`, `rm` (object cleanup in /tmp) and
 * wf-tcx (bpf/tcx-helper, for TCX, which OpenWrt's tc/bpftool predate). Nothing else, so
 * the same code runs on the router and over SSH.
 */
import type { RouterHost } from '../../core/host/router-host.js';
import {
  PROGRAM_NAMES,
  validateRewrite,
  type AttachMode,
  type BpfEndian,
  type RewriteConfig,
} from '../../core/programs.js';
import {
  attachInterface,
  type AttachContext,
  type AttachedInterface,
  type AttachedProgram,
  type ProgramLayout,
} from './attach-interface.js';
import { clsFilters, deleteOwnedFilters } from './cls-bpf.js';
import { readChainCounters, readCounters, type ProgramCounters } from './counters.js';
import { cleanInterface } from './detach-interface.js';
import {
  createPinRoot,
  DEFAULT_PIN_ROOT,
  pinnedInterfaces,
  pinnedProgId,
  readIfaceState,
  removePins,
} from './pinned-state.js';
import { CHAIN_OBJECT, detectEndian, LOCAL_TCX_HELPER } from './programs.js';
import { eligibleInterfaces, readLinks, type WanSelection } from './wan-eligibility.js';
import { probeTcx, tcxLinkInfo } from './wf-tcx.js';

export interface DatapathOptions extends WanSelection {
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
  /** See ProgramLayout; default 'merged'. */
  layout?: ProgramLayout;
}

export interface DatapathEvidence {
  mode: AttachMode | 'none';
  interfaces: AttachedInterface[];
  skipped: { ifname: string; reason: string }[];
  /** What this call changed, in order (empty for an idempotent re-apply). */
  changes: string[];
}

/** The options' defaults, in one place for apply, detach and status. */
function resolved(opts: Partial<DatapathOptions>) {
  return {
    helper: opts.helper ?? LOCAL_TCX_HELPER,
    root: opts.pinRoot ?? DEFAULT_PIN_ROOT,
    uploadDir: opts.uploadDir ?? '/tmp',
    ipIdGso: opts.ipIdGso ?? 'single-segment',
    layout: opts.layout ?? 'merged',
  };
}

/**
 * Brings the router to the desired state and returns what is attached. Idempotent:
 * a second call with the same options changes nothing. Call it again whenever interfaces
 * or routes change (see the eligible-set watch): new eligible interfaces get the chain, ones
 * that are no longer eligible lose it, devices that were recreated are re-attached.
 */
export async function applyEbpf(host: RouterHost, opts: DatapathOptions): Promise<DatapathEvidence> {
  validateRewrite(opts.rewrite);
  const defaults = resolved(opts);
  const { helper, root } = defaults;
  const changes: string[] = [];

  await createPinRoot(host, helper, root);
  let mode: AttachMode;
  if (opts.mode === 'tcx' || opts.mode === 'cls_bpf') mode = opts.mode;
  else mode = (await probeTcx(host, helper)).ok ? 'tcx' : 'cls_bpf';
  if (mode === 'tcx') {
    const p = await probeTcx(host, helper);
    if (!p.ok) throw new Error(`TCX requested but not available: ${p.reason}`);
  }
  const endian = opts.endian ?? (await detectEndian(host));
  const elig = await eligibleInterfaces(host, opts);
  const all = await readLinks(host);

  // Interfaces we hold state for but that are no longer eligible (or vanished): clean up.
  await cleanPinned(host, helper, root, all, changes, new Set(elig.eligible.map((e) => e.ifname)));

  const ctx: AttachContext = { ...defaults, rewrite: opts.rewrite, mode, endian };
  const interfaces: AttachedInterface[] = [];
  for (const iface of elig.eligible) interfaces.push(await attachInterface(host, ctx, iface, changes));
  return { mode: interfaces.length ? mode : 'none', interfaces, skipped: elig.skipped, changes };
}

/** Removes the pinned state, links and filters of every interface we hold state for, but those in `keep`. */
async function cleanPinned(
  host: RouterHost,
  helper: string,
  root: string,
  links: Awaited<ReturnType<typeof readLinks>>,
  changes: string[],
  keep: ReadonlySet<string> = new Set(),
): Promise<void> {
  for (const ifname of await pinnedInterfaces(host, helper, root)) {
    if (keep.has(ifname)) continue;
    const st = await readIfaceState(host, helper, root, ifname);
    await cleanInterface(
      host,
      helper,
      st,
      links.find((l) => l.ifname === ifname),
      changes,
    );
  }
}

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
  const { helper, root } = resolved(opts);
  const changes: string[] = [];
  const all = await readLinks(host);
  await cleanPinned(host, helper, root, all, changes);
  for (const l of all) await deleteOwnedFilters(host, l.ifname, changes);
  await removePins(host, helper, root);
  return { changes };
}

/** Read-only view of what is attached (for telemetry and tests). */
export async function ebpfStatus(host: RouterHost, opts: Partial<DatapathOptions> = {}): Promise<DatapathEvidence> {
  const { helper, root } = resolved(opts);
  const all = await readLinks(host);
  const interfaces: AttachedInterface[] = [];
  for (const ifname of await pinnedInterfaces(host, helper, root)) {
    const st = await readIfaceState(host, helper, root, ifname);
    const l = all.find((x) => x.ifname === ifname);
    if (!l) continue;
    const filters = await clsFilters(host, ifname);
    const programs: AttachedProgram[] = [];
    let mode: AttachMode = 'cls_bpf';
    for (const p of st.progs) {
      const progId = await pinnedProgId(host, `${p.dir}/prog`);
      if (progId === null) continue;
      const a: Omit<AttachedProgram, 'program'> = {
        object: p.object,
        fingerprint: p.fingerprint,
        progId,
        pinDir: p.dir,
      };
      if (p.hasLink) {
        const info = await tcxLinkInfo(host, helper, `${p.dir}/link`);
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
