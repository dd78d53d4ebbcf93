/**
 * What a router can do, predicted from its facts. THE single source of truth: the agent
 * uses it before probing, the server imports it for previews and plans.
 *
 * Hardware flow offload depends on the SoC (docs/DOMAIN.md, Flow offloading): only the MediaTek PPE driven by
 * mtk_eth_soc (MT7621 from OpenWrt 21.02, MT7622, MT7981, MT7986, MT7988) and Airoha EN7581
 * on 6.12 kernels offload flows in hardware in mainline OpenWrt. Everything else (ath79,
 * ipq40xx, ipq806x, qualcommax whose NSS offload lives only in unmerged PRs, x86, Raspberry
 * Pi) offloads in software only.
 *
 * Software flow offload: the same two uci options on both firewalls. fw4 (22.03+) turns them
 * into an nftables flowtable, fw3 (19.07, 21.02) into an iptables FLOWOFFLOAD rule from
 * kmod-ipt-offload; the agent drives and reads back either (agent/offload).
 *
 * eBPF: our objects keep their settings in .rodata globals, which kernels load from 5.2 on, so
 * 4.14 (19.07) is predicted false. From 5.2 to 5.14 (21.02's 5.4) eBPF is not a given (the
 * image's kernel config, an older verifier, no MIPS32 JIT), so it is predicted true only to be
 * confirmed: the on-device probe loads one of our programs and checks cls_bpf, and decides.
 * From 5.15 (23.05+) it is expected; TCX needs 6.6 (24.10+). 32-bit MIPS is NOT refused:
 * the reference tool declares MIPS32 unsupported, but the kernel runs our programs there too,
 * JIT-compiled or in the interpreter (predictJit).
 *
 * The eBPF JIT for 32-bit MIPS arrived in Linux 5.16 (Johan Almbladh's, for both
 * byte orders); OpenWrt 23.05 backports it to its 5.15 (target/linux/generic/backport-5.15/
 * 050-v5.16-*), 22.03's 5.10 and 21.02's 5.4 have none. A kernel with the JIT uses it only while
 * net.core.bpf_jit_enable is 1: OpenWrt builds with CONFIG_BPF_JIT_DEFAULT_ON (1 from boot),
 * Debian's mips kernels without it (0 from boot, so the interpreter until someone sets it).
 * Measured in the router lab (lab/checks/facts.ts): Debian's 6.1 4kc-malta and a 6.1 built
 * for big-endian Malta JIT all five of our programs at 1, and run them interpreted at 0.
 */
import { kernelAtLeast } from './facts/kernel.js';
import { FW3_OFFLOAD_MIN_OPENWRT, firewallGeneration } from './facts/firewall.js';
import { openWrtAtLeast } from './facts/release.js';
import type { PackageFacts, RouterFacts } from './facts/types.js';
import { chipsetCapability, FAMILY_CAPABILITIES, type ChipsetCapability } from './chipset-capabilities.js';

export {
  CHIPSET_CAPABILITIES,
  chipsetCapability,
  FAMILY_CAPABILITIES,
  type ChipsetCapability,
} from './chipset-capabilities.js';

/** The facts the prediction reads; the server can pass stored facts of this shape. */
export type CapabilityInput = Pick<RouterFacts, 'soc' | 'socFamily' | 'kernel' | 'openwrt' | 'arch'> & {
  packages?: Partial<PackageFacts> | null;
};

export interface CapabilityFlags {
  hardwareOffload: boolean;
  softwareOffload: boolean;
  ebpf: boolean;
  tcx: boolean;
}

/** Whether the kernel can JIT-compile our programs (used while net.core.bpf_jit_enable=1). */
export interface JitPrediction {
  /** The kernel has an eBPF JIT for this CPU; false: the interpreter runs them; null: unknown. */
  compiler: boolean | null;
  reason: string;
}

export interface PredictedCapabilities extends CapabilityFlags {
  /** One sentence per flag: why it is true or false. */
  reasons: Record<keyof CapabilityFlags, string>;
  /** JIT or interpreter: not a capability of its own (both run the programs), but their speed. */
  jit: JitPrediction;
  /** Flags that hold only once the on-device probe confirms them (e.g. the MIPS32 JIT). */
  toConfirm: (keyof CapabilityFlags)[];
  /** The table entry that decided hardware offload, if any. */
  chipset: ChipsetCapability | null;
}

/** From this kernel (OpenWrt 23.05) eBPF is expected; below it the probe decides. */
export const EBPF_MIN_KERNEL = '5.15';
/** Our objects keep their settings in .rodata globals (global data), which kernels load from 5.2. */
export const EBPF_FLOOR_KERNEL = '5.2';
export const TCX_MIN_KERNEL = '6.6';
/** Mainline's eBPF JIT for 32-bit MIPS (Linux 5.16). */
export const MIPS32_JIT_MIN_KERNEL = '5.16';
/** OpenWrt 23.05's 5.15 carries that JIT as a backport. */
export const MIPS32_JIT_OPENWRT_KERNEL = '5.15';
export { FW4_MIN_OPENWRT } from './facts/firewall.js';

export function predictCapabilities(facts: CapabilityInput): PredictedCapabilities {
  const toConfirm: (keyof CapabilityFlags)[] = [];
  const software = predictSoftwareOffload(facts);
  const hardware = predictHardwareOffload(facts, software.value);
  const jit = predictJit(facts);
  const ebpf = predictEbpf(facts, jit);
  const tcx = predictTcx(facts, ebpf.value);
  if (ebpf.value) toConfirm.push('ebpf');
  if (tcx.value) toConfirm.push('tcx');
  return {
    hardwareOffload: hardware.value,
    softwareOffload: software.value,
    ebpf: ebpf.value,
    tcx: tcx.value,
    reasons: { hardwareOffload: hardware.reason, softwareOffload: software.reason, ebpf: ebpf.reason, tcx: tcx.reason },
    jit,
    toConfirm,
    chipset: hardware.chipset,
  };
}

interface Verdict {
  value: boolean;
  reason: string;
}

function predictSoftwareOffload(facts: CapabilityInput): Verdict {
  if (!facts.openwrt) return { value: false, reason: 'not OpenWrt: no uci/firewall to enable flow offloading' };
  const firewall = firewallGeneration(facts);
  if (!firewall)
    return {
      value: false,
      reason: `release "${facts.openwrt.release}" unreadable and kernel ${facts.kernel ?? 'unknown'} does not tell fw3 from fw4`,
    };
  if (firewall.generation === 'fw4') {
    const verdict = { value: true, reason: `${firewall.why}: nftables flowtables (flow_offloading=1)` };
    if (facts.packages?.nftOffload === false)
      verdict.reason += '; kmod-nft-offload is not installed, install it before enabling offloading';
    return verdict;
  }
  if (openWrtAtLeast(facts.openwrt.release, FW3_OFFLOAD_MIN_OPENWRT) === false)
    return {
      value: false,
      reason: `OpenWrt ${facts.openwrt.release} predates ${FW3_OFFLOAD_MIN_OPENWRT}, the first fw3 release wrtfleet offloads on (iptables FLOWOFFLOAD)`,
    };
  const verdict = {
    value: true,
    reason: `${firewall.why}: flow_offloading=1 becomes an iptables FLOWOFFLOAD rule in the FORWARD chain (package kmod-ipt-offload)`,
  };
  if (facts.packages?.iptOffload === false)
    verdict.reason += '; kmod-ipt-offload is not installed, install it before enabling offloading';
  return verdict;
}

function predictHardwareOffload(
  facts: CapabilityInput,
  software: boolean,
): Verdict & { chipset: ChipsetCapability | null } {
  const entry = chipsetCapability(facts.soc);
  const family = facts.socFamily ? FAMILY_CAPABILITIES[facts.socFamily] : undefined;
  const basis = entry ? `${entry.soc}: ${entry.why}` : family ? `${facts.socFamily}: ${family.why}` : null;
  if (!basis) {
    return {
      value: false,
      chipset: null,
      reason: facts.soc
        ? `SoC ${facts.soc} is not in the capability table: no hardware offload assumed (the firewall would fall back to software)`
        : 'SoC and platform unknown: no hardware offload assumed (the firewall would fall back to software)',
    };
  }
  const supported = entry ? entry.hardwareOffload : (family?.hardwareOffload ?? false);
  if (!supported) return { value: false, chipset: entry, reason: basis };
  if (!software)
    return {
      value: false,
      chipset: entry,
      reason: `${basis}; but software offloading is unavailable and flow_offloading_hw needs it`,
    };
  if (entry?.minOpenWrt && openWrtAtLeast(facts.openwrt?.release, entry.minOpenWrt) === false) {
    return {
      value: false,
      chipset: entry,
      reason: `${basis}; OpenWrt ${facts.openwrt?.release} is older than ${entry.minOpenWrt}`,
    };
  }
  if (entry?.minKernel && kernelAtLeast(facts.kernel, entry.minKernel) !== true) {
    return {
      value: false,
      chipset: entry,
      reason: `${basis}; kernel ${facts.kernel ?? 'unknown'} is older than ${entry.minKernel}`,
    };
  }
  return {
    value: true,
    chipset: entry,
    reason: entry ? basis : `${basis} (SoC not identified, predicted from the platform)`,
  };
}

const isMips32 = (arch: string | null | undefined) => !!arch && /^mips(el)?([_-]|$)/.test(arch);

/**
 * JIT or interpreter, from the kernel and the CPU: every other router CPU (x86_64, aarch64,
 * 32-bit ARM, 64-bit MIPS) has had an eBPF JIT since long before 5.2, 32-bit MIPS only since
 * 5.16 (OpenWrt: 23.05's 5.15). Which one runs also takes net.core.bpf_jit_enable, read by the probe.
 */
export function predictJit(facts: Pick<CapabilityInput, 'kernel' | 'arch' | 'openwrt'>): JitPrediction {
  const sysctl = 'used while net.core.bpf_jit_enable=1 (OpenWrt sets it from boot; 0 runs the interpreter)';
  if (!facts.arch) return { compiler: null, reason: 'CPU architecture unknown' };
  if (!isMips32(facts.arch)) return { compiler: true, reason: `${facts.arch} kernels carry an eBPF JIT; ${sysctl}` };
  const mainline = kernelAtLeast(facts.kernel, MIPS32_JIT_MIN_KERNEL);
  if (mainline === null) return { compiler: null, reason: 'kernel release unknown' };
  if (mainline)
    return {
      compiler: true,
      reason: `kernel ${facts.kernel} >= ${MIPS32_JIT_MIN_KERNEL}: the MIPS32 eBPF JIT is in mainline; ${sysctl}`,
    };
  const backport =
    facts.openwrt !== null && facts.openwrt !== undefined && kernelAtLeast(facts.kernel, MIPS32_JIT_OPENWRT_KERNEL);
  if (backport)
    return {
      compiler: true,
      reason: `OpenWrt kernel ${facts.kernel}: 23.05's 5.15 backports the MIPS32 eBPF JIT from ${MIPS32_JIT_MIN_KERNEL}; ${sysctl}`,
    };
  return {
    compiler: false,
    reason: `kernel ${facts.kernel}: no eBPF JIT for 32-bit MIPS before ${MIPS32_JIT_MIN_KERNEL} (OpenWrt: before 23.05's ${MIPS32_JIT_OPENWRT_KERNEL}), the interpreter runs the programs`,
  };
}

function predictEbpf(facts: CapabilityInput, jit: JitPrediction): Verdict {
  const enough = kernelAtLeast(facts.kernel, EBPF_MIN_KERNEL);
  if (enough === null) return { value: false, reason: `kernel release unknown; eBPF needs >= ${EBPF_MIN_KERNEL}` };
  const mips32 = isMips32(facts.arch);
  let reason: string;
  if (!enough) {
    if (kernelAtLeast(facts.kernel, EBPF_FLOOR_KERNEL) === false)
      return {
        value: false,
        reason: `kernel ${facts.kernel} < ${EBPF_FLOOR_KERNEL}: our programs keep their settings in .rodata globals, which kernels load from ${EBPF_FLOOR_KERNEL} on (the probe can only confirm)`,
      };
    reason = `kernel ${facts.kernel} < ${EBPF_MIN_KERNEL} (before OpenWrt 23.05): eBPF depends on the image's kernel config and an older verifier${mips32 ? ', and 32-bit MIPS has no eBPF JIT before 23.05 (the interpreter runs the programs)' : ''}; the probe decides by loading one of our programs`;
  } else {
    reason = `kernel ${facts.kernel} >= ${EBPF_MIN_KERNEL}`;
    reason += mips32
      ? jit.compiler
        ? '; 32-bit MIPS: the kernel carries the MIPS32 eBPF JIT, to be confirmed by probe'
        : '; 32-bit MIPS without the eBPF JIT (the interpreter runs the programs), to be confirmed by probe'
      : '; to be confirmed by probe';
  }
  const pkgs = facts.packages;
  const missing: string[] = [];
  if (pkgs?.tcBpf === false) missing.push(`${pkgs.tc ?? 'no tc'} cannot load BPF (install tc-bpf or tc-full)`);
  if (pkgs?.clsBpf === false) missing.push('kmod-sched-bpf (cls_bpf) not installed');
  if (missing.length > 0) reason += `; to load programs: ${missing.join(', ')}`;
  return { value: true, reason };
}

function predictTcx(facts: CapabilityInput, ebpf: boolean): Verdict {
  const enough = kernelAtLeast(facts.kernel, TCX_MIN_KERNEL);
  if (enough === null) return { value: false, reason: `kernel release unknown; TCX needs >= ${TCX_MIN_KERNEL}` };
  if (!enough)
    return {
      value: false,
      reason: `kernel ${facts.kernel} < ${TCX_MIN_KERNEL}: classic clsact + cls_bpf attach instead`,
    };
  if (!ebpf) return { value: false, reason: 'eBPF not predicted' };
  return {
    value: true,
    reason: `kernel ${facts.kernel} >= ${TCX_MIN_KERNEL} (bpf_link attach); to be confirmed by probe`,
  };
}

/** The JSON `npm run -s agent -- facts` prints; extra fields are allowed. */
export interface FactsSummary {
  soc: string | null;
  arch: string | null;
  /** `uname -m` ("mips" for both MIPS byte orders). */
  machine: string | null;
  cpu: RouterFacts['cpu'];
  endian: 'little' | 'big' | null;
  kernel: string | null;
  openwrt: { release: string; target: string | null } | null;
  capabilities: CapabilityFlags;
  socVariant: string | null;
  socFamily: string | null;
  model: { id: string | null; name: string | null };
  reasons: Record<keyof CapabilityFlags, string>;
  jit: JitPrediction;
  unknown: RouterFacts['unknown'];
}

export function factsSummary(
  facts: RouterFacts,
  capabilities: PredictedCapabilities = predictCapabilities(facts),
): FactsSummary {
  return {
    soc: facts.soc,
    arch: facts.arch,
    machine: facts.machine,
    cpu: facts.cpu,
    endian: facts.endian,
    kernel: facts.kernel,
    openwrt: facts.openwrt ? { release: facts.openwrt.release, target: facts.openwrt.target } : null,
    capabilities: {
      hardwareOffload: capabilities.hardwareOffload,
      softwareOffload: capabilities.softwareOffload,
      ebpf: capabilities.ebpf,
      tcx: capabilities.tcx,
    },
    socVariant: facts.socVariant,
    socFamily: facts.socFamily,
    model: facts.model,
    reasons: capabilities.reasons,
    jit: capabilities.jit,
    unknown: facts.unknown,
  };
}
