/**
 * How the console says a firmware image: its size, its release, how much of the fleet it fits,
 * and what to do about a refused upload. Pure, shared by the Firmware and Rollouts pages.
 */

const UNITS = ['KiB', 'MiB', 'GiB'] as const;

/** 512 → "512 B", 1536 → "1.5 KiB", 7_864_320 → "7.5 MiB". */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 1024) return `${Math.max(0, Math.round(bytes || 0))} B`;
  let value = bytes;
  let unit = -1;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  const shown = value >= 100 ? Math.round(value).toString() : (Math.round(value * 10) / 10).toString();
  return `${shown} ${UNITS[unit]}`;
}

/** "23.05.5 (r24106-10cc5fcd00)"; the revision alone is left out when it is empty. */
export function releaseLabel(release: string, revision: string | null | undefined): string {
  return revision ? `${release} (${revision})` : release;
}

export interface FitCounts {
  routers: number;
  fits: number;
  configReset: number;
}

/** "fits 4 of 12 routers"; "fits no router (0 judged)" on an empty fleet. */
export function fitLabel(fit: FitCounts): string {
  if (fit.routers === 0) return 'fits no router (the fleet is empty)';
  return `fits ${fit.fits} of ${fit.routers} ${fit.routers === 1 ? 'router' : 'routers'}`;
}

/** Of those it fits, how many need `sysupgrade -n`; null when none do. */
export function configResetLabel(fit: FitCounts): string | null {
  if (fit.configReset === 0) return null;
  return `${fit.configReset} ${fit.configReset === 1 ? 'needs' : 'need'} a configuration reset`;
}

/**
 * What the operator can do about a refused upload, by the refusal's code (the 422's
 * details[0].message); null for a code this console does not know (the controller's message
 * still says why).
 */
const ADVICE: Readonly<Record<string, string>> = {
  no_metadata:
    'This file carries no fwtool metadata: it is not an OpenWrt sysupgrade image. Upload the "…-sysupgrade.bin" (or ".itb") file of the release.',
  factory_image:
    'This is a factory image, the file for a first install from the vendor firmware. Upload the sysupgrade image of the same release instead.',
  truncated: 'The file ends early: the download or copy was cut. Fetch the image again and compare its SHA-256.',
  bad_crc: "The metadata's checksum does not match: the file is damaged. Fetch the image again.",
  bad_metadata: "The image's metadata cannot be used (not the JSON OpenWrt writes). Use an image built by OpenWrt.",
  empty: 'The file is empty.',
};

export function refusalAdvice(code: string | null | undefined): string | null {
  return code ? (ADVICE[code] ?? null) : null;
}

/** A failure's refusal code, when it is the controller refusing an image (422 firmware_image_refused). */
export function refusalCodeOf(failure: {
  code: string;
  details: readonly { message?: string | null }[];
}): string | null {
  if (failure.code !== 'firmware_image_refused') return null;
  return failure.details[0]?.message ?? null;
}

/** Bytes on the router so far, of the image's size when known: "1.2 MiB of 7.5 MiB (16%)". */
export function transferLabel(bytesDone: number, sizeBytes: number | null | undefined): string {
  if (!sizeBytes || sizeBytes <= 0) return formatBytes(bytesDone);
  const percent = Math.min(100, Math.floor((bytesDone / sizeBytes) * 100));
  return `${formatBytes(bytesDone)} of ${formatBytes(sizeBytes)} (${percent}%)`;
}
