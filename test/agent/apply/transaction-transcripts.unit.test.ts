/**
 * The transactional apply's offload half on OpenWrt, against uci/fw4/nft transcripts
 * (OpenWrt cannot run here): the plan comes from the real fixture facts with resolvePlan;
 * the datapath side of these routers is idle (rewrites off) so only uci/fw4 changes.
 */
import { describe, expect, it } from 'vitest';
import { applyTransaction, requiresHardware } from '../../../agent/apply/transaction.js';
import { NO_REWRITE, OpenWrtTranscriptHost, transcriptPlan, validSpec } from '../../support/openwrt-transcripts.js';

describe('transactional apply of flow offloading (OpenWrt transcripts: OpenWrt cannot run here)', () => {
  it('MT7621, hardware required: applied, and the evidence is the live flowtable with flags offload', async () => {
    const host = new OpenWrtTranscriptHost('kt-km14-102h-mt7621');
    const s = validSpec({ ...NO_REWRITE, flowOffload: { mode: 'hardware' }, conflictPolicy: 'prefer-offload' });
    const plan = await transcriptPlan(host, s);
    expect(plan.satisfiable).toBe(true);
    expect(plan.offload.mode).toBe('hardware');
    const out = await applyTransaction(host, plan, null, { requireHardware: requiresHardware(s) });
    expect(out.status).toBe('applied');
    const ev = out.evidence as {
      offload: { live: string; fallback: boolean; flowtables: { offloadFlag: boolean; devices: string[] }[] };
    };
    expect(ev.offload).toMatchObject({ live: 'hardware', fallback: false });
    expect(ev.offload.flowtables[0]).toMatchObject({
      offloadFlag: true,
      devices: ['lan1', 'lan2', 'lan3', 'lan4', 'wan'],
    });
    expect(host.committed).toEqual({ flow_offloading: '1', flow_offloading_hw: '1' });
  });

  it('QCA9558: fw4 falls back to software; a hardware requirement fails the apply and restores uci', async () => {
    const host = new OpenWrtTranscriptHost('tplink-archer-c7-v2');
    const s = validSpec({ ...NO_REWRITE, flowOffload: { mode: 'hardware' }, conflictPolicy: 'prefer-offload' });
    // The capability table knows QCA9558 has no offload engine; a table that wrongly said yes is what fw4's own check catches.
    const plan = await transcriptPlan(host, s, {
      predicted: { hardwareOffload: true, softwareOffload: true, ebpf: true, tcx: false },
    });
    expect(plan.offload.mode).toBe('hardware');
    const out = await applyTransaction(host, plan, null, { requireHardware: requiresHardware(s) });
    expect(out.status).toBe('failed');
    if (out.status !== 'failed') return;
    expect(out.error).toMatch(
      /offload\/live: expected hardware, found fw4 flowtable has no flags offload: fw4 fell back to software/,
    );
    expect(out.restore).toEqual({ ok: true, problems: [] });
    expect(host.committed).toEqual({ flow_offloading: null, flow_offloading_hw: null });
    expect(host.live).toBe('off');
  });

  it('QCA9558 with prefer-rewrite: the real plan picks software; a wrong hardware plan is applied with the fallback reported', async () => {
    const host = new OpenWrtTranscriptHost('tplink-archer-c7-v2');
    const s = validSpec({ ...NO_REWRITE, flowOffload: { mode: 'hardware' } });
    expect((await transcriptPlan(host, s)).offload.mode).toBe('software');
    const plan = await transcriptPlan(host, s, {
      predicted: { hardwareOffload: true, softwareOffload: true, ebpf: true, tcx: false },
    });
    const out = await applyTransaction(host, plan, null, { requireHardware: requiresHardware(s) });
    expect(out.status).toBe('applied');
    expect((out.evidence as { offload: { fallback: boolean; warnings: string[] } }).offload).toMatchObject({
      fallback: true,
      warnings: ['[!] Hardware flow offloading unavailable, falling back to software offloading'],
    });
  });

  it('a failing fw4 reload mid-apply restores the previous uci values', async () => {
    const host = new OpenWrtTranscriptHost('kt-km14-102h-mt7621');
    host.committed = { flow_offloading: '1', flow_offloading_hw: '0' };
    await host.run(['/etc/init.d/firewall', 'reload']);
    let reloads = 0;
    host.fault = (argv) =>
      argv[0] === '/etc/init.d/firewall' && ++reloads === 1
        ? { code: 1, stdout: '', stderr: 'Failed to parse json data: unexpected character\n' }
        : undefined;
    const plan = await transcriptPlan(host, validSpec({ ...NO_REWRITE, flowOffload: { mode: 'off' } }));
    const out = await applyTransaction(host, plan, null);
    expect(out.status).toBe('failed');
    if (out.status !== 'failed') return;
    expect(out.error).toMatch(/\/etc\/init\.d\/firewall reload \(exit 1\): Failed to parse json data/);
    expect(out.restore.ok).toBe(true);
    expect(host.committed).toEqual({ flow_offloading: '1', flow_offloading_hw: '0' });
    expect(host.live).toBe('software');
  });
});
