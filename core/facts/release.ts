import type { OpenWrtRelease, OtherOs } from './types.js';

/**
 * Which OS and OpenWrt release the router runs, from (in order of trust):
 *  - /etc/os-release -> /usr/lib/os-release (OpenWrt 17.01+): VERSION_ID, OPENWRT_BOARD,
 *    OPENWRT_ARCH, BUILD_ID;
 *  - /etc/openwrt_release (every release, the only one some old builds have):
 *    DISTRIB_RELEASE, DISTRIB_TARGET, DISTRIB_ARCH, DISTRIB_REVISION;
 *  - `ubus call system board` .release (needs procd running; parsed in ubus-board.ts).
 */

/** Shell-style KEY=value / KEY="value" / KEY='value' lines, as both files are written. */
export function parseShellAssignments(text: string): Map<string, string> {
  const values = new Map<string, string>();
  for (const line of text.split('\n')) {
    const match = /^\s*([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line);
    if (!match) continue;
    let value = (match[2] ?? '').trim();
    const quote = value[0];
    if ((quote === '"' || quote === "'") && value.endsWith(quote) && value.length >= 2) value = value.slice(1, -1);
    values.set(match[1] as string, value);
  }
  return values;
}

export type OsIdentity = { kind: 'openwrt'; release: Partial<OpenWrtRelease> } | { kind: 'other'; os: OtherOs };

const nonEmpty = (value: string | undefined): string | null => (value && value.trim() !== '' ? value.trim() : null);

/** os-release: OpenWrt itself or a derivative declaring ID_LIKE=openwrt (ImmortalWrt...). */
export function parseOsRelease(text: string, source: string): OsIdentity | null {
  const values = parseShellAssignments(text);
  const id = nonEmpty(values.get('ID'))?.toLowerCase() ?? null;
  if (id === null) return null;
  const like = (values.get('ID_LIKE') ?? '').toLowerCase().split(/\s+/);
  const isOpenWrt = id === 'openwrt' || like.includes('openwrt') || values.has('OPENWRT_BOARD');
  if (!isOpenWrt) {
    return {
      kind: 'other',
      os: {
        id,
        name: nonEmpty(values.get('PRETTY_NAME')) ?? nonEmpty(values.get('NAME')),
        version: nonEmpty(values.get('VERSION_ID')),
      },
    };
  }
  const revision = nonEmpty(values.get('BUILD_ID'));
  return {
    kind: 'openwrt',
    release: {
      distribution: nonEmpty(values.get('NAME')) ?? 'OpenWrt',
      // VERSION keeps the upper-case "SNAPSHOT" that VERSION_ID lowers.
      release: nonEmpty(values.get('VERSION')) ?? nonEmpty(values.get('VERSION_ID')) ?? undefined,
      target: nonEmpty(values.get('OPENWRT_BOARD')),
      revision,
      arch: nonEmpty(values.get('OPENWRT_ARCH')),
      source,
    },
  };
}

/** /etc/openwrt_release (DISTRIB_*), the only release file on some pre-18.06 builds. */
export function parseOpenwrtRelease(text: string, source: string): Partial<OpenWrtRelease> | null {
  const values = parseShellAssignments(text);
  const version = nonEmpty(values.get('DISTRIB_RELEASE'));
  const target = nonEmpty(values.get('DISTRIB_TARGET'));
  if (version === null && target === null) return null;
  return {
    distribution: nonEmpty(values.get('DISTRIB_ID')) ?? 'OpenWrt',
    release: version ?? undefined,
    target,
    revision: nonEmpty(values.get('DISTRIB_REVISION')),
    arch: nonEmpty(values.get('DISTRIB_ARCH')),
    source,
  };
}

/** Release versions look like 23.05.3, 24.10.0-rc4, 23.05-SNAPSHOT or SNAPSHOT. */
export interface OpenWrtVersion {
  major: number;
  minor: number;
  patch: number;
  /** Trunk snapshot builds are newer than every numbered release. */
  snapshot: boolean;
}

export function parseOpenWrtVersion(version: string | null | undefined): OpenWrtVersion | null {
  if (!version) return null;
  const text = version.trim();
  if (/^snapshot$/i.test(text)) return { major: Number.POSITIVE_INFINITY, minor: 0, patch: 0, snapshot: true };
  const match = /^(\d{2})\.(\d{2})(?:\.(\d+))?/.exec(text);
  if (!match) return null;
  return {
    major: Number(match[1]),
    minor: Number(match[2]),
    patch: match[3] === undefined ? 0 : Number(match[3]),
    snapshot: /snapshot/i.test(text),
  };
}

/** True when `version` is `minimum` ("22.03") or newer; null when the version cannot be read. */
export function openWrtAtLeast(version: string | null | undefined, minimum: string): boolean | null {
  const have = parseOpenWrtVersion(version);
  const want = parseOpenWrtVersion(minimum);
  if (!have || !want) return null;
  if (have.major !== want.major) return have.major > want.major;
  if (have.minor !== want.minor) return have.minor > want.minor;
  return have.patch >= want.patch;
}
