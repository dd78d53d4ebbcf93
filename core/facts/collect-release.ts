/**
 * Which release the router runs, read from the release files and merged with what ubus says:
 * the first source naming a field wins (parsing is in release.ts).
 */
import type { RouterHost } from '../host/router-host.js';
import type { FactRecord } from './fact-record.js';
import { parseOpenwrtRelease, parseOsRelease } from './release.js';
import { readTextFile } from './source.js';
import type { OpenWrtRelease, OtherOs } from './types.js';
import type { UbusBoard } from './ubus-board.js';

export interface ReleaseReads {
  candidates: Partial<OpenWrtRelease>[];
  other: OtherOs | null;
  reasons: string[];
}

export async function readRelease(host: RouterHost, record: FactRecord): Promise<ReleaseReads> {
  // /etc/os-release is a symlink to /usr/lib/os-release on OpenWrt; captures may hold either.
  const paths = ['/etc/os-release', '/usr/lib/os-release', '/etc/openwrt_release'] as const;
  const reads = await Promise.all(paths.map((path) => readTextFile(host, path)));
  const result: ReleaseReads = { candidates: [], other: null, reasons: [] };
  reads.forEach((read, index) => {
    if (!record.noteRead(read)) {
      result.reasons.push(read.reason);
      return;
    }
    if (paths[index] === '/etc/openwrt_release') {
      const release = parseOpenwrtRelease(read.value, read.source);
      if (release) result.candidates.push(release);
      else record.problem(`${read.source} has no DISTRIB_RELEASE or DISTRIB_TARGET`);
      return;
    }
    const identity = parseOsRelease(read.value, read.source);
    if (!identity) record.problem(`${read.source} has no ID=`);
    else if (identity.kind === 'openwrt') result.candidates.push(identity.release);
    else result.other ??= identity.os;
  });
  return result;
}

export function mergeRelease(
  record: FactRecord,
  release: ReleaseReads,
  ubus: UbusBoard | null,
): { openwrt: OpenWrtRelease | null; os: OtherOs | null } {
  const candidates = [...release.candidates];
  if (ubus?.release) candidates.push(ubus.release);
  const first = <K extends keyof OpenWrtRelease>(key: K): { value: OpenWrtRelease[K]; source: string } | null => {
    for (const candidate of candidates) {
      const value = candidate[key];
      if (value !== null && value !== undefined)
        return { value: value as OpenWrtRelease[K], source: candidate.source ?? '?' };
    }
    return null;
  };

  const version = first('release');
  if (!version) {
    const why = release.other
      ? `not OpenWrt: os-release says ${release.other.name ?? release.other.id}`
      : candidates.length > 0
        ? 'OpenWrt release files name no version'
        : `no OpenWrt release information (${[...release.reasons, ubus ? 'ubus has no release' : 'no ubus'].join('; ')})`;
    record.unknown('openwrt', why);
    record.unknown('target', why);
    if (release.other) record.evidence('os', 'os-release');
    return { openwrt: null, os: release.other };
  }

  const openwrt: OpenWrtRelease = {
    distribution: first('distribution')?.value ?? 'OpenWrt',
    release: version.value,
    target: first('target')?.value ?? null,
    revision: first('revision')?.value ?? null,
    arch: first('arch')?.value ?? null,
    source: version.source,
  };
  record.evidence('openwrt', version.source);
  const target = first('target');
  if (target) record.evidence('target', target.source);
  else record.unknown('target', 'OpenWrt release files and ubus name no target');
  return { openwrt, os: null };
}
