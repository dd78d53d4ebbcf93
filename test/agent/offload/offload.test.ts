/**
 * Flow offloading through uci and fw4. OpenWrt cannot run on this machine, so the OpenWrt
 * side is checked against transcripts of uci/fw4/nft output (named as such); the "not
 * OpenWrt" side runs for real in a namespace of this machine.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NetnsHost } from '../../../agent/datapath/netns-host.js';
import { LocalHost } from '../../../core/host/local-host.js';
import {
  applyOffload,
  countOffloadedFlows,
  FW4_FALLBACK_WARNING,
  offloadSupport,
  parseFlowtables,
  readOffload,
  verifyOffload,
} from '../../../agent/offload/index.js';
import { OpenWrtTranscriptHost, TRANSCRIPTS } from '../../support/openwrt-transcripts.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const MT7621 = 'kt-km14-102h-mt7621';
const C7 = 'tplink-archer-c7-v2';

describe('nft flowtable listings', () => {
  it('parses the multi-line and the single-line forms', () => {
    const hw = parseFlowtables(readFileSync(join(TRANSCRIPTS, MT7621, 'nft-list-flowtables.hardware.txt'), 'utf8'));
    expect(hw).toEqual([
      {
        family: 'inet',
        table: 'fw4',
        name: 'ft',
        hook: 'ingress',
        priority: 'filter',
        devices: ['lan1', 'lan2', 'lan3', 'lan4', 'wan'],
        offloadFlag: true,
        counter: true,
      },
    ]);
    const one = parseFlowtables(
      'table inet fw4 {\n  flowtable ft { hook ingress priority 0; devices = { "eth0.2", eth1.1 }; counter; }\n}\n',
    );
    expect(one[0]).toMatchObject({ devices: ['eth0.2', 'eth1.1'], offloadFlag: false, counter: true, priority: '0' });
    expect(parseFlowtables(readFileSync(join(TRANSCRIPTS, MT7621, 'nft-list-flowtables.off.txt'), 'utf8'))).toEqual([]);
    // fw4 print carries the same flowtable block as the live listing.
    expect(
      parseFlowtables(readFileSync(join(TRANSCRIPTS, MT7621, 'fw4-print.hardware.txt'), 'utf8'))[0]?.offloadFlag,
    ).toBe(true);
  });

  it('counts [OFFLOAD] and [HW_OFFLOAD] conntrack entries (OpenWrt transcripts: OpenWrt cannot run here)', () => {
    const text = readFileSync(join(TRANSCRIPTS, MT7621, 'proc-net-nf_conntrack.txt'), 'utf8');
    expect(countOffloadedFlows(text)).toEqual({ software: 1, hardware: 2 });
  });
});

describe('uci + fw4 (OpenWrt transcripts: OpenWrt cannot run here)', () => {
  it('MT7621: hardware offload is set, committed, reloaded and verified with flags offload', async () => {
    const host = new OpenWrtTranscriptHost(MT7621);
    const before = await readOffload(host);
    expect(before).toMatchObject({
      uci: { flow_offloading: null, flow_offloading_hw: null },
      configured: 'off',
      live: 'off',
      fallback: false,
    });
    const ev = await applyOffload(host, { flow_offloading: '1', flow_offloading_hw: '1' });
    expect(ev.changes).toEqual([
      'uci flow_offloading: (unset) -> 1',
      'uci flow_offloading_hw: (unset) -> 1',
      'uci commit firewall',
      '/etc/init.d/firewall reload',
    ]);
    expect(ev).toMatchObject({ configured: 'hardware', live: 'hardware', fallback: false });
    expect(ev.flowtables[0]?.devices).toContain('wan');
    expect(verifyOffload(ev, 'hardware')).toEqual([]);
    const cmds = host.log.map((a) => a.join(' '));
    expect(cmds).toContain('uci set firewall.@defaults[0].flow_offloading=1');
    expect(cmds.indexOf('uci commit firewall')).toBeLessThan(cmds.indexOf('/etc/init.d/firewall reload'));
  });

  it('applying the same settings twice writes nothing and does not reload fw4', async () => {
    const host = new OpenWrtTranscriptHost(MT7621);
    await applyOffload(host, { flow_offloading: '1', flow_offloading_hw: '0' });
    const n = host.log.length;
    const again = await applyOffload(host, { flow_offloading: '1', flow_offloading_hw: '0' });
    expect(again.changes).toEqual([]);
    expect(
      host.log
        .slice(n)
        .map((a) => a.join(' '))
        .filter((c) => /uci (set|commit)|firewall reload/.test(c)),
    ).toEqual([]);
    expect(again.live).toBe('software');
    expect(verifyOffload(again, 'software')).toEqual([]);
  });

  it("QCA9558: fw4's own fallback from hardware to software is detected, with its warning", async () => {
    const host = new OpenWrtTranscriptHost(C7);
    const ev = await applyOffload(host, { flow_offloading: '1', flow_offloading_hw: '1' });
    expect(ev).toMatchObject({ configured: 'hardware', live: 'software', fallback: true });
    expect(ev.warnings).toContain(`[!] ${FW4_FALLBACK_WARNING}`);
    expect(verifyOffload(ev, 'hardware')).toEqual([
      expect.stringMatching(/no flags offload: fw4 fell back to software/),
    ]);
    expect(verifyOffload(ev, 'hardware', { acceptFallback: true })).toEqual([]);
  });

  it('restores "unset" by deleting the options, and turning offload off removes the flowtable', async () => {
    const host = new OpenWrtTranscriptHost(MT7621);
    await applyOffload(host, { flow_offloading: '1', flow_offloading_hw: '1' });
    const back = await applyOffload(host, { flow_offloading: null, flow_offloading_hw: null });
    expect(host.log.map((a) => a.join(' '))).toContain('uci delete firewall.@defaults[0].flow_offloading_hw');
    expect(back).toMatchObject({
      uci: { flow_offloading: null, flow_offloading_hw: null },
      live: 'off',
      flowtables: [],
    });
    expect(verifyOffload(back, 'off')).toEqual([]);
  });

  it('refuses to commit while someone else has uncommitted firewall changes', async () => {
    const host = new OpenWrtTranscriptHost(MT7621);
    host.foreignPending = readFileSync(join(TRANSCRIPTS, 'uci-changes-firewall.pending.txt'), 'utf8');
    await expect(applyOffload(host, { flow_offloading: '1', flow_offloading_hw: '0' })).rejects.toThrow(
      /uncommitted uci changes made outside wrtfleet[\s\S]*input='ACCEPT'/,
    );
    expect(host.log.map((a) => a.join(' ')).some((c) => c.startsWith('uci set') || c.startsWith('uci commit'))).toBe(
      false,
    );
  });

  it('a failed commit reverts the pending uci changes', async () => {
    const host = new OpenWrtTranscriptHost(MT7621);
    host.fault = (argv) =>
      argv.join(' ') === 'uci commit firewall' ? { code: 1, stdout: '', stderr: 'uci: I/O error' } : undefined;
    await expect(applyOffload(host, { flow_offloading: '1', flow_offloading_hw: '0' })).rejects.toThrow(
      /uci commit firewall \(exit 1\): uci: I\/O error/,
    );
    expect(host.pending).toEqual({});
    expect(host.committed).toEqual({ flow_offloading: null, flow_offloading_hw: null });
  });
});

describe('a Linux host without uci (real, in a namespace)', () => {
  const ns = `wf-off-${randomBytes(3).toString('hex')}`;
  const local = new LocalHost();
  const host = new NetnsHost(local, ns);
  beforeAll(async () => {
    expect((await local.run(['ip', 'netns', 'add', ns])).code).toBe(0);
  });
  afterAll(async () => {
    await local.run(['ip', 'netns', 'del', ns]);
  });

  it('reports offloading unsupported, naming the missing uci and the missing nf_flow_table', async () => {
    const support = await offloadSupport(host);
    expect(support.supported).toBe(false);
    expect(support.reason).toMatch(/no uci on this host \(not OpenWrt\)/);
    // This machine's kernel is built without CONFIG_NF_FLOW_TABLE: the probe must say so, not guess.
    expect(support.reason).toMatch(/this kernel has no nf_flow_table/);
    const state = await readOffload(host);
    expect(state).toMatchObject({ uci: null, live: null });
    await expect(applyOffload(host, { flow_offloading: '1', flow_offloading_hw: '0' })).rejects.toThrow(
      /flow offloading unsupported: no uci/,
    );
    // And nothing was left behind by the kernel test.
    expect((await host.run(['nft', 'list', 'tables'])).stdout).not.toContain('wf_offload_probe');
  });
});
