/**
 * What a rollout carries, in words: a profile revision ("mt7621-hw@2") or a firmware image
 * ("firmware 23.05.5 (r24106-…) · openwrt-…-sysupgrade.bin").
 */
import { releaseLabel } from '../firmware/firmware-format.js';

export interface RolloutCarrying {
  kind: string;
  profile: string | null;
  revision: number | null;
  firmware: { fileName: string; release: string; revision: string } | null;
}

export function rolloutSubject(r: RolloutCarrying): string {
  if (r.kind === 'firmware' && r.firmware) {
    return `firmware ${releaseLabel(r.firmware.release, r.firmware.revision)} · ${r.firmware.fileName}`;
  }
  return `${r.profile ?? '?'}@${r.revision ?? '?'}`;
}

/** The routers it succeeded on: applied (profile) or upgraded (firmware). */
export function succeededCount(counts: Partial<Record<string, number>>): number {
  return (counts.applied ?? 0) + (counts.upgraded ?? 0);
}

/** The routers it failed on: failed or rolled back. Unconfirmed ones are counted apart. */
export function failedCount(counts: Partial<Record<string, number>>): number {
  return (counts.failed ?? 0) + (counts.rolled_back ?? 0);
}
