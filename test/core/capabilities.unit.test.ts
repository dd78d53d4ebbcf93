import { describe, expect, it } from 'vitest';
import {
  CHIPSET_CAPABILITIES,
  FAMILY_CAPABILITIES,
  chipsetCapability,
  predictCapabilities,
  type CapabilityInput,
} from '../../core/capabilities.js';
import { compareKernelVersions, kernelAtLeast, parseKernelVersion } from '../../core/facts/kernel.js';
import { openWrtAtLeast } from '../../core/facts/release.js';
import { socFamilyOf } from '../../core/facts/soc.js';

/** A router on a given release; the defaults are a plain 24.10 box. */
function router(overrides: Partial<CapabilityInput> & { version?: string | null; target?: string }): CapabilityInput {
  const { version = '24.10.4', target = 'ramips/mt7621', ...rest } = overrides;
  return {
    soc: null,
    socFamily: null,
    kernel: '6.6.110',
    arch: 'aarch64_cortex-a53',
    openwrt:
      version === null
        ? null
        : { distribution: 'OpenWrt', release: version, target, revision: null, arch: null, source: 'test' },
    ...rest,
  };
}

describe('the chipset capability table (docs/DOMAIN.md, Flow offloading)', () => {
  const HARDWARE_OFFLOAD: [soc: string, expected: boolean][] = [
    ['MT7621', true],
    ['MT7622', true],
    ['MT7981', true],
    ['MT7986', true],
    ['MT7988', true],
    ['EN7581', true],
    ['QCA9558', false],
    ['QCA9557', false],
    ['QCA9563', false],
    ['QCA956X', false],
    ['QCA9531', false],
    ['QCA9533', false],
    ['QCA9556', false],
    ['AR9344', false],
    ['MT7620', false],
    ['MT7628', false],
    ['IPQ4018', false],
    ['IPQ4019', false],
    ['IPQ8064', false],
    ['IPQ8065', false],
    ['IPQ8074', false],
    ['IPQ6018', false],
    ['IPQ5018', false],
    ['BCM2711', false],
  ];

  it.each(HARDWARE_OFFLOAD)('%s hardware offload: %s', (soc, expected) => {
    const entry = chipsetCapability(soc);
    expect(entry?.hardwareOffload).toBe(expected);
    expect(entry?.why.length).toBeGreaterThan(20);
  });

  it('every entry has a why, and its family agrees with the SoC catalog used by facts', () => {
    for (const [key, entry] of Object.entries(CHIPSET_CAPABILITIES)) {
      expect(entry.soc).toBe(key);
      expect(entry.why).not.toBe('');
      expect(socFamilyOf(entry.soc), key).toBe(entry.family);
    }
    for (const [family, entry] of Object.entries(FAMILY_CAPABILITIES)) expect(entry.why, family).not.toBe('');
    expect(FAMILY_CAPABILITIES['x86']?.hardwareOffload).toBe(false);
  });

  it('is frozen: the server cannot mutate what the agent relies on', () => {
    expect(Object.isFrozen(CHIPSET_CAPABILITIES)).toBe(true);
    expect(Object.isFrozen(CHIPSET_CAPABILITIES['MT7621'])).toBe(true);
  });
});

describe('predictCapabilities', () => {
  it('MT7621 offloads in hardware through fw3 on 21.02 and fw4 from 22.03, in software only on 19.07', () => {
    const on2203 = predictCapabilities(
      router({ soc: 'MT7621', socFamily: 'ramips', version: '22.03.5', kernel: '5.10.176', arch: 'mipsel_24kc' }),
    );
    expect(on2203).toMatchObject({ hardwareOffload: true, softwareOffload: true, ebpf: true, tcx: false });
    expect(on2203.reasons.softwareOffload).toMatch(/ships fw4: nftables flowtables/);
    const on2102 = predictCapabilities(
      router({ soc: 'MT7621', socFamily: 'ramips', version: '21.02.7', kernel: '5.4.238', arch: 'mipsel_24kc' }),
    );
    expect(on2102).toMatchObject({ hardwareOffload: true, softwareOffload: true });
    expect(on2102.reasons.softwareOffload).toMatch(/runs fw3: .*iptables FLOWOFFLOAD rule .*package kmod-ipt-offload/);
    expect(on2102.reasons.hardwareOffload).toMatch(/FLOWOFFLOAD --hw flows on 21.02/);
    const on1907 = predictCapabilities(
      router({ soc: 'MT7621', socFamily: 'ramips', version: '19.07.10', kernel: '4.14.275', arch: 'mipsel_24kc' }),
    );
    expect(on1907).toMatchObject({ hardwareOffload: false, softwareOffload: true });
    expect(on1907.reasons.hardwareOffload).toMatch(/OpenWrt 19.07.10 is older than 21.02/);
  });

  it('fw3 software offload names its package, and no release before 19.07 is offloaded', () => {
    const missing = predictCapabilities(
      router({ version: '21.02.7', kernel: '5.4.238', packages: { firewall: 'firewall', iptOffload: false } }),
    );
    expect(missing.softwareOffload).toBe(true);
    expect(missing.reasons.softwareOffload).toMatch(/kmod-ipt-offload is not installed, install it/);
    const old = predictCapabilities(router({ version: '18.06.9', kernel: '4.9.120' }));
    expect(old.softwareOffload).toBe(false);
    expect(old.reasons.softwareOffload).toMatch(/predates 19.07/);
  });

  it('EN7581 offloads only on 6.12 kernels', () => {
    expect(
      predictCapabilities(router({ soc: 'EN7581', socFamily: 'airoha', version: '24.10.4', kernel: '6.6.110' }))
        .hardwareOffload,
    ).toBe(false);
    const on612 = predictCapabilities(
      router({ soc: 'EN7581', socFamily: 'airoha', version: '25.12.0', kernel: '6.12.58' }),
    );
    expect(on612.hardwareOffload).toBe(true);
    expect(on612.reasons.hardwareOffload).toMatch(/6\.12/);
  });

  it('falls back to the platform when the SoC is unknown', () => {
    expect(predictCapabilities(router({ soc: null, socFamily: 'filogic' })).hardwareOffload).toBe(true);
    expect(predictCapabilities(router({ soc: null, socFamily: 'ath79' })).hardwareOffload).toBe(false);
    expect(predictCapabilities(router({ soc: null, socFamily: 'x86', arch: 'x86_64' }))).toMatchObject({
      hardwareOffload: false,
      softwareOffload: true,
    });
    const unknown = predictCapabilities(router({ soc: 'MT9999', socFamily: null }));
    expect(unknown.hardwareOffload).toBe(false);
    expect(unknown.reasons.hardwareOffload).toMatch(/MT9999 is not in the capability table/);
  });

  it('no software offload on a host that is not OpenWrt; fw3 in place of fw4 offloads through fw3', () => {
    expect(predictCapabilities(router({ version: null, soc: 'MT7986', socFamily: 'filogic' }))).toMatchObject({
      softwareOffload: false,
      hardwareOffload: false,
    });
    const fw3 = predictCapabilities(router({ version: '23.05.3', packages: { firewall: 'firewall' } }));
    expect(fw3.softwareOffload).toBe(true);
    expect(fw3.reasons.softwareOffload).toMatch(/fw3 `firewall` package is installed instead of firewall4/);
  });

  it('an unreadable release version falls back to firewall4 or the kernel', () => {
    expect(predictCapabilities(router({ version: 'weird', packages: { firewall: 'firewall4' } })).softwareOffload).toBe(
      true,
    );
    expect(predictCapabilities(router({ version: 'weird', kernel: '5.15.150' })).softwareOffload).toBe(true);
    expect(predictCapabilities(router({ version: 'weird', kernel: '5.4.238' })).softwareOffload).toBe(false);
  });

  it('MIPS32 is predicted eBPF-capable, to be confirmed by probe, never refused', () => {
    for (const arch of ['mips_24kc', 'mipsel_24kc', 'mipsel_74kc', 'mips']) {
      const prediction = predictCapabilities(router({ arch, kernel: '5.15.150' }));
      expect(prediction.ebpf, arch).toBe(true);
      expect(prediction.reasons.ebpf).toMatch(/MIPS32 eBPF JIT, to be confirmed by probe/);
      expect(prediction.toConfirm).toContain('ebpf');
    }
  });

  it('JIT: every 64-bit and ARM CPU has one; 32-bit MIPS from 5.16, or OpenWrt 5.15 (23.05 backports it)', () => {
    const jit = (arch: string, kernel: string | null, version: string | null = '24.10.4') =>
      predictCapabilities(router({ arch, kernel, version })).jit;
    expect(jit('aarch64_cortex-a53', '5.4.238')).toMatchObject({ compiler: true });
    expect(jit('x86_64', '6.1.0-18-amd64', null)).toMatchObject({ compiler: true });
    // The lab's guests: Debian's 6.1 mipsel kernel and a 6.1 big-endian one, not OpenWrt.
    expect(jit('mipsel', '6.1.0-50-4kc-malta', null)).toMatchObject({ compiler: true });
    expect(jit('mips', '6.1.192', null).reason).toMatch(/>= 5\.16: the MIPS32 eBPF JIT is in mainline/);
    expect(jit('mipsel_24kc', '5.15.150', '23.05.5')).toMatchObject({ compiler: true });
    expect(jit('mipsel_24kc', '5.15.150', '23.05.5').reason).toMatch(/backports the MIPS32 eBPF JIT/);
    // A 5.15 that is not OpenWrt's has no MIPS32 JIT: the table used to say it had.
    expect(jit('mipsel', '5.15.0', null)).toMatchObject({ compiler: false });
    expect(jit('mips_24kc', '5.10.176', '22.03.5')).toMatchObject({ compiler: false });
    expect(jit('mips_24kc', '5.10.176', '22.03.5').reason).toMatch(/the interpreter runs the programs/);
    expect(jit('mips_24kc', null).compiler).toBeNull();
    expect(predictCapabilities(router({ arch: null })).jit.compiler).toBeNull();
    // Either way eBPF itself stands: the interpreter runs the programs too.
    expect(predictCapabilities(router({ arch: 'mipsel', kernel: '5.15.0', version: null })).ebpf).toBe(true);
    expect(predictCapabilities(router({ arch: 'mipsel', kernel: '5.15.0', version: null })).reasons.ebpf).toMatch(
      /without the eBPF JIT \(the interpreter runs the programs\)/,
    );
  });

  it('eBPF: expected from 5.15, for the probe to decide from 5.2, impossible below; TCX needs 6.6', () => {
    const at = (kernel: string | null) => predictCapabilities(router({ kernel }));
    expect(at('5.15')).toMatchObject({ ebpf: true, tcx: false });
    expect(at('5.15.0')).toMatchObject({ ebpf: true, tcx: false });
    expect(at('5.14.21')).toMatchObject({ ebpf: true, tcx: false });
    expect(at('5.4.238')).toMatchObject({ ebpf: true, tcx: false, toConfirm: ['ebpf'] });
    expect(at('5.4.238').reasons.ebpf).toMatch(/5\.4\.238 < 5\.15 \(before OpenWrt 23\.05\).*the probe decides/);
    expect(at('5.4.238').reasons.tcx).toMatch(/classic clsact \+ cls_bpf attach instead/);
    expect(at('5.2')).toMatchObject({ ebpf: true });
    expect(at('5.1.21')).toMatchObject({ ebpf: false, tcx: false });
    expect(at('4.14.275').reasons.ebpf).toMatch(
      /4\.14\.275 < 5\.2: our programs keep their settings in \.rodata globals/,
    );
    expect(at('6.5.13')).toMatchObject({ ebpf: true, tcx: false });
    expect(at('6.6')).toMatchObject({ ebpf: true, tcx: true });
    expect(at('6.6.110')).toMatchObject({ ebpf: true, tcx: true });
    expect(at('6.12')).toMatchObject({ ebpf: true, tcx: true });
    expect(at('6.1.0-18-amd64')).toMatchObject({ ebpf: true, tcx: false });
    expect(at(null)).toMatchObject({ ebpf: false, tcx: false });
    expect(at(null).reasons.tcx).toMatch(/unknown/);
  });
});

describe('kernel and release version comparison', () => {
  it('compares numerically, never as strings', () => {
    const v = (release: string) => {
      const parsed = parseKernelVersion(release);
      if (!parsed) throw new Error(release);
      return parsed;
    };
    expect(compareKernelVersions(v('5.15.150'), v('6.6.110'))).toBeLessThan(0);
    expect(compareKernelVersions(v('6.12'), v('6.6.110'))).toBeGreaterThan(0); // "6.12" < "6.6" as strings
    expect(compareKernelVersions(v('5.4.238'), v('5.15'))).toBeLessThan(0); // "5.4" > "5.15" as strings
    expect(compareKernelVersions(v('6.6.0'), v('6.6'))).toBe(0);
    expect(compareKernelVersions(v('5.15.150'), v('5.15.9'))).toBeGreaterThan(0);
    expect(kernelAtLeast('6.6.110', '6.6')).toBe(true);
    expect(kernelAtLeast('4.14.275', '5.15')).toBe(false);
    expect(kernelAtLeast('garbage', '5.15')).toBeNull();
    expect(kernelAtLeast('', '5.15')).toBeNull();
    expect(parseKernelVersion('6.18.44-fc-v769')).toEqual({ major: 6, minor: 18, patch: 44 });
  });

  it('OpenWrt releases, rc and snapshot builds', () => {
    expect(openWrtAtLeast('21.02.7', '22.03')).toBe(false);
    expect(openWrtAtLeast('22.03.0-rc1', '22.03')).toBe(true);
    expect(openWrtAtLeast('23.05.3', '22.03')).toBe(true);
    expect(openWrtAtLeast('24.10.4', '25.12')).toBe(false);
    expect(openWrtAtLeast('25.12.0', '25.12')).toBe(true);
    expect(openWrtAtLeast('SNAPSHOT', '25.12')).toBe(true);
    expect(openWrtAtLeast('23.05-SNAPSHOT', '22.03')).toBe(true);
    expect(openWrtAtLeast('19.07.10', '22.03')).toBe(false);
    expect(openWrtAtLeast('garbage', '22.03')).toBeNull();
  });
});
