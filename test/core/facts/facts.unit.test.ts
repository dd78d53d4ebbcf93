import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { factsSummary, predictCapabilities } from '../../../core/capabilities.js';
import { collectFacts } from '../../../core/facts/index.js';
import { FixtureHost } from '../../../agent/sim/fixture-host.js';
import { defaultFixturesDir, extraFixturesDir } from '../../../agent/sim/fixtures.js';
import { LocalHost } from '../../../core/host/local-host.js';

const fleetFixtures = defaultFixturesDir();
const extraFixtures = extraFixturesDir();

async function summarize(root: string) {
  const facts = await collectFacts(new FixtureHost(root));
  const capabilities = predictCapabilities(facts);
  return { facts, capabilities, summary: factsSummary(facts, capabilities) };
}

describe('facts of the three shared fixture models (real captures)', () => {
  it('TP-Link Archer C7 v2: QCA9558, big-endian MIPS, software offload only', async () => {
    const { facts, summary } = await summarize(join(fleetFixtures, 'tplink-archer-c7-v2'));
    expect(summary).toMatchObject({
      soc: 'QCA9558',
      arch: 'mips_24kc',
      endian: 'big',
      kernel: '5.15.150',
      openwrt: { release: '23.05.3', target: 'ath79/generic' },
      capabilities: { hardwareOffload: false, softwareOffload: true, ebpf: true, tcx: false },
    });
    expect(facts.socFamily).toBe('ath79');
    expect(facts.model).toEqual({ id: 'tplink,archer-c7-v2', name: 'TP-Link Archer C7 v2' });
    expect(facts.boardName).toBe('tplink,archer-c7-v2');
    expect(facts.cpu).toEqual({ model: 'MIPS 74Kc V5.0', cores: 1 });
    expect(facts.network.wan).toEqual(['eth0.2']);
    expect(facts.network.lan).toEqual(['eth1.1']);
    expect(facts.openwrt?.revision).toBe('r23809-234f1a2efa');
    expect(summary.reasons.ebpf).toMatch(/MIPS32.*to be confirmed by probe/);
  });

  it('KT KM14-102H: MT7621, little-endian MIPS, hardware offload and TCX', async () => {
    const { facts, summary } = await summarize(join(fleetFixtures, 'kt-km14-102h-mt7621'));
    expect(summary).toMatchObject({
      soc: 'MT7621',
      arch: 'mipsel_24kc',
      endian: 'little',
      kernel: '6.6.110',
      openwrt: { release: '24.10.4', target: 'ramips/mt7621' },
      capabilities: { hardwareOffload: true, softwareOffload: true, ebpf: true, tcx: true },
    });
    expect(facts.socFamily).toBe('ramips');
    expect(facts.machine).toBe('mips');
    expect(facts.cpu.cores).toBe(4);
    expect(facts.network).toMatchObject({ wan: ['wan'], lan: ['lan1', 'lan2', 'lan3', 'lan4'] });
    expect(facts.systemType).toBe('MediaTek MT7621 ver:1 eco:3');
  });

  it('GL.iNet GL-MT6000: MT7986 (variant MT7986A), aarch64, hardware offload, no TCX on 5.15', async () => {
    const { facts, summary } = await summarize(join(fleetFixtures, 'glinet-gl-mt6000-mt7986'));
    expect(summary).toMatchObject({
      soc: 'MT7986',
      arch: 'aarch64_cortex-a53',
      endian: 'little',
      kernel: '5.15.150',
      openwrt: { release: '23.05.3', target: 'mediatek/filogic' },
      capabilities: { hardwareOffload: true, softwareOffload: true, ebpf: true, tcx: false },
    });
    expect(facts.socVariant).toBe('MT7986A');
    expect(facts.socFamily).toBe('filogic');
    expect(facts.compatible).toEqual(['glinet,gl-mt6000', 'mediatek,mt7986a']);
    expect(facts.cpu).toEqual({ model: 'ARM Cortex-A53', cores: 4 });
    expect(facts.network).toMatchObject({ wan: ['eth1'], lan: ['lan1', 'lan2', 'lan3', 'lan4', 'lan5'] });
    expect(facts.machine).toBe('aarch64');
  });

  it('the summary has exactly the CLI fields (plus allowed extras) for every shared model', async () => {
    for (const model of ['tplink-archer-c7-v2', 'kt-km14-102h-mt7621', 'glinet-gl-mt6000-mt7986']) {
      const { summary, facts } = await summarize(join(fleetFixtures, model));
      expect(Object.keys(summary)).toEqual(
        expect.arrayContaining(['soc', 'arch', 'endian', 'kernel', 'openwrt', 'capabilities']),
      );
      expect(Object.keys(summary.capabilities).sort()).toEqual(['ebpf', 'hardwareOffload', 'softwareOffload', 'tcx']);
      expect(Object.keys(summary.openwrt ?? {}).sort()).toEqual(['release', 'target']);
      // The captures hold no package list and no routes: those, and only those, degrade.
      expect(facts.unknown.map((entry) => entry.field).sort()).toEqual(['network.defaultRoutes', 'packages']);
      expect(facts.problems).toEqual([]);
    }
  });
});

interface Expected {
  soc: string | null;
  variant?: string;
  family: string;
  arch: string;
  endian: 'little' | 'big';
  kernel: string;
  openwrt: { release: string; target: string };
  caps: [hardware: boolean, software: boolean, ebpf: boolean, tcx: boolean];
  wan: string[];
  lan: string[];
  cpu?: { model: string; cores: number };
}

const EXTRA: Record<string, Expected> = {
  'xiaomi-mi-router-ax3000t-mt7981': {
    soc: 'MT7981',
    family: 'filogic',
    arch: 'aarch64_cortex-a53',
    endian: 'little',
    kernel: '6.6.73',
    openwrt: { release: '24.10.0', target: 'mediatek/filogic' },
    caps: [true, true, true, true],
    wan: ['wan'],
    lan: ['lan2', 'lan3', 'lan4'],
    cpu: { model: 'ARM Cortex-A53', cores: 2 },
  },
  'bananapi-bpi-r4-mt7988': {
    soc: 'MT7988',
    variant: 'MT7988A',
    family: 'filogic',
    arch: 'aarch64_cortex-a53',
    endian: 'little',
    kernel: '6.12.58',
    openwrt: { release: '25.12.0', target: 'mediatek/filogic' },
    caps: [true, true, true, true],
    wan: ['wan', 'eth2'],
    lan: ['lan1', 'lan2', 'lan3', 'eth1'],
    cpu: { model: 'ARM Cortex-A73', cores: 4 },
  },
  'dynalink-dl-wrx36-ipq8074': {
    soc: 'IPQ8074',
    family: 'qualcommax',
    arch: 'aarch64_cortex-a53',
    endian: 'little',
    kernel: '5.15.167',
    openwrt: { release: '23.05.5', target: 'qualcommax/ipq807x' },
    caps: [false, true, true, false],
    wan: ['pppoe-wan', 'wan'],
    lan: ['lan1', 'lan2', 'lan3', 'lan4'],
  },
  'netgear-r7800-ipq8065': {
    soc: 'IPQ8065',
    family: 'ipq806x',
    arch: 'arm_cortex-a15_neon-vfpv4',
    endian: 'little',
    kernel: '5.15.150',
    openwrt: { release: '23.05.3', target: 'ipq806x/generic' },
    caps: [false, true, true, false],
    wan: ['wan'],
    lan: ['lan1', 'lan2', 'lan3', 'lan4'],
    cpu: { model: 'Qualcomm Krait', cores: 2 },
  },
  'pcengines-apu2-x86-64': {
    soc: null,
    family: 'x86',
    arch: 'x86_64',
    endian: 'little',
    kernel: '6.12.58',
    openwrt: { release: '25.12.0', target: 'x86/64' },
    caps: [false, true, true, true],
    wan: ['pppoe-wan', 'eth0'],
    lan: ['eth1', 'eth2'],
    cpu: { model: 'AMD GX-412TC SOC', cores: 4 },
  },
  'raspberrypi-4-model-b-bcm2711': {
    soc: 'BCM2711',
    family: 'bcm27xx',
    arch: 'aarch64_cortex-a72',
    endian: 'little',
    kernel: '5.15.167',
    openwrt: { release: '23.05.5', target: 'bcm27xx/bcm2711' },
    caps: [false, true, true, false],
    wan: ['eth1'],
    lan: ['eth0'],
    cpu: { model: 'ARM Cortex-A72', cores: 4 },
  },
  'tplink-archer-c6-v2-qca9563': {
    soc: 'QCA9563',
    family: 'ath79',
    arch: 'mips_24kc',
    endian: 'big',
    kernel: '5.15.150',
    openwrt: { release: '23.05.3', target: 'ath79/generic' },
    caps: [false, true, true, false],
    wan: ['eth0.2'],
    lan: ['eth0.1'],
  },
  'tplink-archer-c7-v2-19.07-ar71xx': {
    soc: 'QCA9558',
    family: 'ath79',
    arch: 'mips_24kc',
    endian: 'big',
    kernel: '4.14.275',
    openwrt: { release: '19.07.10', target: 'ar71xx/generic' },
    caps: [false, true, false, false],
    wan: [],
    lan: [],
  },
  'xiaomi-mi-router-4a-gigabit-21.02-mt7621': {
    soc: 'MT7621',
    family: 'ramips',
    arch: 'mipsel_24kc',
    endian: 'little',
    kernel: '5.4.238',
    openwrt: { release: '21.02.7', target: 'ramips/mt7621' },
    caps: [true, true, true, false],
    wan: ['wan'],
    lan: ['lan1', 'lan2'],
    cpu: { model: 'MIPS 1004Kc V2.15', cores: 4 },
  },
};

describe("facts of models beyond the fleet's three (fixtures/routers-extra)", () => {
  it.each(Object.entries(EXTRA))('%s', async (tree, expected) => {
    const { facts, capabilities } = await summarize(join(extraFixtures, tree));
    expect(facts.soc).toBe(expected.soc);
    expect(facts.socVariant).toBe(expected.variant ?? expected.soc);
    expect(facts.socFamily).toBe(expected.family);
    expect(facts.arch).toBe(expected.arch);
    expect(facts.endian).toBe(expected.endian);
    expect(facts.kernel).toBe(expected.kernel);
    expect(facts.openwrt).toMatchObject(expected.openwrt);
    const [hardwareOffload, softwareOffload, ebpf, tcx] = expected.caps;
    expect({ hardwareOffload, softwareOffload, ebpf, tcx }).toEqual({
      hardwareOffload: capabilities.hardwareOffload,
      softwareOffload: capabilities.softwareOffload,
      ebpf: capabilities.ebpf,
      tcx: capabilities.tcx,
    });
    expect(facts.network.wan).toEqual(expected.wan);
    expect(facts.network.lan).toEqual(expected.lan);
    if (expected.cpu) expect(facts.cpu).toEqual(expected.cpu);
    // Every null field is explained.
    for (const field of ['soc', 'arch', 'endian', 'kernel', 'openwrt'] as const) {
      if (facts[field] === null) expect(facts.unknown.map((entry) => entry.field)).toContain(field);
    }
  });

  it('x86 names no SoC and says why, yet knows the platform', async () => {
    const { facts } = await summarize(join(extraFixtures, 'pcengines-apu2-x86-64'));
    expect(facts.compatible).toEqual([]);
    expect(facts.unknown).toContainEqual({ field: 'soc', reason: 'x86 has no SoC (CPU: AMD GX-412TC SOC)' });
    expect(facts.model).toEqual({ id: 'pc-engines-apu2', name: 'PC Engines apu2' });
  });

  it('OpenWrt 25.12 packages come from apk: the command, or the database file when apk cannot run', async () => {
    const apu = (await summarize(join(extraFixtures, 'pcengines-apu2-x86-64'))).facts.packages;
    expect(apu).toMatchObject({
      manager: 'apk',
      source: 'apk list --installed',
      tc: 'tc-bpf',
      tcBpf: true,
      clsBpf: true,
      bpftool: 'bpftool-minimal',
      nftOffload: true,
      firewall: 'firewall4',
    });
    expect(apu.installed['tc-bpf']).toBe('6.15.0-r1');
    expect(apu.installed['6in4']).toBeUndefined(); // parsed, but not a package that matters
    const r4 = (await summarize(join(extraFixtures, 'bananapi-bpi-r4-mt7988'))).facts.packages;
    expect(r4).toMatchObject({
      manager: 'apk',
      source: '/lib/apk/db/installed',
      tc: 'tc-full',
      tcBpf: true,
      bpftool: 'bpftool-full',
    });
  });

  it('opkg routers: tc-tiny cannot load BPF and the eBPF reason says what to install', async () => {
    const { facts, capabilities } = await summarize(join(extraFixtures, 'tplink-archer-c6-v2-qca9563'));
    expect(facts.packages).toMatchObject({
      manager: 'opkg',
      tc: 'tc-tiny',
      tcBpf: false,
      clsBpf: false,
      bpftool: null,
      nftOffload: true,
    });
    expect(capabilities.reasons.ebpf).toMatch(/tc-tiny cannot load BPF/);
    expect(capabilities.reasons.ebpf).toMatch(/kmod-sched-bpf/);
    // cpuinfo only says QCA956X; the device tree's qca,qca9563 is the exact part.
    expect(facts.systemType).toBe('Qualcomm Atheros QCA956X ver 1 rev 0');
    expect(facts.evidence['soc']).toMatch(/device-tree/);
  });

  it('OpenWrt 19.07 (ar71xx): no device tree, sysinfo, os-release or board.json, all explained', async () => {
    const { facts, capabilities } = await summarize(join(extraFixtures, 'tplink-archer-c7-v2-19.07-ar71xx'));
    expect(facts.openwrt).toMatchObject({
      source: '/etc/openwrt_release',
      arch: 'mips_24kc',
      revision: 'r11427-9ce6aa9d8d',
    });
    expect(facts.evidence['soc']).toMatch(/cpuinfo system type/);
    expect(facts.model.name).toBe('TP-LINK Archer C7 v2');
    expect(facts.boardName).toBeNull();
    const unknown = Object.fromEntries(facts.unknown.map((entry) => [entry.field, entry.reason]));
    expect(unknown['boardName']).toMatch(/no \/tmp\/sysinfo\/board_name/);
    expect(unknown['network.wan']).toMatch(/board.json missing/);
    expect(facts.packages).toMatchObject({
      manager: 'opkg',
      source: '/usr/lib/opkg/status',
      tc: 'tc',
      tcBpf: null,
      clsBpf: false,
      firewall: 'firewall',
    });
    expect(capabilities.reasons.softwareOffload).toMatch(/fw3/);
    expect(capabilities.reasons.ebpf).toMatch(/4\.14\.275 < 5\.2/);
    expect(facts.packages).toMatchObject({ iptOffload: true, iptables: true, nft: false });
  });

  it('OpenWrt 21.02 MT7621: fw3, and the PPE offloads FLOWOFFLOAD --hw flows', async () => {
    const { facts, capabilities } = await summarize(join(extraFixtures, 'xiaomi-mi-router-4a-gigabit-21.02-mt7621'));
    expect(facts.network.defaultRoutes).toEqual([{ dev: 'wan', gateway: '192.168.1.1', source: 'ip route' }]);
    expect(facts.packages.firewall).toBe('firewall');
    expect(capabilities.chipset?.soc).toBe('MT7621');
    expect(capabilities.reasons.hardwareOffload).toMatch(/FLOWOFFLOAD --hw flows on 21.02/);
    expect(facts.packages).toMatchObject({ iptOffload: true, iptables: true, nft: false });
    expect(facts.boardName).toBe('xiaomi,mi-router-4a-gigabit'); // from board.json when sysinfo is absent
  });

  it('Raspberry Pi: default route from /proc/net/route, model from sysinfo, CPU from the part id', async () => {
    const { facts } = await summarize(join(extraFixtures, 'raspberrypi-4-model-b-bcm2711'));
    expect(facts.network.defaultRoutes).toEqual([{ dev: 'eth1', gateway: null, source: '/proc/net/route' }]);
    expect(facts.systemType).toBe('BCM2835'); // the Pi kernel's misleading Hardware line; the device tree decides
    expect(facts.soc).toBe('BCM2711');
  });
});

describe('facts of this machine (LocalHost: x86_64 Debian, not OpenWrt)', () => {
  it('degrades sanely: arch x86_64, openwrt null with a reason, no throw', async () => {
    const facts = await collectFacts(new LocalHost());
    expect(facts.arch).toBe('x86_64');
    expect(facts.machine).toBe('x86_64');
    expect(facts.endian).toBe('little');
    expect(facts.socFamily).toBe('x86');
    expect(facts.soc).toBeNull();
    expect(facts.kernel).toMatch(/^\d+\.\d+/);
    expect(facts.openwrt).toBeNull();
    const openwrtReason = facts.unknown.find((entry) => entry.field === 'openwrt')?.reason;
    expect(openwrtReason).toMatch(/not OpenWrt|no OpenWrt release/);
    expect(facts.cpu.cores).toBeGreaterThan(0);
    expect(facts.packages.manager).toBeNull();
    expect(facts.unknown.map((entry) => entry.field)).toContain('packages');
    const capabilities = predictCapabilities(facts);
    expect(capabilities.softwareOffload).toBe(false);
    expect(capabilities.hardwareOffload).toBe(false);
    expect(capabilities.reasons.softwareOffload).toMatch(/not OpenWrt/);
    expect(factsSummary(facts, capabilities).openwrt).toBeNull();
  });
});
