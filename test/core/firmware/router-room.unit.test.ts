import { describe, expect, it } from 'vitest';
import {
  checkRoom,
  MEMORY_RESERVE_BYTES,
  parseDfAvailableBytes,
  parseMemAvailableBytes,
  TMP_HEADROOM_BYTES,
} from '../../../core/firmware/index.js';

const MIB = 1024 * 1024;

/** busybox df -k /tmp on an MT7621 router with 256 MB of RAM (tmpfs: half of it). */
const DF_TMP = `Filesystem           1K-blocks      Used Available Use% Mounted on
tmpfs                   124184      1244    122940   1% /tmp
`;

/** busybox df -k with every mount; a long device name wraps onto its own line. */
const DF_ALL = `Filesystem           1K-blocks      Used Available Use% Mounted on
/dev/root                 4352      4352         0 100% /rom
tmpfs                    60868       128     60740   0% /tmp
/dev/ubiblock0_1_overlay_long_name
                         88440      2108     81740   3% /overlay
overlayfs:/overlay       88440      2108     81740   3% /
tmpfs                      512         0       512   0% /dev
`;

/** /proc/meminfo of the 256 MB MT7621 router on OpenWrt 23.05 (kernel 5.15). */
const MEMINFO = `MemTotal:         248344 kB
MemFree:          171240 kB
MemAvailable:     158012 kB
Buffers:            4100 kB
Cached:            16844 kB
SwapCached:            0 kB
Active:            13756 kB
Inactive:          11032 kB
Shmem:              1244 kB
`;

/** A kernel before 3.14: no MemAvailable. */
const OLD_MEMINFO = `MemTotal:         126452 kB
MemFree:           82116 kB
Buffers:            3292 kB
Cached:            12224 kB
`;

describe('reading the router', () => {
  it('reads Available of /tmp from busybox df -k', () => {
    expect(parseDfAvailableBytes(DF_TMP)).toBe(122_940 * 1024);
    expect(parseDfAvailableBytes(DF_ALL)).toBe(60_740 * 1024);
    expect(parseDfAvailableBytes(DF_ALL, '/overlay')).toBe(81_740 * 1024);
    expect(parseDfAvailableBytes('df: /tmp: No such file or directory\n')).toBeNull();
    expect(parseDfAvailableBytes('')).toBeNull();
  });

  it('reads MemAvailable, or MemFree + Cached on an old kernel', () => {
    expect(parseMemAvailableBytes(MEMINFO)).toBe(158_012 * 1024);
    expect(parseMemAvailableBytes(OLD_MEMINFO)).toBe((82_116 + 12_224) * 1024);
    expect(parseMemAvailableBytes('nothing here')).toBeNull();
  });
});

describe('room for an image', () => {
  const room = { tmpAvailableBytes: parseDfAvailableBytes(DF_TMP), memAvailableBytes: parseMemAvailableBytes(MEMINFO) };

  it('accepts a 7 MB image on a 256 MB router', () => {
    expect(checkRoom(7 * MIB, room)).toMatchObject({ ok: true });
  });

  it('refuses when /tmp cannot hold the image and sysupgrade working room', () => {
    const tight = { ...room, tmpAvailableBytes: 20 * MIB };
    expect(checkRoom(20 * MIB - TMP_HEADROOM_BYTES + 1, tight)).toMatchObject({ ok: false });
    expect(checkRoom(20 * MIB - TMP_HEADROOM_BYTES, tight).ok).toBe(true);
    expect(checkRoom(64 * MIB, { ...room, tmpAvailableBytes: 60 * MIB }).reason).toMatch(/\/tmp has 60\.0 MiB free/);
  });

  it('refuses when the image would leave the router short of memory', () => {
    const lowMemory = { tmpAvailableBytes: 60 * MIB, memAvailableBytes: 40 * MIB };
    const image = 40 * MIB - TMP_HEADROOM_BYTES - MEMORY_RESERVE_BYTES;
    expect(checkRoom(image, lowMemory).ok).toBe(true);
    const refused = checkRoom(image + 1, lowMemory);
    expect(refused.ok).toBe(false);
    expect(refused.reason).toMatch(/Memory: 40\.0 MiB available/);
  });

  it('refuses when either figure is unknown', () => {
    expect(checkRoom(MIB, { ...room, tmpAvailableBytes: null }).reason).toMatch(/\/tmp is not known/);
    expect(checkRoom(MIB, { ...room, memAvailableBytes: null }).reason).toMatch(/memory is not known/);
  });
});
