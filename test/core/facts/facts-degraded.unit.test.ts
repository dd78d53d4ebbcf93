import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { predictCapabilities } from '../../../core/capabilities.js';
import { collectFacts } from '../../../core/facts/index.js';
import { parseOsRelease, parseOpenwrtRelease } from '../../../core/facts/release.js';
import type { CommandResult, RouterHost } from '../../../core/host/router-host.js';
import { FixtureHost } from '../../../agent/sim/fixture-host.js';

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
      release: '23.05.3',
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
      release: { distribution: 'ImmortalWrt', release: '23.05.4', target: 'mediatek/filogic' },
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
    expect(facts.openwrt?.release).toBe('SNAPSHOT');
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
      release: '21.02.7',
      target: 'ramips/mt7621',
      arch: 'mipsel_24kc',
    });
  });
});
