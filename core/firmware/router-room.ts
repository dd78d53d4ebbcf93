/**
 * Whether a router has room for an image before the controller sends it (docs/DOMAIN.md,
 * "Firmware images"). sysupgrade flashes from /tmp (it copies an image found elsewhere to
 * /tmp/sysupgrade.img first, so the controller uploads straight to /tmp), and /tmp on OpenWrt is
 * a tmpfs: the image sits in RAM, and what it takes is taken from the memory everything else,
 * sysupgrade included, runs in.
 */

/** busybox `df -k <path>` output -> the Available column of the row mounted on `mountPoint`, in bytes. */
export function parseDfAvailableBytes(dfOutput: string, mountPoint = '/tmp'): number | null {
  const lines = dfOutput
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !/^Filesystem\s/i.test(line));
  // busybox puts a long filesystem name on a line of its own and the numbers on the next.
  const rows: string[][] = [];
  for (let index = 0; index < lines.length; index += 1) {
    const fields = (lines[index] as string).split(/\s+/);
    if (fields.length === 1 && index + 1 < lines.length) {
      fields.push(...(lines[index + 1] as string).split(/\s+/));
      index += 1;
    }
    if (fields.length >= 6) rows.push(fields);
  }
  const row =
    rows.find((fields) => fields[fields.length - 1] === mountPoint) ?? (rows.length === 1 ? rows[0] : undefined);
  if (row === undefined) return null;
  const availableKiB = Number(row[3]);
  return Number.isSafeInteger(availableKiB) && availableKiB >= 0 ? availableKiB * 1024 : null;
}

function meminfoKiB(meminfo: string, key: string): number | null {
  const match = new RegExp(`^${key}:\\s+(\\d+)\\s*kB`, 'm').exec(meminfo);
  return match ? Number(match[1]) : null;
}

/**
 * /proc/meminfo -> memory available for new allocations, in bytes: MemAvailable (kernel 3.14
 * and later, every supported OpenWrt), or MemFree + Cached on an older kernel, which is the
 * estimate MemAvailable replaced (a little optimistic: not all cache can be dropped).
 */
export function parseMemAvailableBytes(meminfo: string): number | null {
  const available = meminfoKiB(meminfo, 'MemAvailable');
  if (available !== null) return available * 1024;
  const free = meminfoKiB(meminfo, 'MemFree');
  const cached = meminfoKiB(meminfo, 'Cached');
  return free === null || cached === null ? null : (free + cached) * 1024;
}

const MIB = 1024 * 1024;

/**
 * Room /tmp needs beyond the image: sysupgrade writes its configuration backup
 * (/tmp/sysupgrade.tgz, usually well under 1 MiB), extracts the metadata and signature there, and
 * for the flash itself copies busybox, the flashing tools and their libraries into a RAM root
 * under /tmp (a few MiB). 8 MiB covers these with room to spare on a 16 MB-flash device.
 */
export const TMP_HEADROOM_BYTES = 8 * MIB;

/**
 * Memory that must stay available once the image and the headroom are in /tmp: the kernel,
 * procd, ubusd, dropbear and the agent keep running until sysupgrade's second stage stops them,
 * and a router short of memory then kills processes or hangs mid-upgrade. 16 MiB is a small
 * router's idle need with a margin.
 */
export const MEMORY_RESERVE_BYTES = 16 * MIB;

export interface RouterRoom {
  tmpAvailableBytes: number | null;
  memAvailableBytes: number | null;
}

export interface RoomCheck {
  ok: boolean;
  reason: string;
}

const mib = (bytes: number): string => `${(bytes / MIB).toFixed(1)} MiB`;

export function checkRoom(imageBytes: number, room: RouterRoom): RoomCheck {
  const tmpNeeded = imageBytes + TMP_HEADROOM_BYTES;
  if (room.tmpAvailableBytes === null) {
    return { ok: false, reason: "The router's free space in /tmp is not known (df -k /tmp gave nothing usable)." };
  }
  if (room.memAvailableBytes === null) {
    return { ok: false, reason: "The router's available memory is not known (/proc/meminfo gave nothing usable)." };
  }
  if (room.tmpAvailableBytes < tmpNeeded) {
    return {
      ok: false,
      reason:
        `/tmp has ${mib(room.tmpAvailableBytes)} free; the ${mib(imageBytes)} image needs ${mib(tmpNeeded)} ` +
        `with sysupgrade's ${mib(TMP_HEADROOM_BYTES)} of working room. Free /tmp (or reboot) and try again.`,
    };
  }
  const memoryLeft = room.memAvailableBytes - tmpNeeded;
  if (memoryLeft < MEMORY_RESERVE_BYTES) {
    return {
      ok: false,
      reason:
        `Memory: ${mib(room.memAvailableBytes)} available; the image and sysupgrade's working room in /tmp ` +
        `(${mib(tmpNeeded)}, held in RAM) would leave ${mib(Math.max(memoryLeft, 0))}, under the ` +
        `${mib(MEMORY_RESERVE_BYTES)} the router needs to keep running. Stop memory-hungry services or reboot first.`,
    };
  }
  return {
    ok: true,
    reason: `/tmp has ${mib(room.tmpAvailableBytes)} free and ${mib(memoryLeft)} of memory stays available.`,
  };
}
