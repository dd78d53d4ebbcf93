import type { Hello, LiveState } from '../proto/gen/wrtfleet/agent/v1/agent.js';
import { Endianness, Placement, type CapabilitySet, type Facts } from '../proto/gen/wrtfleet/agent/v1/router.js';
import type { CapabilityFlags, PredictedCapabilities } from '../core/capabilities.js';
import type { RouterFacts } from '../core/facts/index.js';

export const AGENT_VERSION = '0.1.0';

/** Facts as the contract carries them: typed fields for what the controller filters on, the rest in `extra`. */
export function factsMessage(facts: RouterFacts): Facts {
  return {
    soc: facts.soc ?? '',
    arch: facts.arch ?? '',
    endian:
      facts.endian === 'little'
        ? Endianness.ENDIANNESS_LITTLE
        : facts.endian === 'big'
          ? Endianness.ENDIANNESS_BIG
          : Endianness.ENDIANNESS_UNSPECIFIED,
    kernel: facts.kernel ?? '',
    openwrt: facts.openwrt
      ? {
          release: facts.openwrt.release,
          target: facts.openwrt.target ?? '',
          revision: facts.openwrt.revision ?? '',
          arch: facts.openwrt.arch ?? '',
        }
      : undefined,
    modelId: facts.model.id ?? '',
    modelName: facts.model.name ?? '',
    boardName: facts.boardName ?? '',
    cpuModel: facts.cpu.model ?? '',
    cpuCores: facts.cpu.cores ?? 0,
    wanDevices: facts.network.wan,
    lanDevices: facts.network.lan,
    packages: facts.packages.installed,
    unknown: facts.unknown,
    extra: {
      socVariant: facts.socVariant,
      socFamily: facts.socFamily,
      target: facts.target,
      compatible: facts.compatible,
      systemType: facts.systemType,
      machine: facts.machine,
      os: facts.os,
      defaultRoutes: facts.network.defaultRoutes,
      packageFacts: { ...facts.packages, installed: undefined },
      evidence: facts.evidence,
      problems: facts.problems,
    },
  };
}

export function capabilitySetMessage(
  flags: CapabilityFlags,
  reasons: Partial<Record<keyof CapabilityFlags, string>>,
): CapabilitySet {
  const one = (key: keyof CapabilityFlags) => ({ value: flags[key], reason: reasons[key] ?? '' });
  return {
    hardwareOffload: one('hardwareOffload'),
    softwareOffload: one('softwareOffload'),
    ebpf: one('ebpf'),
    tcx: one('tcx'),
  };
}

export interface HelloInput {
  identity: string;
  name: string;
  placement: 'on_router' | 'proxy';
  proxyHost?: string;
  facts: RouterFacts;
  predicted: PredictedCapabilities;
  probed?: { flags: CapabilityFlags; reasons: Partial<Record<keyof CapabilityFlags, string>> };
  applied?: Hello['applied'];
  live?: LiveState;
  /** The kernel's boot id; confirms a firmware upgrade (a new one after the flash). */
  bootId?: string | null;
}

export function helloMessage(input: HelloInput): Hello {
  return {
    router: { identity: input.identity, name: input.name },
    agent: {
      version: AGENT_VERSION,
      placement: input.placement === 'proxy' ? Placement.PLACEMENT_PROXY : Placement.PLACEMENT_ON_ROUTER,
      proxyHost: input.proxyHost ?? '',
    },
    facts: factsMessage(input.facts),
    capabilities: {
      predicted: capabilitySetMessage(input.predicted, input.predicted.reasons),
      probed: input.probed ? capabilitySetMessage(input.probed.flags, input.probed.reasons) : undefined,
    },
    applied: input.applied,
    live: input.live,
    bootId: input.bootId ?? '',
  };
}
