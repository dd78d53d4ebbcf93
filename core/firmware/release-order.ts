/**
 * Ordering OpenWrt releases, to tell an upgrade from a downgrade. A numbered release is
 * MAJOR.MINOR.PATCH with an optional -rcN, and a release candidate comes before its release:
 * 21.02.1 < 21.02.7 < 22.03.0-rc1 < 22.03.0 < 23.05.3 < 24.10.0. A snapshot ("SNAPSHOT", or a
 * branch's "23.05-SNAPSHOT") has no number of its own, so snapshots are ordered by the r-number
 * of their revision ("r23456-abcdef0123": the count of commits behind the build), which also
 * orders two builds of the same release. Anything else cannot be ordered: null.
 */

export interface ReleaseRef {
  /** "24.10.0", "22.03.0-rc1", "SNAPSHOT", "23.05-SNAPSHOT". */
  release: string | null;
  /** "r28427-6df0e3d02a". */
  revision: string | null;
}

type ParsedRelease = { kind: 'numbered'; parts: [number, number, number, number] } | { kind: 'snapshot' };

/** A final release sorts after every release candidate of the same number. */
const FINAL_RELEASE_RANK = Number.MAX_SAFE_INTEGER;

function parseRelease(release: string | null): ParsedRelease | null {
  if (release === null) return null;
  const text = release.trim();
  if (/^(\d+\.\d+-)?SNAPSHOT$/i.test(text)) return { kind: 'snapshot' };
  const match = /^(\d+)\.(\d+)(?:\.(\d+))?(?:-rc(\d+))?$/i.exec(text);
  if (!match) return null;
  const rank = match[4] === undefined ? FINAL_RELEASE_RANK : Number(match[4]);
  return { kind: 'numbered', parts: [Number(match[1]), Number(match[2]), Number(match[3] ?? 0), rank] };
}

/** The r-number of "r23456-abcdef" (or a bare "r23456"), or null. */
export function revisionNumber(revision: string | null): number | null {
  const match = revision === null ? null : /^r(\d+)(?:[-+~].*)?$/.exec(revision.trim());
  return match ? Number(match[1]) : null;
}

/**
 * Negative when a is older than b, positive when newer, 0 when the same build (or the same
 * release with revisions that cannot be compared); null when the two cannot be ordered (an
 * unknown release spelling, or a snapshot without an r-number on either side).
 */
export function compareReleases(a: ReleaseRef, b: ReleaseRef): number | null {
  const left = parseRelease(a.release);
  const right = parseRelease(b.release);
  if (left === null || right === null) return null;
  const leftRevision = revisionNumber(a.revision);
  const rightRevision = revisionNumber(b.revision);
  if (left.kind === 'snapshot' || right.kind === 'snapshot') {
    if (leftRevision === null || rightRevision === null) return null;
    return Math.sign(leftRevision - rightRevision);
  }
  for (let index = 0; index < 4; index += 1) {
    const difference = (left.parts[index] as number) - (right.parts[index] as number);
    if (difference !== 0) return Math.sign(difference);
  }
  if (leftRevision === null || rightRevision === null) return 0;
  return Math.sign(leftRevision - rightRevision);
}
