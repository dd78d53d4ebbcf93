/**
 * The firmware half of the rollout form as the operator types it (the image, keep
 * configuration, allow downgrade, a maintenance window) and as POST /v1/rollouts takes it.
 * Checked with the controller's rules, so the form says what is wrong before anything is sent.
 */

export interface FirmwareFields {
  /** The image's SHA-256; empty until one is chosen. */
  image: string;
  keepConfig: boolean;
  allowDowngrade: boolean;
  /** A maintenance window is asked for. */
  windowOn: boolean;
  windowStart: string;
  windowEnd: string;
  timeZone: string;
}

export interface FirmwareRequest {
  image: string;
  keepConfig: boolean;
  allowDowngrade: boolean;
  window?: { start: string; end: string; timeZone: string };
}

export type FirmwareCheck =
  { ok: true; firmware: FirmwareRequest } | { ok: false; errors: Partial<Record<keyof FirmwareFields, string>> };

/** The browser's own time zone, or UTC when it does not say. */
export function localTimeZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  } catch {
    return 'UTC';
  }
}

export function defaultFirmwareFields(image = ''): FirmwareFields {
  return {
    image,
    keepConfig: true,
    allowDowngrade: false,
    windowOn: false,
    windowStart: '02:00',
    windowEnd: '05:00',
    timeZone: localTimeZone(),
  };
}

const TIME_OF_DAY = /^([01][0-9]|2[0-3]):[0-5][0-9]$/;

/** An IANA zone the browser knows ("Europe/Paris", "UTC"). */
export function isTimeZone(zone: string): boolean {
  if (!/^[A-Za-z0-9_+\-/]{1,64}$/.test(zone)) return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

export function checkFirmware(fields: FirmwareFields): FirmwareCheck {
  const errors: Partial<Record<keyof FirmwareFields, string>> = {};
  if (!/^[0-9a-f]{64}$/.test(fields.image)) errors.image = 'choose an image';
  const start = fields.windowStart.trim();
  const end = fields.windowEnd.trim();
  const zone = fields.timeZone.trim();
  if (fields.windowOn) {
    if (!TIME_OF_DAY.test(start)) errors.windowStart = 'a time of day, HH:MM';
    if (!TIME_OF_DAY.test(end)) errors.windowEnd = 'a time of day, HH:MM';
    if (!isTimeZone(zone)) errors.timeZone = 'an IANA time zone, e.g. Europe/Paris or UTC';
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return {
    ok: true,
    firmware: {
      image: fields.image,
      keepConfig: fields.keepConfig,
      allowDowngrade: fields.allowDowngrade,
      ...(fields.windowOn ? { window: { start, end, timeZone: zone } } : {}),
    },
  };
}

/** "02:00–05:00 Europe/Paris", saying when it spans midnight; start = end is open all day (as the controller reads it). */
export function describeWindow(window: { start: string; end: string; timeZone: string }): string {
  if (window.start === window.end) return `all day (${window.timeZone})`;
  const overnight = window.end < window.start ? ', overnight' : '';
  return `${window.start}–${window.end} ${window.timeZone}${overnight}`;
}
