/** The facts collector's parsers, each fed the spellings real routers print (facts-degraded covers the collector). */
import { describe, expect, it } from 'vitest';
import { parseCpuinfo } from '../../../core/facts/cpuinfo.js';
import { parseCompatible } from '../../../core/facts/device-tree.js';
import { parseApkList, parseOpkgList, parseOpkgStatus } from '../../../core/facts/packages.js';
import { parseIpJsonRoutes, parseIpTextRoutes, parseProcNetRoute } from '../../../core/facts/routes.js';
import { socFromCompatible, socFromCompatibleEntry, socFromSystemType } from '../../../core/facts/soc.js';

/** Bytes no text parser expects: control characters, invalid UTF-8, an ELF-looking start. */
const junk = Buffer.from([0x7f, 0x00, 0xff, 0xfe, 0x13, 0x88, 0x00, 0xc3, 0x28, 0x01, 0x02, 0xa0, 0xa1]);

describe('source parsers', () => {
  it('SoC names from device-tree compatible entries', () => {
    const cases: [string, string | null, string | null][] = [
      ['qca,qca9558', 'QCA9558', 'QCA9558'],
      ['qca,qca9531', 'QCA9531', 'QCA9531'],
      ['qca,qca9533', 'QCA9533', 'QCA9533'],
      ['qca,qca9563', 'QCA9563', 'QCA9563'],
      ['qca,qca9556', 'QCA9556', 'QCA9556'],
      ['qca,ar9344', 'AR9344', 'AR9344'],
      ['ralink,mt7620a-soc', 'MT7620', 'MT7620A'],
      ['mediatek,mt7628an-soc', 'MT7628', 'MT7628AN'],
      ['mediatek,mt7621-soc', 'MT7621', 'MT7621'],
      ['mediatek,mt7622', 'MT7622', 'MT7622'],
      ['mediatek,mt7981', 'MT7981', 'MT7981'],
      ['mediatek,mt7986b', 'MT7986', 'MT7986B'],
      ['mediatek,mt7988a', 'MT7988', 'MT7988A'],
      ['qcom,ipq4018', 'IPQ4018', 'IPQ4018'],
      ['qcom,ipq4019', 'IPQ4019', 'IPQ4019'],
      ['qcom,ipq8064', 'IPQ8064', 'IPQ8064'],
      ['qcom,ipq6018', 'IPQ6018', 'IPQ6018'],
      ['qcom,ipq5018', 'IPQ5018', 'IPQ5018'],
      ['brcm,bcm2837', 'BCM2837', 'BCM2837'],
      ['airoha,en7581', 'EN7581', 'EN7581'],
      ['tplink,archer-c7-v2', null, null],
      ['glinet,gl-mt6000', null, null],
      ['raspberrypi,4-model-b', null, null],
    ];
    for (const [entry, soc, variant] of cases) {
      const part = socFromCompatibleEntry(entry);
      expect(part?.soc ?? null, entry).toBe(soc);
      expect(part?.variant ?? null, entry).toBe(variant);
    }
    // The most specific SoC entry wins; the board entry is skipped.
    expect(socFromCompatible(['netgear,r7800', 'qcom,ipq8065', 'qcom,ipq8064'])).toMatchObject({
      soc: 'IPQ8065',
      family: 'ipq806x',
    });
    // A board whose name looks like a chip is still the board (entry 0).
    expect(socFromCompatible(['xiaomi,mt7621-board', 'mediatek,mt7621-soc'])?.source).toMatch(/mediatek,mt7621-soc/);
  });

  it('SoC names from cpuinfo system type', () => {
    expect(socFromSystemType('Qualcomm Atheros QCA956X ver 1 rev 0', 's')).toMatchObject({
      soc: 'QCA956X',
      family: 'ath79',
    });
    expect(socFromSystemType('MediaTek MT7628AN ver:1 eco:2', 's')).toMatchObject({
      soc: 'MT7628',
      variant: 'MT7628AN',
      family: 'ramips',
    });
    expect(socFromSystemType('Ralink MT7620A ver:2 eco:6', 's')).toMatchObject({ soc: 'MT7620', family: 'ramips' });
    expect(socFromSystemType('ARMv8 Processor rev 4', 's')).toBeNull();
    expect(socFromSystemType('Generic DT based system', 's')).toBeNull();
  });

  it('device-tree compatible bytes', () => {
    expect(parseCompatible(Buffer.from('a,b\u0000c,d\u0000'))).toMatchObject({ ok: true, value: ['a,b', 'c,d'] });
    expect(parseCompatible(Buffer.from('\u0000\u0000'))).toMatchObject({ ok: false });
    expect(parseCompatible(junk)).toMatchObject({ ok: false });
  });

  it('cpuinfo on x86 and old ARM32', () => {
    expect(
      parseCpuinfo(
        'processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Celeron(R) J4125 CPU @ 2.00GHz\n\nprocessor\t: 1\n',
      ),
    ).toMatchObject({
      cpuModel: 'Intel(R) Celeron(R) J4125 CPU @ 2.00GHz',
      cores: 2,
      vendorId: 'GenuineIntel',
    });
    // ARM32 IPQ40xx: `model name` generic, part 0xc07 = Cortex-A7.
    expect(
      parseCpuinfo(
        'processor\t: 0\nmodel name\t: ARMv7 Processor rev 5 (v7l)\nCPU implementer\t: 0x41\nCPU part\t: 0xc07\n',
      )?.cpuModel,
    ).toBe('ARM Cortex-A7');
    expect(parseCpuinfo('')).toBeNull();
  });

  it('default routes in all three spellings', () => {
    expect(
      parseIpJsonRoutes([
        { dst: 'default', gateway: '10.0.0.1', dev: 'wan' },
        { dst: 'default', dev: 'lo' },
        { dst: 'default', dev: 'wan' },
      ]),
    ).toEqual([{ dev: 'wan', gateway: '10.0.0.1', source: 'ip -j route' }]);
    expect(parseIpJsonRoutes({})).toBeNull();
    expect(
      parseIpTextRoutes('default dev pppoe-wan proto static scope link\ndefault via 192.0.2.1 dev wwan0 metric 10\n'),
    ).toEqual([
      { dev: 'pppoe-wan', gateway: null, source: 'ip route' },
      { dev: 'wwan0', gateway: '192.0.2.1', source: 'ip route' },
    ]);
    expect(parseIpTextRoutes('')).toBeNull();
    expect(
      parseProcNetRoute(
        'Iface\tDestination\tGateway\tFlags\tRefCnt\tUse\tMetric\tMask\nwan\t00000000\t0100A8C0\t0003\t0\t0\t0\t00000000\n',
      ),
    ).toEqual([{ dev: 'wan', gateway: null, source: '/proc/net/route' }]);
    expect(parseProcNetRoute('junk')).toBeNull();
  });

  it('package lists', () => {
    expect(parseOpkgList('tc-tiny - 6.3.0-1\nkmod-sched-bpf - 5.15.150-1\n')).toEqual(
      new Map([
        ['tc-tiny', '6.3.0-1'],
        ['kmod-sched-bpf', '5.15.150-1'],
      ]),
    );
    expect(parseOpkgList('garbage')).toBeNull();
    expect(
      parseApkList(
        'kmod-nft-offload-6.12.58-r1 aarch64_cortex-a53 {linux} (GPL-2.0-only) [installed]\n6in4-28-r1 x86_64 {6in4} (GPL-2.0) [installed]\n',
      ),
    ).toEqual(
      new Map([
        ['kmod-nft-offload', '6.12.58-r1'],
        ['6in4', '28-r1'],
      ]),
    );
    expect(
      parseOpkgStatus(
        'Package: a\nVersion: 1\nStatus: install ok installed\n\nPackage: b\nVersion: 2\nStatus: deinstall ok not-installed\n',
      ),
    ).toEqual(new Map([['a', '1']]));
  });
});
