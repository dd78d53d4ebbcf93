import { describe, expect, it } from 'vitest';
import { capabilityRows, liveDatapath, liveOffload } from '../../../web-admin/src/pages/router/live-state.js';

describe("the router page's live state and capabilities", () => {
  it('names the datapath and offload modes the agent sends as enum numbers or names', () => {
    expect(liveDatapath({ datapath: { mode: 2, interfaces: ['wan'], programs: ['set_ip_ttl', 7] } })).toEqual({
      mode: 'tcx',
      interfaces: ['wan'],
      programs: ['set_ip_ttl'],
    });
    expect(liveDatapath({ datapath: { mode: 'MODE_NFTABLES' } })?.mode).toBe('nftables');
    expect(liveDatapath({ datapath: { mode: 'MODE_IPTABLES' } })?.mode).toBe('iptables');
    expect(liveDatapath({ datapath: { mode: 99 } })?.mode).toBe('unknown');
    expect(liveDatapath(null)).toBeNull();
    expect(liveOffload({ offload: { mode: 3, reason: '' } })).toEqual({ mode: 'hardware', reason: null });
    expect(liveOffload({ offload: { mode: 4, reason: 'no PPE' } })).toEqual({ mode: 'unsupported', reason: 'no PPE' });
    expect(liveOffload({})).toBeNull();
  });

  it('pairs predicted and probed per capability with their reasons, and flags a disagreement', () => {
    const rows = capabilityRows({
      predicted: {
        hardwareOffload: { value: true, reason: 'MT7621 has a PPE' },
        ebpf: { value: true, reason: 'kernel 5.15' },
      },
      probed: { hardwareOffload: { value: false, reason: 'flow_offloading_hw refused' } },
    });
    expect(rows.map((r) => r.key)).toEqual(['hardwareOffload', 'softwareOffload', 'ebpf', 'tcx']);
    expect(rows[0]).toMatchObject({
      predicted: { value: true, reason: 'MT7621 has a PPE' },
      probed: { value: false, reason: 'flow_offloading_hw refused' },
      disagrees: true,
    });
    expect(rows[2]).toMatchObject({ probed: null, disagrees: false });
    expect(capabilityRows(null).every((r) => r.predicted === null && r.probed === null)).toBe(true);
  });
});
