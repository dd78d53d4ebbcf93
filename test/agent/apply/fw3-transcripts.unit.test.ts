/**
 * Flow offloading on fw3 routers, OpenWrt 19.07 (Archer C7 v2, ath79/QCA9558: simulated MIPS,
 * software offload only) and 21.02 (Xiaomi Mi Router 4A Gigabit, MT7621: simulated MIPS, PPE
 * hardware offload), through the real transaction code against transcripts of uci, fw3's reload,
 * iptables-save and /proc/net/nf_conntrack (OpenWrt cannot run here). Plans come from the
 * fixture trees' facts with resolvePlan; the datapath side is idle (rewrites off), so only
 * uci/fw3 change. The iptables datapath itself runs for real in test/e2e/datapath/iptables-e2e.test.ts
 * and test/agent/apply/iptables-transaction.test.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyTransaction, requiresHardware, type AppliedRecord } from '../../../agent/apply/transaction.js';
import { fw3LiveMode, parseFlowOffloadRules } from '../../../agent/offload/fw3.js';
import { applyOffload, offloadSupport, readOffload, verifyOffload } from '../../../agent/offload/index.js';
import type { Plan } from '../../../core/plan.js';
import type { ProfileSpec } from '../../../core/profile-spec.js';
import {
  NO_REWRITE,
  OpenWrtTranscriptHost,
  TRANSCRIPTS,
  transcriptPlan,
  validSpec,
} from '../../support/openwrt-transcripts.js';

const C7 = 'tplink-archer-c7-v2-19.07-ar71xx';
const MT7621 = 'xiaomi-mi-router-4a-gigabit-21.02-mt7621';

function record(s: ProfileSpec, plan: Plan, revision: number): AppliedRecord {
  return { profile: 'fw3', revision, planHash: plan.planHash, spec: s, plan, appliedAt: '2026-01-01T00:00:00.000Z' };
}

interface Fw3Evidence {
  firewall: string;
  live: string;
  fallback: boolean;
  rules: { chain: string; hardware: boolean }[];
  flows: { software: number; hardware: number };
  warnings: string[];
}

describe("fw3's FLOWOFFLOAD rule in iptables-save", () => {
  it('is found in the FORWARD chain, with --hw for hardware (OpenWrt transcripts: OpenWrt cannot run here)', () => {
    const read = (mode: string) =>
      parseFlowOffloadRules(readFileSync(join(TRANSCRIPTS, MT7621, `iptables-save-filter.${mode}.txt`), 'utf8'));
    expect(read('off')).toEqual([]);
    expect(read('software')).toEqual([
      {
        chain: 'FORWARD',
        hardware: false,
        rule: '-A FORWARD -m comment --comment "!fw3: Traffic offloading" -m conntrack --ctstate RELATED,ESTABLISHED -j FLOWOFFLOAD',
      },
    ]);
    expect(read('hardware')[0]?.hardware).toBe(true);
    expect(fw3LiveMode(read('hardware'))).toBe('hardware');
    expect(fw3LiveMode(read('software'))).toBe('software');
    // A FLOWOFFLOAD rule someone put in another chain is not fw3's.
    expect(fw3LiveMode(parseFlowOffloadRules('-A forwarding_rule -j FLOWOFFLOAD --hw\n'))).toBe('off');
  });
});

describe('fw3 offload on simulated MIPS routers (OpenWrt transcripts: OpenWrt cannot run here)', () => {
  it('the probe finds fw3 and reads the rule back; an apply is idempotent', async () => {
    const host = new OpenWrtTranscriptHost(C7);
    expect(await offloadSupport(host)).toMatchObject({ supported: true, firewall: 'fw3' });
    const ev = await applyOffload(host, { flow_offloading: '1', flow_offloading_hw: '0' });
    expect(ev.changes).toEqual([
      'uci flow_offloading: (unset) -> 1',
      'uci flow_offloading_hw: (unset) -> 0',
      'uci commit firewall',
      '/etc/init.d/firewall reload',
    ]);
    expect(ev).toMatchObject({ configured: 'software', live: 'software', fallback: false, flows: { software: 2 } });
    expect(ev.warnings).toEqual(['Warning: Unable to locate ipset utility, disabling ipset support']);
    expect(verifyOffload(ev, 'software')).toEqual([]);
    const n = host.log.length;
    expect((await applyOffload(host, { flow_offloading: '1', flow_offloading_hw: '0' })).changes).toEqual([]);
    expect(host.log.slice(n).some((a) => a.join(' ') === '/etc/init.d/firewall reload')).toBe(false);
  });

  it('21.02 MT7621, hardware required: applied; the rule has --hw and conntrack shows [HW_OFFLOAD] flows', async () => {
    const host = new OpenWrtTranscriptHost(MT7621);
    const s = validSpec({ ...NO_REWRITE, flowOffload: { mode: 'hardware' }, conflictPolicy: 'prefer-offload' });
    const plan = await transcriptPlan(host, s);
    expect(plan).toMatchObject({ satisfiable: true, offload: { mode: 'hardware' }, prerequisites: [] });
    const out = await applyTransaction(host, plan, null, { requireHardware: requiresHardware(s) });
    expect(out.status).toBe('applied');
    const ev = (out.evidence as { offload: Fw3Evidence }).offload;
    expect(ev).toMatchObject({
      firewall: 'fw3',
      live: 'hardware',
      fallback: false,
      flows: { software: 1, hardware: 2 },
    });
    expect(ev.rules).toMatchObject([{ chain: 'FORWARD', hardware: true }]);
    expect(host.committed).toEqual({ flow_offloading: '1', flow_offloading_hw: '1' });
  });

  it('19.07 C7: the real plan offloads in software; a wrong hardware plan fails on the conntrack evidence and restores uci', async () => {
    const host = new OpenWrtTranscriptHost(C7);
    const s = validSpec({ ...NO_REWRITE, flowOffload: { mode: 'hardware' }, conflictPolicy: 'prefer-offload' });
    // The table knows ag71xx has no offload engine: the real plan refuses hardware under prefer-offload.
    expect((await transcriptPlan(host, s)).refusals[0]?.reason).toMatch(
      /QCA9558: ath79 Ethernet \(ag71xx\) has no flow-offload engine/,
    );
    const wrong = await transcriptPlan(host, s, {
      predicted: { hardwareOffload: true, softwareOffload: true, ebpf: false, tcx: false },
    });
    const out = await applyTransaction(host, wrong, null, { requireHardware: true });
    expect(out.status).toBe('failed');
    if (out.status !== 'failed') return;
    // fw3 wrote --hw as asked; only the flows show that nothing was offloaded in hardware.
    expect(out.error).toMatch(
      /offload\/live: expected hardware, found flows are offloaded in software although the FLOWOFFLOAD rule has --hw/,
    );
    expect(out.restore).toEqual({ ok: true, problems: [] });
    expect(host.committed).toEqual({ flow_offloading: null, flow_offloading_hw: null });
    expect(host.live).toBe('off');

    // Without the hardware requirement the same plan applies, and the fallback is reported.
    const kept = await applyTransaction(host, wrong, null, { requireHardware: false });
    expect(kept.status).toBe('applied');
    expect((kept.evidence as { offload: Fw3Evidence }).offload).toMatchObject({
      live: 'hardware',
      fallback: true,
      warnings: expect.arrayContaining([expect.stringMatching(/the flow-offload engine took none of them/)]),
    });
  });

  it('rollback: a failing fw3 reload during the next apply puts the previous revision back', async () => {
    const host = new OpenWrtTranscriptHost(MT7621);
    const s1 = validSpec({ ...NO_REWRITE, flowOffload: { mode: 'software' } });
    const p1 = await transcriptPlan(host, s1);
    expect((await applyTransaction(host, p1, null)).status).toBe('applied');
    expect(host.live).toBe('software');

    let reloads = 0;
    host.fault = (argv) =>
      argv[0] === '/etc/init.d/firewall' && ++reloads === 1
        ? { code: 1, stdout: '', stderr: 'Failed to load rules: iptables-restore: line 12 failed\n' }
        : undefined;
    const p2 = await transcriptPlan(host, validSpec({ ...NO_REWRITE, flowOffload: { mode: 'hardware' } }));
    expect(p2.offload.mode).toBe('hardware');
    const out = await applyTransaction(host, p2, record(s1, p1, 1));
    expect(out.status).toBe('failed');
    if (out.status !== 'failed') return;
    expect(out.error).toMatch(/\/etc\/init\.d\/firewall reload \(exit 1\): Failed to load rules/);
    expect(out.restore).toEqual({ ok: true, problems: [] });
    expect(host.committed).toEqual({ flow_offloading: '1', flow_offloading_hw: '0' });
    expect(host.live).toBe('software');
    const back = await readOffload(host);
    expect(back.rules).toMatchObject([{ chain: 'FORWARD', hardware: false }]);
  });

  it('turning offloading off removes the rule and is verified off', async () => {
    const host = new OpenWrtTranscriptHost(MT7621);
    await applyOffload(host, { flow_offloading: '1', flow_offloading_hw: '1' });
    const off = await applyOffload(host, { flow_offloading: '0', flow_offloading_hw: '0' });
    expect(off).toMatchObject({ live: 'off', rules: [] });
    expect(verifyOffload(off, 'off')).toEqual([]);
    expect(
      verifyOffload({ ...off, live: 'software', rules: [{ chain: 'FORWARD', hardware: false, rule: '' }] }, 'off'),
    ).toEqual(['FLOWOFFLOAD rule in the FORWARD chain although offloading is off']);
  });
});
