import { isRecord, stringField } from './source.js';

/**
 * /etc/board.json, written on first boot by the target's board.d scripts:
 *   model { id, name }
 *   network { lan { ports: [...] | device }, wan { ports: [...] | device } }
 * DSA boards list switch ports (`lan1`..`lan4`, `wan`); swconfig boards name VLAN devices
 * (`eth1.1`, `eth0.2`); x86 names NICs (`eth0` LAN, `eth1` WAN).
 */
export interface BoardJson {
  modelId: string | null;
  modelName: string | null;
  wan: string[];
  lan: string[];
  /** Whether a `network` section was present at all (an AP-only board has no wan). */
  hasNetwork: boolean;
}

function devicesOf(section: unknown): string[] {
  if (!isRecord(section)) return [];
  const devices: string[] = [];
  const ports = section['ports'];
  if (Array.isArray(ports))
    devices.push(...ports.filter((port): port is string => typeof port === 'string' && port !== ''));
  const device = stringField(section, 'device');
  if (device) devices.push(device);
  // Older board.json (18.06/19.07) used `ifname` with space-separated devices.
  const ifname = stringField(section, 'ifname');
  if (ifname) devices.push(...ifname.split(/\s+/));
  return [...new Set(devices)];
}

/** Null when the parsed JSON is not a board.json object. */
export function parseBoardJson(json: unknown): BoardJson | null {
  if (!isRecord(json)) return null;
  const model = isRecord(json['model']) ? json['model'] : {};
  const network = isRecord(json['network']) ? json['network'] : null;
  if (Object.keys(model).length === 0 && network === null) return null;
  return {
    modelId: stringField(model, 'id'),
    modelName: stringField(model, 'name'),
    wan: devicesOf(network?.['wan']),
    lan: devicesOf(network?.['lan']),
    hasNetwork: network !== null,
  };
}
