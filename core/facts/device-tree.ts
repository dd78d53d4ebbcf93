import type { RouterHost } from '../host/router-host.js';
import { found, missing, readBinaryFile, type SourceRead } from './source.js';

/**
 * /proc/device-tree: `compatible` is a NUL-separated list, most specific first: the board
 * (`tplink,archer-c7-v2`, what /tmp/sysinfo/board_name copies), then the SoC
 * (`qca,qca9558`, `mediatek,mt7986a`), sometimes a SoC fallback after it
 * (`netgear,r7800`, `qcom,ipq8065`, `qcom,ipq8064`). `model` is a NUL-terminated string.
 * x86 has no device tree at all.
 */
export interface DeviceTree {
  compatible: string[];
  model: string | null;
}

/** A compatible entry is `vendor,name` in printable ASCII; anything else means a garbage file. */
const COMPATIBLE_ENTRY = /^[A-Za-z0-9][A-Za-z0-9,._+-]*$/;

export function parseCompatible(data: Buffer): SourceRead<string[]> {
  const entries = data
    .toString('latin1')
    .split('\u0000')
    .filter((entry) => entry !== '');
  if (entries.length === 0) return missing('/proc/device-tree/compatible', '/proc/device-tree/compatible empty');
  if (!entries.every((entry) => COMPATIBLE_ENTRY.test(entry))) {
    return missing('/proc/device-tree/compatible', '/proc/device-tree/compatible is garbage (not vendor,name entries)');
  }
  return found('/proc/device-tree/compatible', entries);
}

export function parseDtString(data: Buffer): string | null {
  const text = data.toString('utf8').split('\u0000')[0]?.trim() ?? '';
  return text !== '' && /^[\x20-\x7e]+$/.test(text) ? text : null;
}

export async function readDeviceTree(host: RouterHost): Promise<SourceRead<DeviceTree>> {
  const [compatibleRead, modelRead] = await Promise.all([
    readBinaryFile(host, '/proc/device-tree/compatible'),
    readBinaryFile(host, '/proc/device-tree/model'),
  ]);
  if (!compatibleRead.ok) return compatibleRead;
  const compatible = parseCompatible(compatibleRead.value);
  if (!compatible.ok) return compatible;
  return found('/proc/device-tree', {
    compatible: compatible.value,
    model: modelRead.ok ? parseDtString(modelRead.value) : null,
  });
}
