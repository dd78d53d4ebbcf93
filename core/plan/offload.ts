/**
 * Offloading: step 4 of resolvePlan matches the requested mode to the router, with the conflict
 * policy deciding what an unavailable mode means; once the conflicts have settled the mode,
 * offloadSettings turns it into the firewall options to write.
 */
import { firewallGeneration } from '../facts/firewall.js';
import type { ConflictPolicy, FlowOffloadMode } from '../profile-spec.js';
import {
  UCI_FLOW_OFFLOADING,
  UCI_FLOW_OFFLOADING_HW,
  type CapabilityName,
  type EffectiveCapability,
  type OffloadMode,
  type PlanFacts,
  type Sinks,
  type UciOffloadSettings,
} from './types.js';

export function resolveOffloadCapability(
  requested: FlowOffloadMode,
  policy: ConflictPolicy,
  capabilities: Record<CapabilityName, EffectiveCapability>,
  { decide, refusals }: Pick<Sinks, 'decide' | 'refusals'>,
): OffloadMode {
  const hw = capabilities.hardwareOffload;
  const sw = capabilities.softwareOffload;
  const topic = 'offload.capability';
  switch (requested) {
    case 'off':
      decide(topic, 'off', 'flowOffload.mode is off');
      return 'off';
    case 'auto': {
      const best: OffloadMode = hw.value ? 'hardware' : sw.value ? 'software' : 'off';
      decide(
        topic,
        best,
        best === 'hardware'
          ? `flowOffload.mode is auto and the router offloads in hardware (${hw.reason})`
          : best === 'software'
            ? `flowOffload.mode is auto; no hardware offload (${hw.reason}), software offload is available (${sw.reason})`
            : `flowOffload.mode is auto and no offloading is available (${sw.reason})`,
      );
      return best;
    }
    case 'software':
      if (sw.value) {
        decide(topic, 'software', `flowOffload.mode is software and the firewall offers it (${sw.reason})`);
        return 'software';
      }
      return unavailable(
        'software',
        policy === 'prefer-rewrite' ? 'off' : null,
        `software offload unavailable: ${sw.reason}`,
      );
    case 'hardware':
      if (hw.value) {
        decide(topic, 'hardware', `flowOffload.mode is hardware and the SoC has a flow-offload engine (${hw.reason})`);
        return 'hardware';
      }
      return unavailable(
        'hardware',
        policy === 'prefer-rewrite' ? (sw.value ? 'software' : 'off') : null,
        `hardware offload unavailable: ${hw.reason}${sw.value ? '' : `; software offload unavailable too: ${sw.reason}`}`,
      );
  }

  /** prefer-rewrite degrades to `fallback`; prefer-offload (fallback null) refuses and keeps the request as intent. */
  function unavailable(wanted: OffloadMode, fallback: OffloadMode | null, why: string): OffloadMode {
    if (fallback !== null) {
      decide(
        topic,
        fallback,
        `flowOffload.mode is ${wanted} but ${why}; prefer-rewrite treats offloading as best effort, so it degrades to ${fallback} (as the firewall itself falls back from hardware to software)`,
      );
      return fallback;
    }
    refusals.push({
      topic: 'offload.capability',
      reason: `flowOffload.mode is ${wanted} and conflictPolicy is prefer-offload (offloading required), but ${why}; use flowOffload.mode auto for the best available`,
    });
    decide(
      topic,
      `${wanted} (refused)`,
      `prefer-offload makes the requested ${wanted} offload a requirement, and ${why}; nothing is applied`,
    );
    return wanted;
  }
}

/** The firewall defaults for the settled offload mode, and the package the firewall (fw4 or fw3) needs to offload at all. */
export function offloadSettings(
  offload: OffloadMode,
  facts: PlanFacts,
  { decide, prerequisites }: Pick<Sinks, 'decide' | 'prerequisites'>,
): UciOffloadSettings | null {
  const uci = uciSettings(offload, facts);
  const fw3 = firewallGeneration(facts)?.generation === 'fw3';
  decide(
    'offload.uci',
    uci ? `flow_offloading=${uci[UCI_FLOW_OFFLOADING]} flow_offloading_hw=${uci[UCI_FLOW_OFFLOADING_HW]}` : 'none',
    uci
      ? offload === 'off'
        ? 'offloading off: both firewall defaults are written as 0, explicitly, so the applied state is checkable and an earlier setting does not linger'
        : `firewall defaults for ${offload} offload (flow_offloading_hw only acts with flow_offloading=1), then uci commit firewall and a firewall reload${fw3 ? '; fw3 turns them into an iptables FLOWOFFLOAD rule in the FORWARD chain' : ''}`
      : 'not OpenWrt: no uci/firewall, so offloading is not managed on this router',
  );
  if (offload !== 'off' && fw3 && facts.packages?.iptOffload === false) {
    prerequisites.push({
      package: 'kmod-ipt-offload',
      reason: "fw3's FLOWOFFLOAD target comes with kmod-ipt-offload, which is not installed",
    });
  } else if (offload !== 'off' && !fw3 && facts.packages?.nftOffload === false) {
    prerequisites.push({
      package: 'kmod-nft-offload',
      reason: 'fw4 flowtables need nft_flow_offload, and kmod-nft-offload is not installed',
    });
  }
  return uci;
}

function uciSettings(offload: OffloadMode, facts: PlanFacts): UciOffloadSettings | null {
  if (!facts.openwrt) return null;
  return {
    [UCI_FLOW_OFFLOADING]: offload === 'off' ? '0' : '1',
    [UCI_FLOW_OFFLOADING_HW]: offload === 'hardware' ? '1' : '0',
  };
}
