import { describe, expect, it } from 'vitest';
import {
  checkFirmware,
  defaultFirmwareFields,
  describeWindow,
  isTimeZone,
} from '../../../web-admin/src/pages/rollouts/firmware-fields.js';

const SHA = 'a'.repeat(64);

describe("the rollout form's firmware fields", () => {
  it('keeps the configuration and refuses downgrades by default, with no window', () => {
    const fields = defaultFirmwareFields(SHA);
    expect(fields).toMatchObject({ image: SHA, keepConfig: true, allowDowngrade: false, windowOn: false });
    expect(checkFirmware(fields)).toEqual({
      ok: true,
      firmware: { image: SHA, keepConfig: true, allowDowngrade: false },
    });
  });

  it('asks for an image', () => {
    expect(checkFirmware(defaultFirmwareFields(''))).toEqual({ ok: false, errors: { image: 'choose an image' } });
  });

  it('sends a window only when asked, checked as the controller checks it', () => {
    const fields = { ...defaultFirmwareFields(SHA), windowOn: true, windowStart: '22:00', windowEnd: '04:30' };
    expect(checkFirmware({ ...fields, timeZone: 'Europe/Paris' })).toEqual({
      ok: true,
      firmware: {
        image: SHA,
        keepConfig: true,
        allowDowngrade: false,
        window: { start: '22:00', end: '04:30', timeZone: 'Europe/Paris' },
      },
    });
    const bad = checkFirmware({ ...fields, windowStart: '24:00', windowEnd: '4:30', timeZone: 'Mars/Olympus' });
    expect(bad).toEqual({
      ok: false,
      errors: {
        windowStart: 'a time of day, HH:MM',
        windowEnd: 'a time of day, HH:MM',
        timeZone: 'an IANA time zone, e.g. Europe/Paris or UTC',
      },
    });
    // A bad window is not checked while none is asked for.
    expect(checkFirmware({ ...fields, windowOn: false, timeZone: 'nowhere' }).ok).toBe(true);
  });

  it('knows the IANA zones', () => {
    expect(isTimeZone('UTC')).toBe(true);
    expect(isTimeZone('America/Argentina/Buenos_Aires')).toBe(true);
    expect(isTimeZone('Mars/Olympus')).toBe(false);
    expect(isTimeZone('')).toBe(false);
    expect(isTimeZone('Europe/Paris; drop')).toBe(false);
  });

  it('says a window in words: overnight, all day', () => {
    expect(describeWindow({ start: '02:00', end: '05:00', timeZone: 'UTC' })).toBe('02:00–05:00 UTC');
    expect(describeWindow({ start: '22:00', end: '04:00', timeZone: 'Europe/Paris' })).toBe(
      '22:00–04:00 Europe/Paris, overnight',
    );
    expect(describeWindow({ start: '00:00', end: '00:00', timeZone: 'UTC' })).toBe('all day (UTC)');
  });
});
