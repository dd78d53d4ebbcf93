import { beforeAll, describe, expect, it } from 'vitest';
import { UCI_FLOW_OFFLOADING, UCI_FLOW_OFFLOADING_HW, type OffloadMode } from '../../core/plan.js';
import {
  CONFLICT_POLICIES,
  EBPF_MODES,
  FLOW_OFFLOAD_MODES,
  type ConflictPolicy,
  type EbpfMode,
  type FlowOffloadMode,
} from '../../core/profile-spec.js';
import {
  expectExplained,
  loadModelFacts,
  MODELS,
  planFor,
  PROGRAMS_OF,
  REWRITE_SETS,
  type Model,
  type RewriteSet,
} from './plan-models.js';

beforeAll(loadModelFacts);

/**
 * The rules of core/plan.ts restated as a small oracle over the hand-written model table, so
 * the table test checks behaviour rather than re-running the implementation.
 */
function expected(
  model: Model,
  ebpf: EbpfMode,
  requested: FlowOffloadMode,
  policy: ConflictPolicy,
  rewrites: RewriteSet,
) {
  let programs = PROGRAMS_OF[rewrites];
  const perPacket = rewrites === 'all';
  let satisfiable = true;

  const fallback = model.netfilter ?? 'nftables';
  let mode: 'ebpf' | 'nftables' | 'iptables' | 'none';
  if (programs.length === 0) mode = 'none';
  else if (ebpf === 'off') mode = fallback;
  else if (ebpf === 'on') {
    mode = 'ebpf';
    if (!model.ebpf) satisfiable = false;
  } else mode = model.ebpf && (model.tcx || model.clsBpfTooling) ? 'ebpf' : fallback;
  // iptables has no target for IP-ID zeroing or the SYN window; the TTL (per-packet) still runs under `all`.
  if (mode === 'iptables') {
    programs = programs.filter((p) => p !== 'set_ip_id_zero' && p !== 'set_tcp_syn_window');
    if (programs.length === 0) mode = 'none';
  }

  let offload: OffloadMode;
  if (requested === 'off') offload = 'off';
  else if (requested === 'auto')
    offload = model.hardwareOffload ? 'hardware' : model.softwareOffload ? 'software' : 'off';
  else if (requested === 'software') {
    if (model.softwareOffload) offload = 'software';
    else if (policy === 'prefer-rewrite') offload = 'off';
    else {
      offload = 'software';
      satisfiable = false;
    }
  } else if (model.hardwareOffload) offload = 'hardware';
  else if (policy === 'prefer-rewrite') offload = model.softwareOffload ? 'software' : 'off';
  else {
    offload = 'hardware';
    satisfiable = false;
  }

  const conflicts: string[] = [];
  if (offload === 'hardware' && perPacket) {
    conflicts.push('hardware-offload-vs-per-packet-rewrite');
    if (policy === 'prefer-rewrite') offload = 'software';
  }
  if ((mode === 'nftables' || mode === 'iptables') && offload !== 'off' && perPacket) {
    conflicts.push(`${mode}-rewrite-vs-offload`);
    if (policy === 'prefer-rewrite') offload = 'off';
  }
  // Only hardware offload bypasses the qdiscs: software-offloaded flows are still shaped.
  if (offload === 'hardware') conflicts.push('offload-bypasses-sqm');

  return {
    satisfiable,
    mode,
    attach: mode === 'ebpf' && model.ebpf ? (model.tcx ? 'tcx' : 'cls_bpf') : null,
    bpfObject: mode === 'ebpf' ? model.endian : null,
    programs,
    offload,
    uci: {
      [UCI_FLOW_OFFLOADING]: offload === 'off' ? '0' : '1',
      [UCI_FLOW_OFFLOADING_HW]: offload === 'hardware' ? '1' : '0',
    },
    conflicts,
  };
}

const COMBINATIONS = Object.keys(MODELS).flatMap((model) =>
  EBPF_MODES.flatMap((ebpf) =>
    FLOW_OFFLOAD_MODES.flatMap((offload) =>
      CONFLICT_POLICIES.flatMap((policy) =>
        (Object.keys(REWRITE_SETS) as RewriteSet[]).map((rewrites) => ({ model, ebpf, offload, policy, rewrites })),
      ),
    ),
  ),
);

describe(`plan table: ${Object.keys(MODELS).length} fixture routers x ebpf x offload x policy x rewrites (${COMBINATIONS.length} plans)`, () => {
  it.each(COMBINATIONS)(
    '$model ebpf=$ebpf offload=$offload $policy rewrites=$rewrites',
    ({ model, ebpf, offload, policy, rewrites }) => {
      const plan = planFor(model, {
        l3Rewrite: { ...REWRITE_SETS[rewrites], ebpf },
        flowOffload: { mode: offload },
        conflictPolicy: policy,
      });
      const want = expected(MODELS[model]!, ebpf, offload, policy, rewrites);
      expect({
        satisfiable: plan.satisfiable,
        mode: plan.datapath.mode,
        attach: plan.datapath.attach,
        bpfObject: plan.datapath.bpfObject,
        programs: plan.datapath.programs.map((p) => p.name),
        offload: plan.offload.mode,
        uci: plan.offload.uci,
        conflicts: plan.conflicts.map((c) => c.id),
      }).toEqual(want);
      expect(plan.offload.requested).toBe(offload);
      expectExplained(plan);
      expect(plan.planHash).toMatch(/^[0-9a-f]{64}$/);
    },
  );
});
