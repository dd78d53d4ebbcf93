/**
 * Step 3 of resolvePlan: the datapath (eBPF, a netfilter fallback, or none), how eBPF
 * programs attach, which build of the objects to upload, and the packages either needs. Which
 * netfilter fallback (nftables or iptables) is plan/netfilter-fallback.ts.
 */
import type { AttachMode, BpfEndian } from '../programs.js';
import { netfilterFallback } from './netfilter-fallback.js';
import type { ProfileSpec } from '../profile-spec.js';
import type {
  CapabilityName,
  EffectiveCapability,
  Plan,
  PlanFacts,
  PlannedProgram,
  PlanPrerequisite,
  Sinks,
} from './types.js';

export function resolveDatapath(
  spec: ProfileSpec,
  facts: PlanFacts,
  capabilities: Record<CapabilityName, EffectiveCapability>,
  programs: PlannedProgram[],
  { decide, refusals, warnings, prerequisites }: Sinks,
): Plan['datapath'] {
  const ebpfMode = spec.l3Rewrite.ebpf;
  if (programs.length === 0) {
    decide(
      'datapath.mode',
      'none',
      `no rewrite is enabled, so no programs or rules are needed (ebpf: ${ebpfMode} has nothing to require)`,
    );
    return { mode: 'none', attach: null, bpfObject: null, programs };
  }

  const attach: AttachMode = capabilities.tcx.value ? 'tcx' : 'cls_bpf';
  const bpfObject: BpfEndian | null = facts.endian === 'little' ? 'bpfel' : facts.endian === 'big' ? 'bpfeb' : null;

  // What stops eBPF outright (cannot be fixed by installing a package).
  const blockers: { topic: string; reason: string }[] = [];
  if (!capabilities.ebpf.value)
    blockers.push({ topic: 'capability.ebpf', reason: `eBPF unavailable: ${capabilities.ebpf.reason}` });
  if (!bpfObject)
    blockers.push({
      topic: 'datapath.bpfObject',
      reason: 'CPU byte order unknown: cannot choose the bpfel or bpfeb build of the programs',
    });
  // What stops cls_bpf attach until packages are installed (TCX uses bpf_link and needs neither).
  const missingTooling: PlanPrerequisite[] = [];
  if (attach === 'cls_bpf' && facts.packages?.tcBpf === false) {
    missingTooling.push({
      package: 'tc-bpf',
      reason: `attaching with cls_bpf needs a tc that loads BPF objects; ${facts.packages.tc ?? 'no tc'} is installed (tc-full works too)`,
    });
  }
  if (attach === 'cls_bpf' && facts.packages?.clsBpf === false) {
    missingTooling.push({
      package: 'kmod-sched-bpf',
      reason: 'attaching with cls_bpf needs the cls_bpf classifier (kmod-sched-bpf), which is not installed',
    });
  }

  let fallbackWhy: string;
  if (ebpfMode === 'off') {
    fallbackWhy = 'l3Rewrite.ebpf is off';
  } else if (blockers.length > 0) {
    const why = blockers.map((b) => b.reason).join('; ');
    if (ebpfMode === 'on') {
      for (const b of blockers)
        refusals.push({ topic: b.topic, reason: `l3Rewrite.ebpf is on (eBPF required): ${b.reason}` });
      decide(
        'datapath.mode',
        'ebpf (refused)',
        `l3Rewrite.ebpf is on, which requires eBPF, but ${why}; nothing is applied`,
      );
      return { mode: 'ebpf', attach: capabilities.ebpf.value ? attach : null, bpfObject, programs };
    }
    fallbackWhy = `l3Rewrite.ebpf is auto and ${why}`;
  } else if (ebpfMode === 'auto' && missingTooling.length > 0) {
    fallbackWhy = `l3Rewrite.ebpf is auto; eBPF works in this kernel but cannot be attached until ${missingTooling.map((p) => p.package).join(' and ')} ${missingTooling.length > 1 ? 'are' : 'is'} installed (install them and set ebpf to on to use eBPF)`;
  } else {
    const confirm =
      capabilities.ebpf.source === 'predicted'
        ? ' (predicted; the on-device probe decides before anything is applied)'
        : ' (probed on the device)';
    decide(
      'datapath.mode',
      'ebpf',
      `l3Rewrite.ebpf is ${ebpfMode} and eBPF is available${confirm}: TC egress programs on the WAN interfaces`,
    );
    decide(
      'datapath.attach',
      attach,
      attach === 'tcx'
        ? `TCX available (${capabilities.tcx.reason}): programs chain through bpf_link`
        : `no TCX (${capabilities.tcx.reason}): clsact qdisc + cls_bpf direct-action filters`,
    );
    decide(
      'datapath.bpfObject',
      String(bpfObject),
      `the CPU is ${facts.endian}-endian, so the ${bpfObject} build of the programs is uploaded`,
    );
    if (ebpfMode === 'on' && missingTooling.length > 0) {
      // eBPF is required and the kernel can do it: the packages are the way there, not a reason to refuse.
      prerequisites.push(...missingTooling);
      warnings.push(
        `install ${missingTooling.map((p) => p.package).join(' and ')} before applying: cls_bpf attach needs them`,
      );
    }
    return { mode: 'ebpf', attach, bpfObject, programs };
  }

  return netfilterFallback(facts, programs, fallbackWhy, { decide, warnings, prerequisites });
}
