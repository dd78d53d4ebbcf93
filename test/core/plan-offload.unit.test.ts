import { beforeAll, describe, expect, it } from 'vitest';
import { UCI_FLOW_OFFLOADING, UCI_FLOW_OFFLOADING_HW } from '../../core/plan.js';
import { CONFLICT_POLICIES } from '../../core/profile-spec.js';
import { loadModelFacts, planFor, REWRITE_SETS } from './plan-models.js';

beforeAll(loadModelFacts);

describe('plan: offload against the rewrites', () => {
  it('MT7621 hardware offload vs TTL rewriting, prefer-rewrite: downgraded to software, and said why', () => {
    const plan = planFor('kt-km14-102h-mt7621', {
      l3Rewrite: { ttl: { value: 128 } },
      flowOffload: { mode: 'hardware' },
      conflictPolicy: 'prefer-rewrite',
    });
    expect(plan.satisfiable).toBe(true);
    expect(plan.datapath).toMatchObject({ mode: 'ebpf', attach: 'tcx', bpfObject: 'bpfel' });
    expect(plan.datapath.programs).toContainEqual({
      name: 'set_ip_ttl',
      scope: 'every-packet',
      config: { ttl: 128, ipv6HopLimit: false },
    });
    expect(plan.offload).toEqual({
      requested: 'hardware',
      mode: 'software',
      uci: { 'firewall.@defaults[0].flow_offloading': '1', 'firewall.@defaults[0].flow_offloading_hw': '0' },
    });
    const conflict = plan.conflicts.find((c) => c.id === 'hardware-offload-vs-per-packet-rewrite');
    expect(conflict).toMatchObject({
      policy: 'prefer-rewrite',
      resolution: 'offload-downgraded',
      programs: ['set_ip_id_zero', 'set_ip_ttl'],
      offload: { before: 'hardware', after: 'software' },
    });
    expect(conflict?.detail).toMatch(/PPE.*never reach the CPU.*TC egress/);
    expect(plan.decisions.find((d) => d.topic === 'offload.mode')?.reason).toMatch(
      /router allows hardware.*prefer-rewrite.*hardware -> software/,
    );
    expect(plan.warnings).toEqual([]);
  });

  it('MT7621 hardware offload vs TTL rewriting, prefer-offload: hardware kept, TTL/IP-ID warned as partial, SYN programs unaffected', () => {
    const plan = planFor('kt-km14-102h-mt7621', {
      flowOffload: { mode: 'hardware' },
      conflictPolicy: 'prefer-offload',
    });
    expect(plan.satisfiable).toBe(true);
    expect(plan.offload.mode).toBe('hardware');
    expect(plan.offload.uci).toEqual({
      'firewall.@defaults[0].flow_offloading': '1',
      'firewall.@defaults[0].flow_offloading_hw': '1',
    });
    const conflict = plan.conflicts.find((c) => c.id === 'hardware-offload-vs-per-packet-rewrite');
    expect(conflict).toMatchObject({
      resolution: 'rewrite-partial',
      offload: { before: 'hardware', after: 'hardware' },
    });
    expect(conflict?.detail).toMatch(/set_tcp_syn_window, clear_tcp_syn_ts are unaffected/);
    expect(plan.warnings.join('\n')).toMatch(/IP-ID zeroing and TTL rewriting stop .* PPE/);
  });

  it('MT7621 hardware offload with SYN-only rewrites: no conflict, hardware kept under either policy', () => {
    for (const conflictPolicy of CONFLICT_POLICIES) {
      const plan = planFor('kt-km14-102h-mt7621', {
        l3Rewrite: REWRITE_SETS['syn-only'],
        flowOffload: { mode: 'hardware' },
        conflictPolicy,
      });
      expect(plan.offload.mode).toBe('hardware');
      expect(plan.conflicts.map((c) => c.id)).toEqual(['offload-bypasses-sqm']);
      expect(plan.decisions.find((d) => d.topic === 'conflict.hardware-offload-vs-per-packet-rewrite')?.reason).toMatch(
        /first SYN always passes the CPU/,
      );
    }
  });

  it('QCA9558 (Archer C7 v2) asked for hardware offload: software under prefer-rewrite, refused under prefer-offload', () => {
    const degraded = planFor('tplink-archer-c7-v2', {
      flowOffload: { mode: 'hardware' },
      conflictPolicy: 'prefer-rewrite',
    });
    expect(degraded.satisfiable).toBe(true);
    expect(degraded.offload.mode).toBe('software');
    expect(degraded.datapath).toMatchObject({ mode: 'ebpf', attach: 'cls_bpf', bpfObject: 'bpfeb' });
    expect(degraded.decisions.find((d) => d.topic === 'offload.capability')).toMatchObject({
      choice: 'software',
      reason: expect.stringMatching(
        /hardware offload unavailable: QCA9558: ath79.*no flow-offload engine.*degrades to software/,
      ),
    });

    const refused = planFor('tplink-archer-c7-v2', {
      flowOffload: { mode: 'hardware' },
      conflictPolicy: 'prefer-offload',
    });
    expect(refused.satisfiable).toBe(false);
    expect(refused.refusals).toEqual([
      { topic: 'offload.capability', reason: expect.stringMatching(/prefer-offload.*QCA9558.*flowOffload.mode auto/) },
    ]);
    // The preview still shows what was meant.
    expect(refused.offload.mode).toBe('hardware');

    // `auto` is the way to ask for the best available: software here, never a refusal.
    const auto = planFor('tplink-archer-c7-v2', {
      l3Rewrite: REWRITE_SETS['syn-only'],
      flowOffload: { mode: 'auto' },
      conflictPolicy: 'prefer-offload',
    });
    expect(auto).toMatchObject({ satisfiable: true, offload: { mode: 'software' } });
  });

  it('19.07 C7: software offload through fw3 with SYN-only rewrites, which offload does not take away', () => {
    const plan = planFor('tplink-archer-c7-v2-19.07-ar71xx', {
      l3Rewrite: REWRITE_SETS['syn-only'],
      flowOffload: { mode: 'auto' },
    });
    expect(plan).toMatchObject({ satisfiable: true, datapath: { mode: 'iptables' } });
    expect(plan.offload).toEqual({
      requested: 'auto',
      mode: 'software',
      uci: { [UCI_FLOW_OFFLOADING]: '1', [UCI_FLOW_OFFLOADING_HW]: '0' },
    });
    expect(plan.decisions.find((d) => d.topic === 'offload.uci')?.reason).toMatch(
      /FLOWOFFLOAD rule in the FORWARD chain/,
    );
    expect(plan.decisions.find((d) => d.topic === 'conflict.iptables-rewrite-vs-offload')?.choice).toBe('none');
    // kmod-ipt-offload is in the fixture's package database: nothing to install for offloading;
    // TCPOPTSTRIP (the SYN timestamp) needs iptables-mod-ipopt, which it lacks.
    expect(plan.prerequisites.map((p) => p.package)).toEqual(['iptables-mod-ipopt']);
  });

  it('a probed hardware offload=false on MT7621 makes auto choose software', () => {
    const plan = planFor(
      'kt-km14-102h-mt7621',
      { l3Rewrite: REWRITE_SETS['syn-only'] },
      { capabilities: { probed: { hardwareOffload: false } } },
    );
    expect(plan.offload.mode).toBe('software');
    expect(plan.capabilities.hardwareOffload.source).toBe('probed');
  });

  it('nftables with offload: per-packet rules disable offload under prefer-rewrite; SYN-only rules keep it', () => {
    const perPacket = planFor('glinet-gl-mt6000-mt7986', {
      l3Rewrite: { ebpf: 'off' },
      flowOffload: { mode: 'software' },
    });
    expect(perPacket.offload.mode).toBe('off');
    expect(perPacket.conflicts).toEqual([
      expect.objectContaining({
        id: 'nftables-rewrite-vs-offload',
        resolution: 'offload-disabled',
        offload: { before: 'software', after: 'off' },
      }),
    ]);

    const hardware = planFor('glinet-gl-mt6000-mt7986', {
      l3Rewrite: { ebpf: 'off' },
      flowOffload: { mode: 'hardware' },
    });
    expect(hardware.conflicts.map((c) => [c.id, c.offload.before, c.offload.after])).toEqual([
      ['hardware-offload-vs-per-packet-rewrite', 'hardware', 'software'],
      ['nftables-rewrite-vs-offload', 'software', 'off'],
    ]);
    expect(hardware.offload.mode).toBe('off');

    const kept = planFor('glinet-gl-mt6000-mt7986', {
      l3Rewrite: { ebpf: 'off' },
      flowOffload: { mode: 'software' },
      conflictPolicy: 'prefer-offload',
    });
    expect(kept.offload.mode).toBe('software');
    expect(kept.warnings.join('\n')).toMatch(/software offload kept with nftables rewriting/);

    const synOnly = planFor('glinet-gl-mt6000-mt7986', {
      l3Rewrite: { ...REWRITE_SETS['syn-only'], ebpf: 'off' },
      flowOffload: { mode: 'software' },
    });
    expect(synOnly.offload.mode).toBe('software');
    expect(synOnly.decisions.find((d) => d.topic === 'conflict.nftables-rewrite-vs-offload')?.reason).toMatch(
      /first SYN always traverses the netfilter hooks/,
    );
  });

  it('eBPF with software offload coexist (TC egress still sees software-offloaded flows)', () => {
    const plan = planFor('tplink-archer-c7-v2', { flowOffload: { mode: 'software' } });
    expect(plan).toMatchObject({ satisfiable: true, datapath: { mode: 'ebpf' }, offload: { mode: 'software' } });
    // Software offload is no SQM conflict either (lab/checks/flow-offload.ts: cake still shapes offloaded flows).
    expect(plan.conflicts).toEqual([]);
    expect(plan.decisions.find((d) => d.topic === 'conflict.nftables-rewrite-vs-offload')?.reason).toMatch(
      /dev_queue_xmit/,
    );
    expect(plan.decisions.find((d) => d.topic === 'conflict.offload-bypasses-sqm')).toMatchObject({
      choice: 'none',
      reason: expect.stringMatching(/dev_queue_xmit.*egress qdisc.*ifb/),
    });
  });
});
