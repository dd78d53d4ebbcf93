import { FirmwareImageRefused } from './firmware-image-refused.js';

/**
 * The JSON that OpenWrt's build writes into an image's metadata block (`metadata_json` in the
 * build's image-commands.mk, read on the router by fwtool.sh's `fwtool_check_image`):
 * `supported_devices` (board names, as in /tmp/sysinfo/board_name), `version` {dist, version,
 * revision, target, board}, and since 21.02 `compat_version` with, when it is not "1.0",
 * `new_supported_devices` and often `compat_message`.
 */

export interface FirmwareVersionInfo {
  /** VERSION_DIST: "OpenWrt". */
  dist: string;
  /** VERSION_NUMBER: "24.10.0", "23.05.3", "SNAPSHOT". What wrtfleet calls the release. */
  version: string;
  /** REVISION: "r28427-6df0e3d02a". */
  revision: string;
  /** TARGETID: "ramips/mt7621"; null in images built before the field existed. */
  target: string | null;
  /** The build's device name ("tplink_archer-c7-v2"), or the target name in old images. */
  board: string | null;
}

export interface FirmwareMetadata {
  supportedDevices: string[];
  /** What a router checks instead of supportedDevices when compatVersion is not "1.0"; null if absent. */
  newSupportedDevices: string[] | null;
  version: FirmwareVersionInfo;
  /** "1.0" when the image does not say, as fwtool.sh defaults it. */
  compatVersion: string;
  compatMessage: string | null;
  /** The whole JSON object, for fields this type does not name. */
  raw: Record<string, unknown>;
}

/** The image's release as wrtfleet spells it (docs/DOMAIN.md, Glossary: release). */
export function imageRelease(metadata: FirmwareMetadata): { release: string; revision: string } {
  return { release: metadata.version.version, revision: metadata.version.revision };
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const textOrNull = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

function deviceList(value: unknown): string[] | null {
  if (!Array.isArray(value) || !value.every((entry) => typeof entry === 'string')) return null;
  return value as string[];
}

function badMetadata(problem: string): FirmwareImageRefused {
  return new FirmwareImageRefused(
    'bad_metadata',
    `The image's fwtool metadata block is intact (its CRC matches) but ${problem}. ` +
      'sysupgrade would refuse it too; rebuild the image with a standard OpenWrt build or Image Builder.',
  );
}

/** Parses the metadata JSON text; refuses (bad_metadata) what fwtool.sh could not use. */
export function parseFirmwareMetadata(jsonText: string): FirmwareMetadata {
  let parsed: unknown;
  try {
    parsed = JSON.parse(jsonText);
  } catch (error) {
    throw badMetadata(`its JSON does not parse (${(error as Error).message})`);
  }
  if (!isRecord(parsed)) throw badMetadata('its JSON is not an object');

  const compatVersion = textOrNull(parsed['compat_version']) ?? '1.0';
  const supportedDevices = deviceList(parsed['supported_devices']);
  const newSupportedDevices =
    parsed['new_supported_devices'] === undefined ? null : deviceList(parsed['new_supported_devices']);
  if (supportedDevices === null) throw badMetadata('it has no supported_devices list of board names');
  if (parsed['new_supported_devices'] !== undefined && newSupportedDevices === null) {
    throw badMetadata('its new_supported_devices is not a list of board names');
  }

  const version = parsed['version'];
  if (!isRecord(version) || textOrNull(version['version']) === null) {
    throw badMetadata('it has no version object with a version number');
  }
  return {
    supportedDevices,
    newSupportedDevices,
    version: {
      dist: textOrNull(version['dist']) ?? '',
      version: version['version'] as string,
      revision: textOrNull(version['revision']) ?? '',
      target: textOrNull(version['target']),
      board: textOrNull(version['board']),
    },
    compatVersion,
    compatMessage: textOrNull(parsed['compat_message']),
    raw: parsed,
  };
}
