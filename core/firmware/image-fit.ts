import type { FirmwareMetadata } from './fwtool-metadata.js';
import { compareReleases } from './release-order.js';

/**
 * Which routers an image fits: the checks sysupgrade itself makes before it flashes
 * (fwtool.sh's `fwtool_check_image`, docs/DOMAIN.md, "Firmware images"), so that the controller
 * refuses what the router would refuse, plus two of wrtfleet's own (target, downgrade).
 *
 * sysupgrade's rules, as fwtool.sh writes them:
 * - The device's compat version is `uci get system.@system[0].compat_version`, "1.0" when
 *   unset; the image's is its compat_version, "1.0" when absent.
 * - An image whose compat version is not "1.0" is matched against new_supported_devices (a
 *   router too old to know compat versions reads supported_devices, which such images fill with
 *   a message, and so refuses); without that list the check fails.
 * - The router's board name (/tmp/sysinfo/board_name) must equal an entry exactly: no
 *   case folding and no ","/"_" equivalence. (The build turns a device name "tplink_archer-c7-v2"
 *   into the board name "tplink,archer-c7-v2" when it writes the list; on the router nothing is
 *   translated. An image may list older spellings as extra entries.)
 * - Compat versions whose part before the last "." differs (`${v%.*}`): refused outright, even
 *   with -n; the image's compat_message says what to do instead.
 * - Otherwise, compat versions that differ at all (fwtool.sh's `${v#.*}` strips only a leading
 *   ".", so it compares the whole strings): refused unless the configuration is not kept (-n).
 */

export interface RouterForFit {
  boardName: string | null;
  /** OpenWrt target, "ramips/mt7621". */
  target: string | null;
  release: string | null;
  revision: string | null;
  /** system.@system[0].compat_version; null when unset ("1.0"). */
  compatVersion: string | null;
}

export interface FitOptions {
  /** Keep the configuration over the upgrade (sysupgrade without -n). */
  keepConfig: boolean;
  /** Allow an image that is not newer than what the router runs (older, or the same build). */
  allowDowngrade: boolean;
}

export type FitRefusalCode =
  'board' | 'target' | 'downgrade' | 'config_reset_needed' | 'compat' | 'unknown_board' | 'same_release';

export interface FitRefusal {
  code: FitRefusalCode;
  reason: string;
}

export interface FitVerdict {
  fits: boolean;
  refusals: FitRefusal[];
  /** The upgrade runs as sysupgrade -n: the configuration is not kept. */
  configReset: boolean;
  notes: string[];
}

const DEFAULT_COMPAT_VERSION = '1.0';

/** fwtool.sh's `${v%.*}`: everything before the last ".". */
const compatMajor = (version: string): string => {
  const dot = version.lastIndexOf('.');
  return dot < 0 ? version : version.slice(0, dot);
};

/** fwtool.sh's `${v#.*}`: a leading "." removed, nothing else. */
const compatMinorAsCompared = (version: string): string => (version.startsWith('.') ? version.slice(1) : version);

/** "tplink,archer-c7-v2" and "tplink_archer-c7-v2" are the same words spelled two ways. */
const separatorsFolded = (name: string): string => name.replaceAll(',', '_');

function boardRefusal(image: FirmwareMetadata, boardName: string, imageCompat: string): FitRefusal | null {
  const listName = imageCompat === DEFAULT_COMPAT_VERSION ? 'supported_devices' : 'new_supported_devices';
  const list = imageCompat === DEFAULT_COMPAT_VERSION ? image.supportedDevices : image.newSupportedDevices;
  if (list === null) {
    return {
      code: 'board',
      reason:
        `The image declares compat_version ${imageCompat} but has no new_supported_devices list, ` +
        'so sysupgrade finds no device it supports.',
    };
  }
  if (list.includes(boardName)) return null;
  const nearMiss = list.find((entry) => separatorsFolded(entry) === separatorsFolded(boardName));
  const hint =
    nearMiss === undefined
      ? ''
      : ` The image lists "${nearMiss}", which differs only in "," and "_": sysupgrade compares board ` +
        'names exactly, so the router (probably running a build from before its board was renamed) ' +
        'would refuse it; use an image whose list has the router’s spelling.';
  return {
    code: 'board',
    reason:
      `This router's board "${boardName}" is not in the image's ${listName} ` +
      `(${list.join(', ') || 'empty'}); sysupgrade would refuse it.${hint}`,
  };
}

function compatRefusalOrNote(
  image: FirmwareMetadata,
  deviceCompat: string,
  keepConfig: boolean,
  notes: string[],
): FitRefusal | null {
  const imageCompat = image.compatVersion || DEFAULT_COMPAT_VERSION;
  const message = image.compatMessage === null ? '' : ` The image says: ${image.compatMessage}`;
  if (compatMajor(deviceCompat) !== compatMajor(imageCompat)) {
    return {
      code: 'compat',
      reason:
        `The router's compat version ${deviceCompat} and the image's ${imageCompat} differ in their major ` +
        'part: sysupgrade refuses this image even without keeping the configuration (the flash layout ' +
        `or configuration format changed); it needs a manual migration.${message}`,
    };
  }
  if (compatMinorAsCompared(deviceCompat) === compatMinorAsCompared(imageCompat)) return null;
  if (keepConfig) {
    return {
      code: 'config_reset_needed',
      reason:
        `The router's compat version ${deviceCompat} differs from the image's ${imageCompat}: sysupgrade ` +
        'accepts this image only without keeping the configuration (sysupgrade -n). Upgrade with the ' +
        `configuration reset, then restore the agent.${message}`,
    };
  }
  notes.push(
    `Compat version ${deviceCompat} -> ${imageCompat}: sysupgrade requires -n, which this upgrade uses.${message}`,
  );
  return null;
}

function releaseRefusalOrNote(
  image: FirmwareMetadata,
  router: RouterForFit,
  allowDowngrade: boolean,
  notes: string[],
): FitRefusal | null {
  const imageBuild = `${image.version.version} (${image.version.revision || 'no revision'})`;
  const routerBuild = `${router.release ?? 'unknown'} (${router.revision ?? 'no revision'})`;
  const order = compareReleases(
    { release: image.version.version, revision: image.version.revision || null },
    { release: router.release, revision: router.revision },
  );
  if (order === null) {
    notes.push(`Cannot tell whether ${imageBuild} is newer than the router's ${routerBuild}; not checked.`);
    return null;
  }
  if (order > 0) return null;
  const what = order < 0 ? 'older than' : 'the same build as';
  if (allowDowngrade) {
    notes.push(`The image ${imageBuild} is ${what} the router's ${routerBuild}; allowed by request.`);
    return null;
  }
  return {
    code: order < 0 ? 'downgrade' : 'same_release',
    reason:
      `The image ${imageBuild} is ${what} the router's ${routerBuild}. Allow downgrades to flash it anyway` +
      (order < 0 ? ' (a downgrade with the configuration kept may leave settings the old release cannot read).' : '.'),
  };
}

export function judgeFit(image: FirmwareMetadata, router: RouterForFit, options: FitOptions): FitVerdict {
  const refusals: FitRefusal[] = [];
  const notes: string[] = [];
  const deviceCompat = router.compatVersion?.trim() || DEFAULT_COMPAT_VERSION;
  const imageCompat = image.compatVersion || DEFAULT_COMPAT_VERSION;

  if (router.boardName === null || router.boardName.trim() === '') {
    refusals.push({
      code: 'unknown_board',
      reason: "The router's board name is not known (no /tmp/sysinfo/board_name in its facts); reprobe it first.",
    });
  } else {
    const board = boardRefusal(image, router.boardName, imageCompat);
    if (board !== null) refusals.push(board);
    else {
      const compat = compatRefusalOrNote(image, deviceCompat, options.keepConfig, notes);
      if (compat !== null) refusals.push(compat);
    }
  }

  const imageTarget = image.version.target;
  if (imageTarget === null)
    notes.push('The image does not name its target (an old build); only the board was checked.');
  else if (router.target === null) notes.push(`The router's target is not known; the image is for ${imageTarget}.`);
  else if (router.target !== imageTarget) {
    refusals.push({
      code: 'target',
      reason: `The image is built for target ${imageTarget}, the router runs ${router.target}.`,
    });
  }

  const release = releaseRefusalOrNote(image, router, options.allowDowngrade, notes);
  if (release !== null) refusals.push(release);

  const configReset = !options.keepConfig;
  if (configReset) {
    notes.push(
      'The configuration is not kept (sysupgrade -n): the router comes back with defaults, without the ' +
        'wrtfleet agent, its certificate and key, or its network and SSH settings; they must be restored ' +
        '(re-onboarding) after the upgrade.',
    );
  }
  return { fits: refusals.length === 0, refusals, configReset, notes };
}
