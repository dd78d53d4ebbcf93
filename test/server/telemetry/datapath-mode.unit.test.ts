/** Which datapath telemetry history files a router under: the iptables fallback of fw3 routers included. */
import { describe, expect, it } from 'vitest';
import { DatapathState_Mode } from '../../../proto/gen/wrtfleet/agent/v1/agent.js';
import { datapathStateOfEvidence, modeOfLiveState } from '../../../server/telemetry/datapath-mode.js';
import { modeCode } from '../../../server/telemetry/series-layout.js';

describe('datapath mode of a router', () => {
  it('reads the iptables chains from an applied result and from a live state', () => {
    expect(
      datapathStateOfEvidence({
        datapath: {
          ebpf: [],
          nftables: null,
          iptables: { chain: 'mangle wrtfleet_egress', interfaces: ['wan'], rules: 2 },
        },
      }),
    ).toEqual({ mode: DatapathState_Mode.MODE_IPTABLES, interfaces: ['wan'], programs: [] });
    expect(modeOfLiveState({ datapath: { mode: DatapathState_Mode.MODE_IPTABLES } })).toBe(modeCode('iptables'));
    // The codes stored before iptables existed keep their meaning.
    expect(modeCode('nftables')).toBe(4);
    expect(modeCode('iptables')).toBe(5);
  });
});
