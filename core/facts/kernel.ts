/**
 * Kernel release strings and their comparison. Releases come as "5.15.150", "6.6.110",
 * "6.12" (no patch level), "4.14.275", or distribution-suffixed "6.1.0-18-amd64"; only the
 * numeric x.y.z prefix matters for feature gates (eBPF >= 5.15, TCX >= 6.6). Compared as
 * numbers, never as strings ("6.12" > "6.6.110", "5.4" < "5.15").
 */
export interface KernelVersion {
  major: number;
  minor: number;
  patch: number;
}

const KERNEL_RELEASE = /^(\d+)\.(\d+)(?:\.(\d+))?(?:[-+~_.][0-9A-Za-z._+~-]*)?$/;

/** A well-formed kernel release string (what `uname -r` prints); null for garbage. */
export function normalizeKernelRelease(text: string | null | undefined): string | null {
  const release =
    text
      // eslint-disable-next-line no-control-regex -- this drops NUL bytes, which a NUL-padded source leaves
      ?.replace(/\u0000/g, '')
      .trim()
      .split(/\s+/)[0] ?? '';
  return KERNEL_RELEASE.test(release) ? release : null;
}

export function parseKernelVersion(release: string | null | undefined): KernelVersion | null {
  if (!release) return null;
  const match = /^(\d+)\.(\d+)(?:\.(\d+))?/.exec(release.trim());
  if (!match) return null;
  return { major: Number(match[1]), minor: Number(match[2]), patch: match[3] === undefined ? 0 : Number(match[3]) };
}

/** Negative when a < b, zero when equal, positive when a > b. */
export function compareKernelVersions(a: KernelVersion, b: KernelVersion): number {
  return a.major - b.major || a.minor - b.minor || a.patch - b.patch;
}

/** True when `release` is `minimum` ("5.15") or newer; null when the release is unreadable. */
export function kernelAtLeast(release: string | null | undefined, minimum: string): boolean | null {
  const have = parseKernelVersion(release);
  const want = parseKernelVersion(minimum);
  if (!have || !want) return null;
  return compareKernelVersions(have, want) >= 0;
}

/** `/proc/version`: "Linux version 5.15.150 (builder@buildhost) ..." */
export function kernelFromProcVersion(text: string): string | null {
  const match = /^Linux version (\S+)/.exec(text.trim());
  return match ? normalizeKernelRelease(match[1]) : null;
}
