/**
 * The firmware flags of `firmware show` and `rollouts create --firmware`, turned into the API's
 * fields, and how an IMAGE argument names a stored image. Pure: no I/O, unit-tested on its own.
 */
import { ApiCallError } from './api-client.js';
import { intOpt, UsageError, type CliOptions } from './cli-context.js';

/** The API's maintenance window (server/firmware/firmware-options.ts, MaintenanceWindowSchema). */
export interface MaintenanceWindow {
  start: string;
  end: string;
  timeZone?: string;
}

const TIME_OF_DAY = /^([01][0-9]|2[0-3]):[0-5][0-9]$/;
const SHA256 = /^[0-9a-f]{64}$/;
const SHA256_PREFIX = /^[0-9a-f]{8,63}$/;

/**
 * `--window 02:00-05:00[@Europe/Paris]`: the times of day an upgrade may start, in the time zone
 * after "@" (the API's default, UTC, without one). An end before the start spans midnight.
 */
export function parseWindow(text: string): MaintenanceWindow {
  const at = text.indexOf('@');
  const range = at < 0 ? text : text.slice(0, at);
  const timeZone = at < 0 ? undefined : text.slice(at + 1);
  const [start, end, ...extra] = range.split('-');
  if (extra.length || !start || !end || !TIME_OF_DAY.test(start) || !TIME_OF_DAY.test(end))
    throw new UsageError(`--window must be HH:MM-HH:MM[@TIME_ZONE], e.g. 02:00-05:00@Europe/Paris; got "${text}"`);
  if (timeZone === undefined) return { start, end };
  if (!knownTimeZone(timeZone))
    throw new UsageError(`--window: "${timeZone}" is not an IANA time zone (e.g. UTC, Europe/Paris)`);
  return { start, end, timeZone };
}

/** Whether Intl knows the zone: the same test the controller makes, so the error comes early. */
function knownTimeZone(timeZone: string): boolean {
  if (timeZone === '') return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return true;
  } catch {
    return false;
  }
}

/**
 * --keep-config / --reset-config as the API's keepConfig: undefined when neither is given (the
 * API keeps the configuration by default).
 */
export function keepConfigFromOpts(opts: CliOptions): boolean | undefined {
  if (opts['keep-config'] && opts['reset-config'])
    throw new UsageError('give --keep-config or --reset-config, not both');
  if (opts['reset-config']) return false;
  if (opts['keep-config']) return true;
  return undefined;
}

/** The flags only a firmware rollout takes, by their spelling on the command line. */
export const FIRMWARE_ROLLOUT_FLAGS = [
  'keep-config',
  'reset-config',
  'allow-downgrade',
  'window',
  'step-timeout',
  'confirm-timeout',
] as const;

/** A firmware rollout's `firmware` object, but for the image, from the flags. */
export function firmwareOptionsFromOpts(opts: CliOptions): Record<string, unknown> {
  const options: Record<string, unknown> = {};
  const keepConfig = keepConfigFromOpts(opts);
  if (keepConfig !== undefined) options.keepConfig = keepConfig;
  if (opts['allow-downgrade']) options.allowDowngrade = true;
  if (opts.window !== undefined) options.window = parseWindow(opts.window);
  const step = intOpt('step-timeout', opts['step-timeout']);
  if (step !== undefined) options.stepTimeoutSeconds = step;
  const confirm = intOpt('confirm-timeout', opts['confirm-timeout']);
  if (confirm !== undefined) options.confirmTimeoutSeconds = confirm;
  return options;
}

/** Whether IMAGE is a whole SHA-256 (then no listing is needed to find it). */
export function isFullSha256(ref: string): boolean {
  return SHA256.test(ref.toLowerCase());
}

/**
 * The one image IMAGE names among `images`: its whole SHA-256, a prefix of at least 8 hex
 * characters, or its file name. Nothing matching is a not_found error (exit 1, as the API's own
 * 404 would be), more than one an `ambiguous_image` error naming the candidates: a usage error
 * would bury the list under the usage text.
 */
export function pickImage<T extends { sha256: string; fileName: string }>(images: T[], ref: string): T {
  const lower = ref.toLowerCase();
  const byPrefix =
    SHA256_PREFIX.test(lower) || SHA256.test(lower) ? images.filter((i) => i.sha256.startsWith(lower)) : [];
  const byName = images.filter((i) => i.fileName === ref);
  const matches = [...new Set([...byPrefix, ...byName])];
  if (matches.length === 1) return matches[0]!;
  if (matches.length === 0) {
    const hint = /^[0-9a-f]{1,7}$/i.test(ref) ? ' (a SHA-256 prefix needs at least 8 characters)' : '';
    throw new ApiCallError(404, 'not_found', `no firmware image "${ref}"${hint}; see wrtfleet firmware ls`);
  }
  throw new ApiCallError(
    0,
    'ambiguous_image',
    `"${ref}" names ${matches.length} firmware images; give more of the SHA-256:\n${matches
      .map((i) => `  ${i.sha256}  ${i.fileName}`)
      .join('\n')}`,
  );
}
