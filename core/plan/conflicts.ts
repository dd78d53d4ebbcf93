/**
 * Step 5 of resolvePlan: the conflicts between offloading and rewriting (docs/DOMAIN.md, Flow
 * offloading), each checked in turn against the offload mode the previous one left:
 *  (a) hardware offload vs per-packet rewrites (TTL, IP-ID, hop limit): PPE-bound flows never
 *      reach the CPU. prefer-rewrite -> software offload (TC egress still sees those packets);
 *      prefer-offload -> keep hardware, warn.
 *  (b) netfilter per-packet rewrites (nftables, or iptables on fw3) vs any offload: offloaded
 *      flows skip netfilter after ingress, fw4's flowtable and fw3's FLOWOFFLOAD alike.
 *      prefer-rewrite -> offload off; prefer-offload -> keep, warn.
 *      SYN-only rewrites are in neither conflict: a flow is only offloaded once its TCP handshake
 *      is done (conntrack ESTABLISHED and assured), so the first SYN always takes the full path.
 *  (c) hardware-offloaded flows bypass SQM/qdisc shaping: informational. Software-offloaded ones
 *      do not: the flowtable transmits through dev_queue_xmit (the egress qdisc queues them), and
 *      packets an ingress ifb hands back skip the flowtable's hook. Observed on a real 6.1 kernel
 *      (lab/checks/flow-offload.ts): cake held offloaded flows to its rate both ways, the
 *      nftables rewrites stopped after the handshake, the TC egress programs did not.
 */
import type { ProgramName } from '../programs.js';
import type { ConflictPolicy } from '../profile-spec.js';
import type { ConflictId, DatapathMode, OffloadMode, PlanConflict, PlannedProgram, Sinks } from './types.js';

interface ConflictContext {
  policy: ConflictPolicy;
  datapath: DatapathMode;
  /** Enabled programs that rewrite every packet (what offloading can take away). */
  perPacket: ProgramName[];
  /** Enabled programs that rewrite only the first SYN (which always passes the CPU and netfilter). */
  synOnly: ProgramName[];
  sinks: Pick<Sinks, 'decide' | 'warnings'>;
}

/** What one check leaves: the offload mode after it, and the conflict it found, if any. */
interface CheckOutcome {
  offload: OffloadMode;
  conflict: PlanConflict | null;
}

/** Resolves the conflicts by the spec's policy; returns the offload mode to apply and the conflicts found. */
export function resolveConflicts(
  policy: ConflictPolicy,
  datapath: DatapathMode,
  programs: PlannedProgram[],
  offloadForRouter: OffloadMode,
  sinks: Pick<Sinks, 'decide' | 'warnings'>,
): { offload: OffloadMode; conflicts: PlanConflict[] } {
  const context: ConflictContext = {
    policy,
    datapath,
    perPacket: programs.filter((p) => p.scope === 'every-packet').map((p) => p.name),
    synOnly: programs.filter((p) => p.scope === 'first-syn').map((p) => p.name),
    sinks,
  };
  const conflicts: PlanConflict[] = [];
  let offload = offloadForRouter;
  for (const check of [hardwareOffloadVsPerPacketRewrite, netfilterRewriteVsOffload, offloadBypassesSqm]) {
    const outcome = check(context, offload);
    offload = outcome.offload;
    if (outcome.conflict) conflicts.push(outcome.conflict);
  }

  const changedBy = conflicts
    .filter((c) => c.offload.before !== c.offload.after)
    .map((c) => `${c.id}: ${c.offload.before} -> ${c.offload.after}`);
  sinks.decide(
    'offload.mode',
    offload,
    changedBy.length > 0
      ? `the router allows ${offloadForRouter}; the ${policy} policy changed it (${changedBy.join('; ')})`
      : `${offload}, as matched to the router (offload.capability); no conflict changed it`,
  );
  return { offload, conflicts };
}

/** (a) PPE-bound flows never reach the CPU, so per-packet rewrites stop for them. */
function hardwareOffloadVsPerPacketRewrite(
  { policy, datapath, perPacket, synOnly, sinks: { decide, warnings } }: ConflictContext,
  offload: OffloadMode,
): CheckOutcome {
  const topic = 'conflict.hardware-offload-vs-per-packet-rewrite';
  if (offload !== 'hardware') {
    decide(topic, 'none', `offload is ${offload}, not hardware: nothing bypasses the CPU`);
    return { offload, conflict: null };
  }
  if (perPacket.length === 0) {
    decide(
      topic,
      'none',
      synOnly.length > 0
        ? `only first-SYN rewrites are enabled (${synOnly.join(', ')}); the first SYN always passes the CPU before a flow can be offloaded, so hardware offload does not affect them`
        : 'no rewrite is enabled, so hardware offload takes nothing away',
    );
    return { offload, conflict: null };
  }

  const lost = perPacket.map(describeProgramEffect).join(' and ');
  if (policy === 'prefer-rewrite') {
    const detail =
      datapath === 'ebpf'
        ? `hardware-offloaded flows are forwarded by the PPE and never reach the CPU, so ${lost} would stop once a flow is bound; prefer-rewrite downgrades to software offload, whose flows still leave through dev_queue_xmit and so still pass the TC egress programs`
        : `hardware-offloaded flows never reach the CPU, so ${lost} would stop once a flow is bound; prefer-rewrite downgrades to software offload (see the ${datapath} conflict for what software offload means to ${datapath} rules)`;
    decide(topic, 'offload-downgraded', detail);
    return {
      offload: 'software',
      conflict: {
        id: 'hardware-offload-vs-per-packet-rewrite',
        policy,
        resolution: 'offload-downgraded',
        programs: perPacket,
        offload: { before: 'hardware', after: 'software' },
        detail,
      },
    };
  }
  const detail = `prefer-offload keeps hardware offload: ${lost} apply only to packets the CPU still sees, i.e. the first packets of each flow before the PPE binds it; ${synOnly.length > 0 ? `${synOnly.join(', ')} ${synOnly.length > 1 ? 'are' : 'is'} unaffected (the first SYN always passes the CPU)` : 'no SYN-only program is enabled'}`;
  decide(topic, 'rewrite-partial', detail);
  warnings.push(`hardware offload kept: ${lost} stop for each flow once it is bound in the PPE`);
  return {
    offload,
    conflict: {
      id: 'hardware-offload-vs-per-packet-rewrite',
      policy,
      resolution: 'rewrite-partial',
      programs: perPacket,
      offload: { before: 'hardware', after: 'hardware' },
      detail,
    },
  };
}

/** How the firewall offloads, for the (b) explanations: the same flowtable code, two front ends. */
const OFFLOAD_FRONT_END: Record<'nftables' | 'iptables', string> = {
  nftables: "fw4's flowtable",
  iptables: "fw3's iptables FLOWOFFLOAD rule (the same nf_flow_table underneath)",
};

/** (b) Offloaded flows skip netfilter after ingress, so nftables or iptables per-packet rules stop for them. */
function netfilterRewriteVsOffload(
  { policy, datapath, perPacket, synOnly, sinks: { decide, warnings } }: ConflictContext,
  offload: OffloadMode,
): CheckOutcome {
  const netfilter = datapath === 'iptables' ? 'iptables' : 'nftables';
  const id: ConflictId = `${netfilter}-rewrite-vs-offload`;
  const topic = `conflict.${id}`;
  const rules = netfilter === 'iptables' ? 'iptables mangle rules' : 'nftables rules';
  if (datapath === netfilter && offload !== 'off' && perPacket.length > 0) {
    const lost = perPacket.map(describeProgramEffect).join(' and ');
    const via = OFFLOAD_FRONT_END[netfilter];
    if (policy === 'prefer-rewrite') {
      const detail = `${offload}-offloaded flows (${via}) skip every netfilter hook after ingress, so the ${rules} for ${lost} would stop once a flow is offloaded; prefer-rewrite turns offloading off (eBPF would have allowed software offload, but this plan runs on ${netfilter})`;
      decide(topic, 'offload-disabled', detail);
      return {
        offload: 'off',
        conflict: {
          id,
          policy,
          resolution: 'offload-disabled',
          programs: perPacket,
          offload: { before: offload, after: 'off' },
          detail,
        },
      };
    }
    const detail = `prefer-offload keeps ${offload} offload: the ${rules} for ${lost} apply only until the flow's TCP handshake is done and ${via} offloads it, i.e. to the handshake and at most the first data packets of each flow (and again to the last ones once a FIN or RST hands the flow back)`;
    decide(topic, 'rewrite-partial', detail);
    warnings.push(
      `${offload} offload kept with ${netfilter} rewriting: ${lost} stop for each flow once it is offloaded`,
    );
    return {
      offload,
      conflict: {
        id,
        policy,
        resolution: 'rewrite-partial',
        programs: perPacket,
        offload: { before: offload, after: offload },
        detail,
      },
    };
  }

  if (datapath === netfilter && offload !== 'off') {
    decide(
      topic,
      'none',
      `only first-SYN rewrites run in ${netfilter} (${synOnly.join(', ')}); flows are offloaded only once their TCP handshake is done (conntrack ESTABLISHED and assured), so the first SYN always traverses the netfilter hooks`,
    );
  } else if (datapath === 'ebpf' && offload === 'software') {
    decide(
      topic,
      'none',
      'rewrites run as TC egress eBPF, which software-offloaded flows still pass (dev_queue_xmit, with fw4 and fw3 alike): rewriting and software offload coexist',
    );
  } else {
    decide(
      topic,
      'none',
      datapath === netfilter
        ? `offload is off: every packet traverses the ${rules}`
        : `datapath is ${datapath}: no netfilter rewrite to bypass`,
    );
  }
  return { offload, conflict: null };
}

/**
 * (c) Hardware-offloaded flows bypass qdisc shaping; worth knowing, not for the policy to resolve.
 * Software-offloaded flows are still shaped (see the file comment), so software is no conflict.
 */
function offloadBypassesSqm({ sinks: { decide } }: ConflictContext, offload: OffloadMode): CheckOutcome {
  const topic = 'conflict.offload-bypasses-sqm';
  if (offload === 'off') {
    decide(topic, 'none', 'offload is off: SQM/qdisc shaping sees every packet');
    return { offload, conflict: null };
  }
  if (offload === 'software') {
    decide(
      topic,
      'none',
      "software-offloaded flows still leave through dev_queue_xmit, so the WAN's egress qdisc (SQM's cake, fq_codel) queues and shapes them; SQM's ingress shaping hands packets back from its ifb with classification skipped, which skips the flowtable's ingress hook too, so that direction takes the full path and is shaped as well",
    );
    return { offload, conflict: null };
  }
  const detail =
    'hardware-offloaded flows are forwarded by the PPE once bound and never reach a qdisc, so SQM/qdisc shaping (CAKE, fq_codel) stops for them; if this router shapes traffic, use software offload (still shaped) or offload off';
  decide(topic, 'informational', detail);
  return {
    offload,
    conflict: {
      id: 'offload-bypasses-sqm',
      policy: null,
      resolution: 'informational',
      programs: [],
      offload: { before: offload, after: offload },
      detail,
    },
  };
}

function describeProgramEffect(name: ProgramName): string {
  switch (name) {
    case 'set_ip_id_zero':
      return 'IP-ID zeroing';
    case 'set_ip_ttl':
      return 'TTL rewriting';
    case 'set_tcp_syn_window':
      return 'SYN window rewriting';
    case 'clear_tcp_syn_ts':
      return 'SYN timestamp clearing';
  }
}
