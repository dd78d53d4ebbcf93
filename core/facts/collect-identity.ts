/**
 * The device's identity: which SoC it is built on and which model and board it is, each from
 * the most precise source that names it (docs/DOMAIN.md, Knowing the device).
 */
import type { BoardJson } from './board-json.js';
import type { Cpuinfo } from './cpuinfo.js';
import type { DeviceTree } from './device-tree.js';
import type { FactRecord } from './fact-record.js';
import { socFromCompatible, socFromSystemType, socFromTarget, type SocIdentity } from './soc.js';
import type { UbusBoard } from './ubus-board.js';

export function identifySoc(
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

export function readModel(
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
