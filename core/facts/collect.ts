import type { RouterHost } from '../host/router-host.js';
import { archFromMachine, endianFromFamily, endianFromMachine, endianFromPackageArch, parseElfHeader } from './arch.js';
import { parseBoardJson, type BoardJson } from './board-json.js';
import { parseCpuinfo, type Cpuinfo } from './cpuinfo.js';
import { readDeviceTree, type DeviceTree } from './device-tree.js';
import { readDmiModel } from './dmi.js';
import { kernelFromProcVersion, normalizeKernelRelease } from './kernel.js';
import {
  packageFacts,
  parseApkDb,
  parseApkList,
  parseOpkgList,
  parseOpkgStatus,
  unknownPackages,
  type InstalledList,
} from './packages.js';
import { openWrtAtLeast, parseOpenwrtRelease, parseOsRelease } from './release.js';
import { parseIpJsonRoutes, parseIpTextRoutes, parseProcNetRoute } from './routes.js';
import {
  familyFromTarget,
  isX86Machine,
  socFromCompatible,
  socFromSystemType,
  socFromTarget,
  type SocIdentity,
} from './soc.js';
import { parseJson, printableLine, readBinaryFile, readTextFile, runCommand, type SourceRead } from './source.js';
import type {
  DefaultRoute,
  Endian,
  OpenWrtRelease,
  OtherOs,
  PackageFacts,
  RouterFacts,
  UnknownField,
} from './types.js';
import { parseUbusBoard, type UbusBoard } from './ubus-board.js';

/**
 * Collects everything the agent needs to know about a router through its RouterHost
 * (on the router, over SSH, or from a fixture tree). Never throws: every source that is
 * missing or garbage leaves its fields null with an `unknown` entry saying why.
 */
export async function collectFacts(host: RouterHost): Promise<RouterFacts> {
  const record = new FactRecord();

  const [cpuinfoRead, deviceTreeRead, sysBoardRead, sysModelRead, boardJsonRead, ubusRead, unameMRead, release] =
    await Promise.all([
      readTextFile(host, '/proc/cpuinfo'),
      readDeviceTree(host),
      readTextFile(host, '/tmp/sysinfo/board_name'),
      readTextFile(host, '/tmp/sysinfo/model'),
      readTextFile(host, '/etc/board.json'),
      runCommand(host, ['ubus', 'call', 'system', 'board']),
      runCommand(host, ['uname', '-m']),
      readRelease(host, record),
    ]);

  const cpuinfo = parsed(record, cpuinfoRead, (text) => parseCpuinfo(text), 'has no `key : value` lines');
  const deviceTree = record.noteRead(deviceTreeRead) ? deviceTreeRead.value : null;
  const boardJson = parsed(
    record,
    boardJsonRead,
    (text) => jsonThen(record, boardJsonRead.source, text, parseBoardJson),
    'is not a board.json object',
  );
  const ubus = parsed(
    record,
    ubusRead,
    (text) => jsonThen(record, ubusRead.source, text, parseUbusBoard),
    'is not a system board object',
  );
  const sysBoard = sysBoardRead.ok ? printableLine(sysBoardRead.value) : null;
  const sysModel = sysModelRead.ok ? printableLine(sysModelRead.value) : null;
  if (sysBoardRead.ok && !sysBoard) record.problem(`${sysBoardRead.source} is garbage`);
  if (sysModelRead.ok && !sysModel) record.problem(`${sysModelRead.source} is garbage`);

  const { openwrt, os } = mergeRelease(record, release, ubus);
  const machine = readMachine(record, unameMRead);
  const kernel = await readKernel(host, record, ubus);

  const x86 =
    isX86Machine(machine) ||
    (openwrt?.target?.startsWith('x86/') ?? false) ||
    /^(GenuineIntel|AuthenticAMD)$/.test(cpuinfo?.vendorId ?? '');
  const socIdentity = identifySoc(record, { deviceTree, cpuinfo, ubus, target: openwrt?.target ?? null, x86 });
  const socFamily =
    socIdentity?.family ?? (openwrt?.target ? familyFromTarget(openwrt.target) : null) ?? (x86 ? 'x86' : null);
  if (socFamily)
    record.evidence(
      'socFamily',
      socIdentity?.family ? socIdentity.source : openwrt?.target ? `OpenWrt target ${openwrt.target}` : 'x86 machine',
    );
  else record.unknown('socFamily', 'neither the SoC nor an OpenWrt target names the platform');
  if (socIdentity && openwrt?.target) {
    const targetFamily = familyFromTarget(openwrt.target);
    if (socIdentity.family && targetFamily && socIdentity.family !== targetFamily) {
      record.problem(
        `SoC ${socIdentity.variant} belongs to ${socIdentity.family} but the OpenWrt target is ${openwrt.target}`,
      );
    }
  }

  const { arch, endian } = await readArchAndEndian(host, record, {
    packageArch: openwrt?.arch ?? null,
    machine,
    family: socFamily,
  });

  const model = readModel(record, { boardJson, sysBoard, sysModel, deviceTree, ubus, cpuinfo });
  if (!model.name && x86) {
    const dmi = await readDmiModel(host);
    if (dmi) {
      model.name = dmi.name;
      record.evidence('model.name', dmi.source);
      record.resolve('model.name');
    }
  }

  const cpu = {
    model: cpuinfo?.cpuModel ?? null,
    cores: cpuinfo?.cores ?? null,
  };
  if (cpu.model) record.evidence('cpu.model', '/proc/cpuinfo');
  else record.unknown('cpu.model', cpuinfo ? '/proc/cpuinfo names no CPU model' : unavailable(cpuinfoRead));
  if (cpu.cores) record.evidence('cpu.cores', '/proc/cpuinfo');
  else record.unknown('cpu.cores', cpuinfo ? '/proc/cpuinfo lists no `processor` entries' : unavailable(cpuinfoRead));

  const network = await readNetwork(host, record, boardJson, boardJsonRead);
  const packages = await readPackages(host, record, openwrt);

  return {
    soc: socIdentity?.soc ?? null,
    socVariant: socIdentity?.variant ?? null,
    socFamily,
    target: openwrt?.target ?? null,
    compatible: deviceTree?.compatible ?? [],
    systemType: cpuinfo?.systemType ?? cpuinfo?.hardware ?? null,
    arch,
    machine,
    endian,
    kernel,
    openwrt,
    os,
    model: { id: model.id, name: model.name },
    boardName: model.boardName,
    cpu,
    network,
    packages,
    unknown: record.unknowns(),
    evidence: record.evidenceMap(),
    problems: record.problemList(),
  };
}

/** Bookkeeping for one collection: unknown fields, where values came from, broken sources. */
class FactRecord {
  private readonly unknownFields = new Map<string, string>();
  private readonly sources: Record<string, string> = {};
  private readonly problems: string[] = [];

  unknown(field: string, reason: string): void {
    this.unknownFields.set(field, reason);
  }
  resolve(field: string): void {
    this.unknownFields.delete(field);
  }
  evidence(field: string, source: string): void {
    this.sources[field] = source;
  }
  problem(text: string): void {
    if (!this.problems.includes(text)) this.problems.push(text);
  }
  /** True when the read succeeded; a source that exists but is broken is a problem worth showing. */
  noteRead<T>(read: SourceRead<T>): read is { ok: true; value: T; source: string } {
    if (!read.ok && !/( missing| not available)$/.test(read.reason)) this.problem(read.reason);
    return read.ok;
  }
  unknowns(): UnknownField[] {
    return [...this.unknownFields].map(([field, reason]) => ({ field, reason }));
  }
  evidenceMap(): Record<string, string> {
    return { ...this.sources };
  }
  problemList(): string[] {
    return [...this.problems];
  }
}

function unavailable(read: SourceRead<unknown>): string {
  return read.ok ? `${read.source} unusable` : read.reason;
}

/** Parses a successful read, recording a problem when its content is garbage. */
function parsed<T>(
  record: FactRecord,
  read: SourceRead<string>,
  parse: (text: string) => T | null,
  garbage: string,
): T | null {
  if (!record.noteRead(read)) return null;
  const value = parse(read.value);
  if (value === null) record.problem(`${read.source} ${garbage}`);
  return value;
}

function jsonThen<T>(record: FactRecord, source: string, text: string, parse: (json: unknown) => T | null): T | null {
  const json = parseJson(source, text);
  if (!json.ok) {
    record.problem(json.reason);
    return null;
  }
  return parse(json.value);
}

// ---------------------------------------------------------------------------------------
// Release and OS

interface ReleaseReads {
  candidates: Partial<OpenWrtRelease>[];
  other: OtherOs | null;
  reasons: string[];
}

async function readRelease(host: RouterHost, record: FactRecord): Promise<ReleaseReads> {
  // /etc/os-release is a symlink to /usr/lib/os-release on OpenWrt; captures may hold either.
  const paths = ['/etc/os-release', '/usr/lib/os-release', '/etc/openwrt_release'] as const;
  const reads = await Promise.all(paths.map((path) => readTextFile(host, path)));
  const result: ReleaseReads = { candidates: [], other: null, reasons: [] };
  reads.forEach((read, index) => {
    if (!record.noteRead(read)) {
      result.reasons.push(read.reason);
      return;
    }
    if (paths[index] === '/etc/openwrt_release') {
      const release = parseOpenwrtRelease(read.value, read.source);
      if (release) result.candidates.push(release);
      else record.problem(`${read.source} has no DISTRIB_RELEASE or DISTRIB_TARGET`);
      return;
    }
    const identity = parseOsRelease(read.value, read.source);
    if (!identity) record.problem(`${read.source} has no ID=`);
    else if (identity.kind === 'openwrt') result.candidates.push(identity.release);
    else result.other ??= identity.os;
  });
  return result;
}

function mergeRelease(
  record: FactRecord,
  release: ReleaseReads,
  ubus: UbusBoard | null,
): { openwrt: OpenWrtRelease | null; os: OtherOs | null } {
  const candidates = [...release.candidates];
  if (ubus?.release) candidates.push(ubus.release);
  const first = <K extends keyof OpenWrtRelease>(key: K): { value: OpenWrtRelease[K]; source: string } | null => {
    for (const candidate of candidates) {
      const value = candidate[key];
      if (value !== null && value !== undefined)
        return { value: value as OpenWrtRelease[K], source: candidate.source ?? '?' };
    }
    return null;
  };

  const version = first('version');
  if (!version) {
    const why = release.other
      ? `not OpenWrt: os-release says ${release.other.name ?? release.other.id}`
      : candidates.length > 0
        ? 'OpenWrt release files name no version'
        : `no OpenWrt release information (${[...release.reasons, ubus ? 'ubus has no release' : 'no ubus'].join('; ')})`;
    record.unknown('openwrt', why);
    record.unknown('target', why);
    if (release.other) record.evidence('os', 'os-release');
    return { openwrt: null, os: release.other };
  }

  const openwrt: OpenWrtRelease = {
    distribution: first('distribution')?.value ?? 'OpenWrt',
    version: version.value,
    target: first('target')?.value ?? null,
    revision: first('revision')?.value ?? null,
    arch: first('arch')?.value ?? null,
    source: version.source,
  };
  record.evidence('openwrt', version.source);
  const target = first('target');
  if (target) record.evidence('target', target.source);
  else record.unknown('target', 'OpenWrt release files and ubus name no target');
  return { openwrt, os: null };
}

// ---------------------------------------------------------------------------------------
// Kernel and machine

function readMachine(record: FactRecord, read: SourceRead<string>): string | null {
  if (!record.noteRead(read)) {
    record.unknown('machine', read.reason);
    return null;
  }
  const machine = printableLine(read.value);
  if (machine && /^[a-z0-9_]+$/.test(machine)) {
    record.evidence('machine', 'uname -m');
    return machine;
  }
  record.problem('`uname -m` printed garbage');
  record.unknown('machine', '`uname -m` printed garbage');
  return null;
}

async function readKernel(host: RouterHost, record: FactRecord, ubus: UbusBoard | null): Promise<string | null> {
  const reasons: string[] = [];
  const attempts: [string, () => Promise<string | null>][] = [
    [
      '/proc/sys/kernel/osrelease',
      async () =>
        textValue(record, await readTextFile(host, '/proc/sys/kernel/osrelease'), reasons, normalizeKernelRelease),
    ],
    [
      'uname -r',
      async () => textValue(record, await runCommand(host, ['uname', '-r']), reasons, normalizeKernelRelease),
    ],
    ['ubus call system board', async () => (ubus ? normalizeKernelRelease(ubus.kernel) : null)],
    [
      '/proc/version',
      async () => textValue(record, await readTextFile(host, '/proc/version'), reasons, kernelFromProcVersion),
    ],
  ];
  for (const [source, attempt] of attempts) {
    const kernel = await attempt();
    if (kernel) {
      record.evidence('kernel', source);
      return kernel;
    }
  }
  record.unknown('kernel', reasons.join('; ') || 'no source named the kernel release');
  return null;
}

function textValue(
  record: FactRecord,
  read: SourceRead<string>,
  reasons: string[],
  parse: (text: string) => string | null,
): string | null {
  if (!record.noteRead(read)) {
    reasons.push(read.reason);
    return null;
  }
  const value = parse(read.value);
  if (!value) {
    reasons.push(`${read.source} is garbage`);
    record.problem(`${read.source} is garbage`);
  }
  return value;
}

// ---------------------------------------------------------------------------------------
// SoC

function identifySoc(
  record: FactRecord,
  from: {
    deviceTree: DeviceTree | null;
    cpuinfo: Cpuinfo | null;
    ubus: UbusBoard | null;
    target: string | null;
    x86: boolean;
  },
): SocIdentity | null {
  const identity =
    (from.deviceTree ? socFromCompatible(from.deviceTree.compatible) : null) ??
    (from.cpuinfo?.systemType ? socFromSystemType(from.cpuinfo.systemType, '/proc/cpuinfo system type') : null) ??
    (from.ubus?.system ? socFromSystemType(from.ubus.system, 'ubus system') : null) ??
    (from.cpuinfo?.hardware ? socFromSystemType(from.cpuinfo.hardware, '/proc/cpuinfo Hardware') : null) ??
    (from.target ? socFromTarget(from.target) : null);
  if (identity) {
    record.evidence('soc', identity.source);
    return identity;
  }
  if (from.x86) {
    record.unknown('soc', `x86 has no SoC (CPU: ${from.cpuinfo?.cpuModel ?? 'unknown'})`);
    return null;
  }
  const why = [
    from.deviceTree
      ? `device tree compatible (${from.deviceTree.compatible.join(', ')}) has no SoC entry`
      : 'no device tree',
    from.cpuinfo?.systemType
      ? `cpuinfo system type "${from.cpuinfo.systemType}" names no known SoC`
      : 'cpuinfo names no SoC (arm64 never does)',
    from.target ? `target ${from.target} covers several SoCs` : 'no OpenWrt target',
  ];
  record.unknown('soc', why.join('; '));
  return null;
}

// ---------------------------------------------------------------------------------------
// Arch and byte order

async function readArchAndEndian(
  host: RouterHost,
  record: FactRecord,
  from: { packageArch: string | null; machine: string | null; family: string | null },
): Promise<{ arch: string | null; endian: Endian | null }> {
  let endian: Endian | null = null;
  let endianSource: string | null = null;
  if (from.packageArch) {
    endian = endianFromPackageArch(from.packageArch);
    if (endian) endianSource = `OpenWrt package arch ${from.packageArch}`;
  }
  let elfArch: string | null = null;
  if (!endian) {
    // A binary's ELF header states the byte order outright; busybox is on every OpenWrt.
    for (const path of ['/bin/busybox', '/bin/sh']) {
      const read = await readBinaryFile(host, path);
      const elf = read.ok ? parseElfHeader(read.value.subarray(0, 64)) : null;
      if (elf) {
        endian = elf.endian;
        elfArch = elf.arch;
        endianSource = `ELF header of ${path}`;
        break;
      }
    }
  }
  if (!endian && from.machine) {
    endian = endianFromMachine(from.machine);
    if (endian) endianSource = `uname -m ${from.machine}`;
  }
  if (!endian && from.family) {
    endian = endianFromFamily(from.family);
    if (endian) endianSource = `${from.family} platform`;
  }
  if (endian && endianSource) record.evidence('endian', endianSource);
  else {
    record.unknown(
      'endian',
      from.machine?.startsWith('mips')
        ? '`uname -m` says mips for both byte orders and no package arch, ELF header or known platform settles it'
        : 'no package arch, ELF header, uname -m or known platform to derive it from',
    );
  }

  const arch = from.packageArch ?? (from.machine ? archFromMachine(from.machine, endian) : elfArch);
  if (arch)
    record.evidence('arch', from.packageArch ? 'OpenWrt package arch' : from.machine ? 'uname -m' : 'ELF header');
  else record.unknown('arch', 'no OPENWRT_ARCH/DISTRIB_ARCH, `uname -m` unavailable and no readable ELF binary');
  return { arch, endian };
}

// ---------------------------------------------------------------------------------------
// Model and board

function readModel(
  record: FactRecord,
  from: {
    boardJson: BoardJson | null;
    sysBoard: string | null;
    sysModel: string | null;
    deviceTree: DeviceTree | null;
    ubus: UbusBoard | null;
    cpuinfo: Cpuinfo | null;
  },
): { id: string | null; name: string | null; boardName: string | null } {
  const pick = (field: string, options: [string | null | undefined, string][], why: string): string | null => {
    for (const [value, source] of options) {
      if (value) {
        record.evidence(field, source);
        return value;
      }
    }
    record.unknown(field, why);
    return null;
  };
  const boardName = pick(
    'boardName',
    [
      [from.sysBoard, '/tmp/sysinfo/board_name'],
      [from.boardJson?.modelId, '/etc/board.json'],
      [from.ubus?.boardName, 'ubus call system board'],
      [from.deviceTree?.compatible[0], '/proc/device-tree/compatible'],
    ],
    'no /tmp/sysinfo/board_name, board.json model.id, ubus board_name or device tree',
  );
  const id = pick(
    'model.id',
    [
      [from.boardJson?.modelId, '/etc/board.json'],
      [boardName, 'board name'],
    ],
    'no board.json model.id and no board name',
  );
  const name = pick(
    'model.name',
    [
      [from.sysModel, '/tmp/sysinfo/model'],
      [from.boardJson?.modelName, '/etc/board.json'],
      [from.ubus?.model, 'ubus call system board'],
      [from.deviceTree?.model, '/proc/device-tree/model'],
      [from.cpuinfo?.machine, '/proc/cpuinfo machine'],
      [from.cpuinfo?.boardModel, '/proc/cpuinfo Model'],
    ],
    'no /tmp/sysinfo/model, board.json model.name, ubus model, device-tree model, cpuinfo machine or DMI product name',
  );
  return { id, name, boardName };
}

// ---------------------------------------------------------------------------------------
// Network

async function readNetwork(
  host: RouterHost,
  record: FactRecord,
  boardJson: BoardJson | null,
  boardJsonRead: SourceRead<string>,
): Promise<RouterFacts['network']> {
  const routes = await readDefaultRoutes(host);
  const boardWan = boardJson?.wan ?? [];
  const wan = [...new Set([...(routes.value ?? []).map((route) => route.dev), ...boardWan])];
  const lan = boardJson?.lan ?? [];
  if (routes.value) record.evidence('network.defaultRoutes', routes.value[0]?.source ?? routes.source);
  else record.unknown('network.defaultRoutes', routes.reason);
  const boardWhy = boardJson
    ? '/etc/board.json names no %s devices'
    : `${unavailable(boardJsonRead)}; no board.json to name %s devices`;
  if (wan.length > 0)
    record.evidence(
      'network.wan',
      [routes.value?.length ? 'default routes' : null, boardWan.length ? '/etc/board.json' : null]
        .filter(Boolean)
        .join(' + '),
    );
  else record.unknown('network.wan', `${boardWhy.replace('%s', 'WAN')}; no IPv4 default route`);
  if (lan.length > 0) record.evidence('network.lan', '/etc/board.json');
  else record.unknown('network.lan', boardWhy.replace('%s', 'LAN'));
  return { wan, lan, defaultRoutes: routes.value ?? [] };
}

async function readDefaultRoutes(
  host: RouterHost,
): Promise<{ value: DefaultRoute[] | null; source: string; reason: string }> {
  const reasons: string[] = [];
  const json = await runCommand(host, ['ip', '-j', 'route', 'show', 'default']);
  if (json.ok) {
    const parsedJson = parseJson(json.source, json.value);
    const routes = parsedJson.ok ? parseIpJsonRoutes(parsedJson.value) : null;
    if (routes) return { value: routes, source: json.source, reason: '' };
    reasons.push(`\`${json.source}\` output unusable`);
  } else reasons.push(json.reason);
  const text = await runCommand(host, ['ip', '-4', 'route', 'show', 'default']);
  if (text.ok) {
    const routes = parseIpTextRoutes(text.value);
    if (routes) return { value: routes, source: text.source, reason: '' };
    reasons.push(`\`${text.source}\` output unusable`);
  } else reasons.push(text.reason);
  const proc = await readTextFile(host, '/proc/net/route');
  if (proc.ok) {
    const routes = parseProcNetRoute(proc.value);
    if (routes) return { value: routes, source: proc.source, reason: '' };
    reasons.push(`${proc.source} is garbage`);
  } else reasons.push(proc.reason);
  return { value: null, source: '', reason: reasons.join('; ') };
}

// ---------------------------------------------------------------------------------------
// Packages

async function readPackages(
  host: RouterHost,
  record: FactRecord,
  openwrt: OpenWrtRelease | null,
): Promise<PackageFacts> {
  type Attempt = {
    manager: 'opkg' | 'apk';
    source: string;
    read: () => Promise<SourceRead<string>>;
    parse: (text: string) => InstalledList | null;
  };
  const opkg: Attempt[] = [
    {
      manager: 'opkg',
      source: 'opkg list-installed',
      read: () => runCommand(host, ['opkg', 'list-installed']),
      parse: parseOpkgList,
    },
    {
      manager: 'opkg',
      source: '/usr/lib/opkg/status',
      read: () => readTextFile(host, '/usr/lib/opkg/status'),
      parse: parseOpkgStatus,
    },
  ];
  const apk: Attempt[] = [
    {
      manager: 'apk',
      source: 'apk list --installed',
      read: () => runCommand(host, ['apk', 'list', '--installed']),
      parse: parseApkList,
    },
    {
      manager: 'apk',
      source: '/lib/apk/db/installed',
      read: () => readTextFile(host, '/lib/apk/db/installed'),
      parse: parseApkDb,
    },
  ];
  // 25.12 switched opkg -> apk; ask the likely one first to save a round trip over SSH.
  const apkFirst = openwrt !== null && openWrtAtLeast(openwrt.version, '25.12') === true;
  const attempts = apkFirst ? [...apk, ...opkg] : [...opkg, ...apk];
  const reasons: string[] = [];
  for (const attempt of attempts) {
    const read = await attempt.read();
    if (!read.ok) {
      reasons.push(read.reason);
      continue;
    }
    const list = attempt.parse(read.value);
    if (list) {
      record.evidence('packages', attempt.source);
      return packageFacts(list, attempt.manager, attempt.source);
    }
    reasons.push(`${attempt.source} output has no package entries`);
    record.problem(`${attempt.source} output has no package entries`);
  }
  record.unknown('packages', `${openwrt ? '' : 'not OpenWrt; '}${reasons.join('; ')}`);
  return unknownPackages();
}
