import { Type, type Static } from '@sinclair/typebox';
import { FirmwareStep } from '../../prisma/generated/client/enums.js';
import { prismaEnumValues } from '../storage/prisma-enums.js';

/** The steps of a router's upgrade, as the database, the API and FirmwareProgress name them. */
export const FIRMWARE_STEPS = prismaEnumValues(FirmwareStep);

/**
 * How a firmware rollout upgrades each router: keep the configuration or not, whether a
 * downgrade is allowed, the maintenance window in which an upgrade may start, and the two
 * deadlines of a router's upgrade (progress before the flash, the router's return after it).
 */
const TIME_OF_DAY = '^([01][0-9]|2[0-3]):[0-5][0-9]$';

export const MaintenanceWindowSchema = Type.Object(
  {
    start: Type.String({ pattern: TIME_OF_DAY, description: 'Time of day the window opens, HH:MM' }),
    end: Type.String({
      pattern: TIME_OF_DAY,
      description: 'Time of day it closes, HH:MM; before `start`: the window spans midnight',
    }),
    timeZone: Type.String({
      minLength: 1,
      maxLength: 64,
      default: 'UTC',
      description: 'IANA time zone of start and end, e.g. Europe/Paris',
    }),
  },
  {
    additionalProperties: false,
    description:
      "A router's upgrade starts only inside the window; one started before it closes runs to its end. A batch " +
      'whose window is closed waits for the next opening.',
  },
);

const fields = {
  keepConfig: Type.Boolean({
    default: true,
    description:
      "Keep the router's configuration (sysupgrade without -n). false: `sysupgrade -n`, needed when the image's " +
      "compat_version differs from the router's (a major change is refused outright, as sysupgrade does). The " +
      "agent's files are listed in /etc/sysupgrade.conf: only a kept configuration keeps the agent and its credentials",
  }),
  allowDowngrade: Type.Boolean({ default: false, description: 'Allow an image older than the release a router runs' }),
  window: Type.Optional(MaintenanceWindowSchema),
  stepTimeoutSeconds: Type.Integer({
    minimum: 30,
    maximum: 86_400,
    default: 300,
    description:
      'A router that reports no progress for this long before flashing counts as failed (a transfer reports its ' +
      'bytes at least every 10 % of the image)',
  }),
  confirmTimeoutSeconds: Type.Integer({
    minimum: 60,
    maximum: 86_400,
    default: 900,
    description:
      'A router that started flashing and has not come back (a Hello with a new boot id) within this is `unconfirmed`',
  }),
};

export const FirmwareOptionsSchema = Type.Object(fields, { additionalProperties: false });
export type FirmwareOptions = Static<typeof FirmwareOptionsSchema>;
export type MaintenanceWindow = Static<typeof MaintenanceWindowSchema>;

/** What a request may send: every field optional (spelled out, see StrategyInputSchema). */
const firmwareOptionsInputFields = {
  keepConfig: Type.Optional(fields.keepConfig),
  allowDowngrade: Type.Optional(fields.allowDowngrade),
  window: Type.Optional(MaintenanceWindowSchema),
  stepTimeoutSeconds: Type.Optional(fields.stepTimeoutSeconds),
  confirmTimeoutSeconds: Type.Optional(fields.confirmTimeoutSeconds),
};
export const FirmwareOptionsInputSchema = Type.Object(firmwareOptionsInputFields, { additionalProperties: false });

/** Lowercase hex SHA-256: how the API names a firmware image. */
export const SHA256_PATTERN = '^[0-9a-f]{64}$';

/**
 * A rollout's `firmware`: the image and how to install it. Built with this module's TypeBox: the
 * optional marks of the fields do not survive a spread into the route's own TypeBox.
 */
export const FirmwareRolloutSchema = Type.Object(
  {
    image: Type.String({ pattern: SHA256_PATTERN, description: "The image's SHA-256 (GET /v1/firmware/images)" }),
    ...firmwareOptionsInputFields,
  },
  { additionalProperties: false },
);

export const DEFAULT_FIRMWARE_OPTIONS: FirmwareOptions = {
  keepConfig: true,
  allowDowngrade: false,
  stepTimeoutSeconds: 300,
  confirmTimeoutSeconds: 900,
};

/** The options a rollout stored, with the defaults it runs with. */
export function firmwareOptionsOf(stored: unknown): FirmwareOptions {
  return { ...DEFAULT_FIRMWARE_OPTIONS, ...(stored as Partial<FirmwareOptions> | null) };
}

/** Whether `timeZone` is one Intl knows; the API refuses others with a 400 naming the field. */
export function knownTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return true;
  } catch {
    return false;
  }
}

const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/** Minutes since midnight (with the fraction) at `now` in `timeZone`. */
function minuteOfDay(now: Date, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-GB', {
    timeZone,
    hourCycle: 'h23',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(now);
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  return get('hour') * 60 + get('minute') + get('second') / 60;
}

/**
 * Milliseconds until the window opens at `now`: 0 inside it or without one. A window whose
 * end is before its start spans midnight; start = end is open all day.
 */
export function msUntilWindow(window: MaintenanceWindow | undefined, now: Date): number {
  if (!window) return 0;
  const start = minutesOf(window.start);
  const end = minutesOf(window.end);
  if (start === end) return 0;
  const at = minuteOfDay(now, window.timeZone ?? 'UTC');
  const inside = start < end ? at >= start && at < end : at >= start || at < end;
  if (inside) return 0;
  const wait = (start - at + 1440) % 1440;
  // A day's length in minutes, ignoring a DST change inside the wait (the sweep wakes it anyway).
  return Math.max(1000, Math.ceil(wait * 60_000));
}
