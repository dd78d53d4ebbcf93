import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { predictCapabilities } from '../../core/capabilities.js';
import { collectFacts } from '../../core/facts/index.js';
import { parseCpuinfo } from '../../core/facts/cpuinfo.js';
import { parseCompatible } from '../../core/facts/device-tree.js';
import { parseApkList, parseOpkgList, parseOpkgStatus } from '../../core/facts/packages.js';
import { parseOsRelease, parseOpenwrtRelease } from '../../core/facts/release.js';
import { parseIpJsonRoutes, parseIpTextRoutes, parseProcNetRoute } from '../../core/facts/routes.js';
import { socFromCompatible, socFromCompatibleEntry, socFromSystemType } from '../../core/facts/soc.js';
import type { CommandResult, RouterHost } from '../../core/host/router-host.js';
import { FixtureHost } from '../../agent/sim/fixture-host.js';

/** A router made of in-memory files and command outputs, for exact degraded cases. */
class MemoryHost implements RouterHost {
  readonly description = 'memory';
  constructor(
    private readonly files: Record<string, string | Buffer> = {},
    private readonly commands: Record<string, string | CommandResult> = {},
  ) {}
  async run(argv: string[]): Promise<CommandResult> {
    const out = this.commands[argv.join(' ')];
    if (out === undefined) return { code: 127, stdout: '', stderr: `${argv[0]}: not found` };
    return typeof out === 'string' ? { code: 0, stdout: out, stderr: '' } : out;
  }
  async readFile(path: string): Promise<string | null> {
    const data = this.files[path];
    return data === undefined ? null : data.toString();
  }
  async readBinary(path: string): Promise<Buffer | null> {
    const data = this.files[path];
    return data === undefined ? null : Buffer.from(data);
  }
  async writeFile(): Promise<void> {
    throw new Error('read-only');
  }
  async close(): Promise<void> {}
}

/** A host whose transport fails on every call (an SSH session that dropped). */
class BrokenHost implements RouterHost {
  readonly description = 'broken';
  async run(): Promise<CommandResult> {
    throw new Error('channel closed');
  }
  async readFile(): Promise<string | null> {
    throw new Error('channel closed');
  }
  async readBinary(): Promise<Buffer | null> {
    throw new Error('channel closed');
  }
  async writeFile(): Promise<void> {
    throw new Error('channel closed');
  }
  async close(): Promise<void> {}
}

const junk = Buffer.from([0x7f, 0x00, 0xff, 0xfe, 0x13, 0x88, 0x00, 0xc3, 0x28, 0x01, 0x02, 0xa0, 0xa1]);
const fieldsOf = (facts: { unknown: { field: string }[] }) => facts.unknown.map((entry) => entry.field);

/** An ELF header (first 20 bytes are what matters): class, data (byte order) and e_machine. */
function elfHeader(bits: 32 | 64, endian: 'little' | 'big', machine: number): Buffer {
  const header = Buffer.alloc(64);
  header.writeUInt32BE(0x7f454c46, 0);
  header[4] = bits === 32 ? 1 : 2;
  header[5] = endian === 'little' ? 1 : 2;
  header[6] = 1;
  if (endian === 'little') header.writeUInt16LE(machine, 18);
  else header.writeUInt16BE(machine, 18);
  return header;
}

describe('missing, empty, garbage and binary-junk sources degrade to unknown, never throw', () => {
  it('an empty root: every field unknown with a reason', async () => {
    const facts = await collectFacts(new MemoryHost());
    expect(facts).toMatchObject({ soc: null, arch: null, endian: null, kernel: null, openwrt: null, boardName: null });
    expect(fieldsOf(facts)).toEqual(
      expect.arrayContaining([
        'soc',
        'socFamily',
        'arch',
        'endian',
        'kernel',
        'openwrt',
        'target',
        'model.id',
        'model.name',
        'boardName',
        'cpu.model',
        'cpu.cores',
        'network.wan',
        'network.lan',
        'packages',
      ]),
    );
    for (const entry of facts.unknown) expect(entry.reason.length).toBeGreaterThan(5);
    expect(facts.problems).toEqual([]); // nothing was broken, only absent
    const capabilities = predictCapabilities(facts);
    expect(capabilities).toMatchObject({ hardwareOffload: false, softwareOffload: false, ebpf: false, tcx: false });
    expect(capabilities.reasons.ebpf).toMatch(/kernel release unknown/);
  });

  it('a fixture root that does not exist behaves like an empty router', async () => {
    const facts = await collectFacts(new FixtureHost('/nonexistent/wrtfleet-fixture'));
    expect(facts.openwrt).toBeNull();
    expect(fieldsOf(facts)).toContain('kernel');
  });

  it('a host whose every call throws (dropped SSH session)', async () => {
    const facts = await collectFacts(new BrokenHost());
    expect(facts.kernel).toBeNull();
    expect(facts.unknown.find((entry) => entry.field === 'kernel')?.reason).toMatch(/channel closed/);
    expect(facts.problems.some((problem) => problem.includes('channel closed'))).toBe(true);
  });

  it('binary junk in every file and command', async () => {
    const paths = [
      '/proc/cpuinfo',
      '/proc/device-tree/compatible',
      '/proc/device-tree/model',
      '/tmp/sysinfo/board_name',
      '/tmp/sysinfo/model',
      '/etc/board.json',
      '/etc/os-release',
      '/usr/lib/os-release',
      '/etc/openwrt_release',
      '/proc/sys/kernel/osrelease',
      '/proc/version',
      '/proc/net/route',
      '/usr/lib/opkg/status',
      '/bin/busybox',
    ];
    const commands = [
      'ubus call system board',
      'uname -m',
      'uname -r',
      'ip -j route show default',
      'opkg list-installed',
    ];
    const host = new MemoryHost(
      Object.fromEntries(paths.map((path) => [path, junk])),
      Object.fromEntries(commands.map((command) => [command, junk.toString('utf8')])),
    );
    const facts = await collectFacts(host);
    expect(facts).toMatchObject({ soc: null, arch: null, endian: null, kernel: null, openwrt: null, compatible: [] });
    expect(facts.problems.length).toBeGreaterThan(5);
    expect(facts.problems).toContain('/proc/device-tree/compatible is garbage (not vendor,name entries)');
    expect(facts.problems.some((problem) => /binary junk/.test(problem))).toBe(true);
  });

  it('empty files and commands that print nothing', async () => {
    const host = new MemoryHost(
      {
        '/proc/cpuinfo': '',
        '/etc/board.json': '\n',
        '/usr/lib/os-release': '',
        '/proc/sys/kernel/osrelease': '',
        '/proc/device-tree/compatible': '',
      },
      { 'uname -m': '', 'ubus call system board': '' },
    );
    const facts = await collectFacts(host);
    expect(facts.kernel).toBeNull();
    expect(facts.unknown.find((entry) => entry.field === 'kernel')?.reason).toMatch(/osrelease empty/);
    expect(facts.problems).toEqual(expect.arrayContaining(['/proc/cpuinfo empty', '/etc/board.json empty']));
  });

  it('text garbage: invalid JSON, wrong JSON shapes, os-release without ID, a kernel that is not a version', async () => {
    const host = new MemoryHost(
      {
        '/etc/board.json': '{"model": {"id": "x", ',
        '/usr/lib/os-release': 'hello world\nthis is not os-release\n',
        '/etc/openwrt_release': 'DISTRIB_FOO=1\n',
        '/proc/sys/kernel/osrelease': 'not-a-kernel\n',
        '/proc/cpuinfo': 'garbage without colons\n',
        '/tmp/sysinfo/board_name': 'tplink,archer-c7-v2\n',
      },
      {
        'ubus call system board': '[1, 2, 3]',
        'uname -r': '5.15.150\n',
        'uname -m': 'MIPS!!\n',
        'ip -j route show default': '{"not": "a list"}',
      },
    );
    const facts = await collectFacts(host);
    expect(facts.kernel).toBe('5.15.150'); // the next source took over
    expect(facts.evidence['kernel']).toBe('uname -r');
    expect(facts.boardName).toBe('tplink,archer-c7-v2');
    expect(facts.machine).toBeNull();
    expect(facts.problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^\/etc\/board.json is not valid JSON/),
        '/usr/lib/os-release has no ID=',
        '/etc/openwrt_release has no DISTRIB_RELEASE or DISTRIB_TARGET',
        '/proc/sys/kernel/osrelease is garbage',
        '/proc/cpuinfo has no `key : value` lines',
        '`uname -m` printed garbage',
      ]),
    );
    expect(facts.unknown.find((entry) => entry.field === 'network.defaultRoutes')?.reason).toMatch(/output unusable/);
  });

  it('a real tree with garbage files written over it (FixtureHost, temp dir)', async () => {
    const root = await mkdtemp(join(tmpdir(), 'wrtfleet-facts-'));
    const put = async (path: string, data: string | Buffer) => {
      await mkdir(dirname(join(root, path)), { recursive: true });
      await writeFile(join(root, path), data);
    };
    await put(
      'proc/cpuinfo',
      'system type\t\t: MediaTek MT7621 ver:1 eco:3\nprocessor\t\t: 0\ncpu model\t\t: MIPS 1004Kc V2.15\n',
    );
    await put('proc/device-tree/compatible', junk);
    await put('etc/board.json', junk);
    await put(
      'usr/lib/os-release',
      'NAME="OpenWrt"\nVERSION="24.10.4"\nID="openwrt"\nOPENWRT_BOARD="ramips/mt7621"\nOPENWRT_ARCH="mipsel_24kc"\n',
    );
    await put('proc/sys/kernel/osrelease', '6.6.110\n');
    try {
      const facts = await collectFacts(new FixtureHost(root));
      expect(facts.soc).toBe('MT7621'); // cpuinfo took over from the broken device tree
      expect(facts.evidence['soc']).toMatch(/cpuinfo/);
      expect(facts.endian).toBe('little');
      expect(facts.model.name).toBeNull();
      expect(facts.problems).toEqual(expect.arrayContaining(['/etc/board.json is not text (binary junk)']));
      expect(predictCapabilities(facts)).toMatchObject({ hardwareOffload: true, ebpf: true, tcx: true });
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});

describe('arch and byte order from weaker evidence', () => {
  it('uname -m "mips" alone cannot tell byte order, and says so', async () => {
    const facts = await collectFacts(new MemoryHost({}, { 'uname -m': 'mips\n' }));
    expect(facts.arch).toBe('mips');
    expect(facts.endian).toBeNull();
    expect(facts.unknown.find((entry) => entry.field === 'endian')?.reason).toMatch(/mips for both byte orders/);
  });

  it('the ELF header of /bin/busybox settles MIPS byte order', async () => {
    const big = await collectFacts(
      new MemoryHost({ '/bin/busybox': elfHeader(32, 'big', 8) }, { 'uname -m': 'mips\n' }),
    );
    expect(big).toMatchObject({ arch: 'mips', endian: 'big' });
    expect(big.evidence['endian']).toBe('ELF header of /bin/busybox');
    const little = await collectFacts(
      new MemoryHost({ '/bin/busybox': elfHeader(32, 'little', 8) }, { 'uname -m': 'mips\n' }),
    );
    expect(little).toMatchObject({ arch: 'mipsel', endian: 'little' });
    const noUname = await collectFacts(new MemoryHost({ '/bin/sh': elfHeader(64, 'little', 183) }));
    expect(noUname).toMatchObject({ arch: 'aarch64', endian: 'little' });
  });

  it('the SoC platform is the last resort for byte order (ath79 is big-endian)', async () => {
    const facts = await collectFacts(
      new MemoryHost(
        { '/proc/cpuinfo': 'system type\t\t: Qualcomm Atheros QCA9533 ver 2 rev 0\nprocessor\t\t: 0\n' },
        { 'uname -m': 'mips\n' },
      ),
    );
    expect(facts).toMatchObject({ soc: 'QCA9533', socFamily: 'ath79', endian: 'big' });
    expect(facts.evidence['endian']).toBe('ath79 platform');
  });

  it('a generic arm64 Linux router without OpenWrt files', async () => {
    const facts = await collectFacts(
      new MemoryHost({ '/proc/sys/kernel/osrelease': '6.1.0-18-arm64\n' }, { 'uname -m': 'aarch64\n' }),
    );
    expect(facts).toMatchObject({ arch: 'aarch64', endian: 'little', kernel: '6.1.0-18-arm64', openwrt: null });
    expect(predictCapabilities(facts)).toMatchObject({ ebpf: true, tcx: false, softwareOffload: false });
  });
});

describe('release sources', () => {
  it('ubus alone (procd running, files unreadable) gives release, kernel and the MIPS SoC', async () => {
    const ubus = {
      kernel: '5.15.150',
      hostname: 'OpenWrt',
      system: 'Atheros AR9344 rev 2',
      model: 'TP-Link TL-WDR3600 v1',
      board_name: 'tplink,tl-wdr3600-v1',
      release: {
        distribution: 'OpenWrt',
        version: '23.05.3',
        revision: 'r23809-234f1a2efa',
        target: 'ath79/generic',
        description: 'OpenWrt 23.05.3',
      },
    };
    const facts = await collectFacts(new MemoryHost({}, { 'ubus call system board': JSON.stringify(ubus) }));
    expect(facts).toMatchObject({
      soc: 'AR9344',
      socFamily: 'ath79',
      kernel: '5.15.150',
      endian: 'big',
      boardName: 'tplink,tl-wdr3600-v1',
    });
    expect(facts.openwrt).toMatchObject({
      version: '23.05.3',
      target: 'ath79/generic',
      source: 'ubus call system board',
      arch: null,
    });
  });

  it('an OpenWrt derivative (ImmortalWrt) counts as OpenWrt', () => {
    const identity = parseOsRelease(
      'NAME="ImmortalWrt"\nVERSION="23.05.4"\nID="immortalwrt"\nID_LIKE="lede openwrt"\nOPENWRT_BOARD="mediatek/filogic"\nOPENWRT_ARCH="aarch64_cortex-a53"\n',
      '/usr/lib/os-release',
    );
    expect(identity).toMatchObject({
      kind: 'openwrt',
      release: { distribution: 'ImmortalWrt', version: '23.05.4', target: 'mediatek/filogic' },
    });
  });

  it('SNAPSHOT builds keep the upper-case VERSION and predict fw4', async () => {
    const facts = await collectFacts(
      new MemoryHost({
        '/usr/lib/os-release':
          'NAME="OpenWrt"\nVERSION="SNAPSHOT"\nID="openwrt"\nVERSION_ID="snapshot"\nOPENWRT_BOARD="mediatek/filogic"\nOPENWRT_ARCH="aarch64_cortex-a53"\n',
        '/proc/sys/kernel/osrelease': '6.12.30\n',
        '/proc/device-tree/compatible': 'cudy,wr3000-v1\u0000mediatek,mt7981b\u0000',
      }),
    );
    expect(facts.openwrt?.version).toBe('SNAPSHOT');
    expect(facts).toMatchObject({ soc: 'MT7981', socVariant: 'MT7981B' });
    expect(predictCapabilities(facts)).toMatchObject({ softwareOffload: true, hardwareOffload: true, tcx: true });
  });

  it('/etc/openwrt_release single quotes', () => {
    expect(
      parseOpenwrtRelease(
        "DISTRIB_ID='OpenWrt'\nDISTRIB_RELEASE='21.02.7'\nDISTRIB_TARGET='ramips/mt7621'\nDISTRIB_ARCH='mipsel_24kc'\n",
        'f',
      ),
    ).toMatchObject({
      version: '21.02.7',
      target: 'ramips/mt7621',
      arch: 'mipsel_24kc',
    });
  });
});

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
