/**
 * Capability probe: confirms on the device what predictCapabilities guessed from facts.
 *
 * eBPF: we load a real program, not a synthetic one: `set_ip_id_zero` (the smallest of the
 * four) built for the router's byte order, with `bpftool prog load ... type classifier`,
 * the exact path the datapath uses. That proves more than "the bpf() syscall exists": the
 * kernel's verifier accepts our code, the object's byte order is right, bpffs and bpftool
 * are there. We also read whether the program was JIT-compiled (32-bit MIPS: the JIT
 * arrived in 23.05 kernels; without it the interpreter still runs it, which we report
 * rather than refuse). We chose this over `tc filter add ... bpf` on a dummy/ifb device
 * because OpenWrt images rarely carry kmod-dummy/kmod-ifb, and creating a device on a
 * production router is more intrusive than pinning a program for a second.
 *
 * TCX: the datapath's own probe (`wf-tcx probe`, a BPF_PROG_QUERY for BPF_TCX_EGRESS).
 *
 * cls_bpf, where there is no TCX (every kernel before 6.6, so 21.02's 5.4 too): a program that
 * loads is of no use unless it can be attached, so the probe also looks for the cls_bpf
 * classifier and the clsact qdisc in the running kernel (loaded, a module file for this kernel,
 * or built in per modules.builtin, /proc/config.gz or /proc/kallsyms), without adding a qdisc
 * anywhere. Missing either, eBPF is probed false, naming the kernel package (kmod-sched-bpf,
 * kmod-sched-core).
 *
 * Offload: uci/fw4 present (agent/offload). Hardware offload cannot be probed without
 * enabling it (fw4's own check runs at reload), so it stays as predicted unless offload
 * is unsupported altogether, which then also rules out hardware.
 *
 * The probe pins under a sibling of the pin root and removes it at once; it never touches
 * interfaces.
 */
import { randomBytes } from 'node:crypto';
import type { CapabilityFlags } from '../../core/capabilities.js';
import { configuredObject, DEFAULT_PIN_ROOT, detectEndian, LOCAL_TCX_HELPER, probeTcx } from '../datapath/index.js';
import { DEFAULT_REWRITE, type BpfEndian } from '../../core/programs.js';
import type { Endian } from '../../core/facts/types.js';
import type { RouterHost } from '../../core/host/router-host.js';
import { isoTime } from '../iso-time.js';
import { offloadSupport } from '../offload/index.js';

export interface ProbeOptions {
  helper?: string;
  pinRoot?: string;
  uploadDir?: string;
  /** Known byte order (from facts); detected from /bin/sh otherwise. */
  endian?: Endian | null;
}

export interface ProbedCapabilities {
  flags: Partial<CapabilityFlags>;
  reasons: Partial<Record<keyof CapabilityFlags, string>>;
  details: {
    ebpf: {
      loaded: boolean;
      jited?: boolean;
      bytesJited?: number;
      bytesXlated?: number;
      object?: BpfEndian;
      error?: string;
    };
    tcx: { ok: boolean; error?: string };
    offload: { supported: boolean; reason: string };
  };
  probedAt: string;
  durationMs: number;
}

export async function probeCapabilities(host: RouterHost, opts: ProbeOptions = {}): Promise<ProbedCapabilities> {
  const started = Date.now();
  const helper = opts.helper ?? LOCAL_TCX_HELPER;
  const pinRoot = opts.pinRoot ?? DEFAULT_PIN_ROOT;
  const flags: Partial<CapabilityFlags> = {};
  const reasons: Partial<Record<keyof CapabilityFlags, string>> = {};

  const ebpf = await probeEbpf(host, helper, pinRoot, opts);
  flags.ebpf = ebpf.loaded;
  reasons.ebpf = ebpf.loaded
    ? `probe: loaded set_ip_id_zero (${ebpf.object}) with bpftool, verifier accepted it${ebpf.jited ? `, JIT-compiled (${ebpf.bytesJited} bytes)` : ', not JIT-compiled (runs in the interpreter)'}`
    : `probe: could not load a BPF program: ${ebpf.error}`;

  const tcx = ebpf.loaded ? await probeTcx(host, helper) : { ok: false, reason: 'eBPF did not load' };
  if (ebpf.loaded && !tcx.ok) {
    const missing = await missingClsBpfAttach(host);
    if (missing.length > 0) {
      flags.ebpf = false;
      reasons.ebpf = `probe: set_ip_id_zero (${ebpf.object}) loads, but without TCX it attaches with cls_bpf, and this kernel has no ${missing.join(' and no ')}`;
    } else reasons.ebpf += '; cls_bpf and clsact are in the kernel (attach without TCX)';
  }
  flags.tcx = tcx.ok;
  reasons.tcx = tcx.ok
    ? 'probe: wf-tcx probe found BPF_TCX_EGRESS (kernel >= 6.6 TCX links)'
    : `probe: no TCX: ${tcx.reason ?? 'unknown'}`;

  const offload = await offloadSupport(host);
  flags.softwareOffload = offload.supported;
  reasons.softwareOffload = `probe: ${offload.reason}`;
  if (!offload.supported) {
    flags.hardwareOffload = false;
    reasons.hardwareOffload = `probe: flow offloading unsupported, so no hardware offload either (${offload.reason})`;
  }

  return {
    flags,
    reasons,
    details: { ebpf, tcx: { ok: tcx.ok, ...(tcx.ok ? {} : { error: tcx.reason }) }, offload },
    probedAt: isoTime(),
    durationMs: Date.now() - started,
  };
}

/** Kernel pieces cls_bpf attach needs that the running kernel lacks (empty: it has both). */
async function missingClsBpfAttach(host: RouterHost): Promise<string[]> {
  const missing: string[] = [];
  // Built in, a module has no /sys/module entry unless it has parameters (cls_bpf and
  // sch_ingress have none), and /proc/config.gz needs CONFIG_IKCONFIG_PROC: so also
  // modules.builtin, and the kernel's own symbol table (a function of each, built in or loaded).
  for (const [module, config, pkg, symbol] of [
    ['cls_bpf', 'CONFIG_NET_CLS_BPF', 'kmod-sched-bpf', 'cls_bpf_classify'],
    ['sch_ingress', 'CONFIG_NET_SCH_INGRESS', 'kmod-sched-core', 'clsact_init'],
  ] as const) {
    const script = `k=$(uname -r); [ -d /sys/module/${module} ] || [ -n "$(find /lib/modules/$k -name '${module}.ko*' 2>/dev/null | head -n 1)" ] || grep -q '/${module}\\.ko' /lib/modules/$k/modules.builtin 2>/dev/null || zcat /proc/config.gz 2>/dev/null | grep -q '^${config}=y' || grep -q ' ${symbol}$' /proc/kallsyms 2>/dev/null`;
    const r = await host.run(['sh', '-c', script]);
    if (r.code !== 0) missing.push(`${module} (${config}; OpenWrt package ${pkg})`);
  }
  return missing;
}

async function probeEbpf(
  host: RouterHost,
  helper: string,
  pinRoot: string,
  opts: ProbeOptions,
): Promise<ProbedCapabilities['details']['ebpf']> {
  let object: BpfEndian;
  try {
    object = opts.endian === 'little' ? 'bpfel' : opts.endian === 'big' ? 'bpfeb' : await detectEndian(host);
  } catch (err) {
    return { loaded: false, error: `byte order unknown: ${(err as Error).message}` };
  }
  const bpftool = await host.run(['bpftool', 'version']);
  if (bpftool.code !== 0)
    return {
      loaded: false,
      object,
      error:
        bpftool.code === 127
          ? 'bpftool is not installed (OpenWrt: bpftool-minimal or bpftool-full)'
          : `bpftool version failed: ${bpftool.stderr.trim()}`,
    };
  // wf-tcx mkdir mounts bpffs when it is not mounted yet (OpenWrt mounts it at boot, not every image does).
  const mk = await host.run([helper, 'mkdir', pinRoot]);
  if (mk.code === 127) {
    return {
      loaded: false,
      object,
      error: `the wf-tcx helper is not on the router at ${helper} (the datapath needs it for bpffs and TCX: cross-compile bpf/tcx-helper for the router's CPU, install it, and set paths.helper)`,
    };
  }
  if (mk.code !== 0) return { loaded: false, object, error: `bpffs not available: ${(mk.stdout || mk.stderr).trim()}` };

  const tag = randomBytes(4).toString('hex');
  const obj = configuredObject(object, 'set_ip_id_zero', DEFAULT_REWRITE, 'ethernet');
  const dir = opts.uploadDir ?? '/tmp';
  const objPath = `${dir}/wrtfleet-probe-${tag}.o`;
  // A sibling of the pin root: the loader treats every directory under the root as an interface.
  const pin = `${pinRoot}-probe-${tag}`;
  try {
    await host.writeFile(objPath, obj.bytes, 0o600);
    const load = await host.run(['bpftool', 'prog', 'load', objPath, pin, 'type', 'classifier']);
    if (load.code !== 0)
      return {
        loaded: false,
        object,
        error: `bpftool prog load: ${(load.stderr || load.stdout).trim().split('\n').slice(-3).join(' | ')}`,
      };
    const show = await host.run(['bpftool', '-j', 'prog', 'show', 'pinned', pin]);
    const info =
      show.code === 0
        ? (JSON.parse(show.stdout) as { bytes_jited?: number; bytes_xlated?: number; jited?: boolean })
        : {};
    const bytesJited = info.bytes_jited ?? 0;
    return { loaded: true, object, jited: bytesJited > 0, bytesJited, bytesXlated: info.bytes_xlated };
  } catch (err) {
    return { loaded: false, object, error: (err as Error).message };
  } finally {
    await host.run(['rm', '-f', pin, objPath]);
  }
}
