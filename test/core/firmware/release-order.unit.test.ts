import { describe, expect, it } from 'vitest';
import { compareReleases, revisionNumber } from '../../../core/firmware/index.js';

const release = (name: string, revision: string | null = null) => ({ release: name, revision });

describe('ordering OpenWrt releases', () => {
  it('orders numbered releases, a release candidate before its release', () => {
    const ordered = ['21.02.1', '21.02.7', '22.03.0-rc1', '22.03.0-rc6', '22.03.0', '23.05.3', '24.10.0', '24.10.1'];
    for (let index = 1; index < ordered.length; index += 1) {
      const older = release(ordered[index - 1] as string);
      const newer = release(ordered[index] as string);
      expect(compareReleases(older, newer), `${older.release} < ${newer.release}`).toBe(-1);
      expect(compareReleases(newer, older)).toBe(1);
    }
    expect(compareReleases(release('23.05.3'), release('23.05.3'))).toBe(0);
  });

  it('orders two builds of one release by revision, and calls them equal without revisions', () => {
    expect(compareReleases(release('23.05.3', 'r23809-234f1a2efa'), release('23.05.3', 'r23800-aaaa'))).toBe(1);
    expect(compareReleases(release('23.05.3', 'r23809-234f1a2efa'), release('23.05.3', null))).toBe(0);
  });

  it('orders snapshots by the r-number of their revision', () => {
    expect(compareReleases(release('SNAPSHOT', 'r28500-0123456789'), release('SNAPSHOT', 'r28427-6df0e3d02a'))).toBe(1);
    expect(compareReleases(release('SNAPSHOT', 'r27000-aa'), release('24.10.0', 'r28427-6df0e3d02a'))).toBe(-1);
    expect(compareReleases(release('23.05-SNAPSHOT', 'r23900-bb'), release('23.05.3', 'r23809-cc'))).toBe(1);
  });

  it('cannot order a snapshot without a revision, or a release it cannot read', () => {
    expect(compareReleases(release('SNAPSHOT'), release('SNAPSHOT', 'r1-a'))).toBeNull();
    expect(compareReleases(release('SNAPSHOT', 'unknown'), release('24.10.0', 'r28427-6df0e3d02a'))).toBeNull();
    expect(compareReleases(release('chaos-calmer'), release('24.10.0'))).toBeNull();
    expect(compareReleases({ release: null, revision: null }, release('24.10.0'))).toBeNull();
  });

  it('reads r-numbers', () => {
    expect(revisionNumber('r28427-6df0e3d02a')).toBe(28427);
    expect(revisionNumber('r5')).toBe(5);
    expect(revisionNumber('6df0e3d02a')).toBeNull();
    expect(revisionNumber(null)).toBeNull();
  });
});
