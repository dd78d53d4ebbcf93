import type { RouterHost } from '../host/router-host.js';
import { archFromMachine, endianFromFamily, endianFromMachine, endianFromPackageArch, parseElfHeader } from './arch.js';
import { parseBoardJson } from './board-json.js';
import { parseCpuinfo } from './cpuinfo.js';
import { readDeviceTree } from './device-tree.js';
import { readDmiModel } from './dmi.js';
import { identifySoc, readModel } from './collect-identity.js';
import { readNetwork } from './collect-network.js';
import { readPackages } from './collect-packages.js';
import { mergeRelease, readRelease } from './collect-release.js';
import { FactRecord, jsonThen, parsed, unavailable } from './fact-record.js';
import { kernelFromProcVersion, normalizeKernelRelease } from './kernel.js';
import { familyFromTarget, isX86Machine } from './soc.js';
import { printableLine, readBinaryFile, readTextFile, runCommand, type SourceRead } from './source.js';
import type { Endian, RouterFacts } from './types.js';
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
