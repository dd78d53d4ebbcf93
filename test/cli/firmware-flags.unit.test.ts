import { describe, expect, it } from 'vitest';
import { ApiCallError } from '../../cli/api-client.js';
import { parseCommandLine, UsageError } from '../../cli/cli-context.js';
import { firmwareOptionsFromOpts, isFullSha256, parseWindow, pickImage } from '../../cli/firmware-flags.js';

const opts = (...args: string[]) => parseCommandLine(args).values;

describe('--window', () => {
  it('reads HH:MM-HH:MM, with the time zone after @ when given', () => {
    expect(parseWindow('02:00-05:00')).toEqual({ start: '02:00', end: '05:00' });
    expect(parseWindow('22:30-04:15@Europe/Paris')).toEqual({ start: '22:30', end: '04:15', timeZone: 'Europe/Paris' });
    expect(parseWindow('00:00-23:59@UTC')).toEqual({ start: '00:00', end: '23:59', timeZone: 'UTC' });
  });

  it.each(['2:00-05:00', '02:00', '02:00-24:00', '02:60-03:00', '02:00-03:00-04:00', '-03:00', '02:00-05:00@'])(
    'refuses "%s" as a usage error',
    (text) => expect(() => parseWindow(text)).toThrow(UsageError),
  );

  it('refuses a time zone Intl does not know, naming it', () => {
    expect(() => parseWindow('02:00-05:00@Mars/Olympus')).toThrow(/"Mars\/Olympus" is not an IANA time zone/);
  });
});

describe('firmware rollout options from the flags', () => {
  it('sends only what was given, in the API field names', () => {
    expect(firmwareOptionsFromOpts(opts())).toEqual({});
    expect(
      firmwareOptionsFromOpts(
        opts(
          '--reset-config',
          '--allow-downgrade',
          '--window',
          '01:00-03:00@Asia/Tokyo',
          '--step-timeout',
          '600',
          '--confirm-timeout',
          '1200',
        ),
      ),
    ).toEqual({
      keepConfig: false,
      allowDowngrade: true,
      window: { start: '01:00', end: '03:00', timeZone: 'Asia/Tokyo' },
      stepTimeoutSeconds: 600,
      confirmTimeoutSeconds: 1200,
    });
    expect(firmwareOptionsFromOpts(opts('--keep-config'))).toEqual({ keepConfig: true });
  });

  it('refuses --keep-config with --reset-config, and a timeout that is not an integer', () => {
    expect(() => firmwareOptionsFromOpts(opts('--keep-config', '--reset-config'))).toThrow(/not both/);
    expect(() => firmwareOptionsFromOpts(opts('--step-timeout', 'soon'))).toThrow(/--step-timeout must be an integer/);
  });
});

describe('IMAGE: a SHA-256, a prefix of it, or a file name', () => {
  const a = { sha256: `abcdef01${'1'.repeat(56)}`, fileName: 'openwrt-mt7621.bin' };
  const b = { sha256: `abcdef01${'2'.repeat(56)}`, fileName: 'openwrt-ath79.bin' };
  const c = { sha256: `abcdef01${'3'.repeat(56)}`, fileName: 'openwrt-ath79.bin' };

  it('finds the image by its whole SHA-256, a unique prefix of 8 or more, or a unique file name', () => {
    expect(isFullSha256(a.sha256)).toBe(true);
    expect(isFullSha256(a.sha256.slice(0, 63))).toBe(false);
    expect(pickImage([a, b], a.sha256)).toBe(a);
    expect(pickImage([a, b], `abcdef012`)).toBe(b);
    expect(pickImage([a, b], `ABCDEF011`)).toBe(a);
    expect(pickImage([a, b], 'openwrt-mt7621.bin')).toBe(a);
  });

  it('names the candidates when IMAGE is ambiguous', () => {
    const prefix = (() => {
      try {
        pickImage([a, b], 'abcdef01');
      } catch (err) {
        return err as ApiCallError;
      }
    })();
    expect(prefix).toBeInstanceOf(ApiCallError);
    expect(prefix!.code).toBe('ambiguous_image');
    expect(prefix!.message).toContain(a.sha256);
    expect(prefix!.message).toContain(b.sha256);
    expect(() => pickImage([a, b, c], 'openwrt-ath79.bin')).toThrow(/names 2 firmware images/);
  });

  it('says when nothing matches, and that a prefix shorter than 8 is not taken', () => {
    expect(() => pickImage([a], 'nope.bin')).toThrow(/no firmware image "nope.bin"/);
    expect(() => pickImage([a], 'abcdef0')).toThrow(/at least 8 characters/);
  });
});
