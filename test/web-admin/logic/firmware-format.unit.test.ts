import { describe, expect, it } from 'vitest';
import {
  configResetLabel,
  fitLabel,
  formatBytes,
  refusalAdvice,
  refusalCodeOf,
  releaseLabel,
  transferLabel,
} from '../../../web-admin/src/pages/firmware/firmware-format.js';

describe('how the console says a firmware image', () => {
  it('sizes in binary units, one decimal below 100', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(1023)).toBe('1023 B');
    expect(formatBytes(1536)).toBe('1.5 KiB');
    expect(formatBytes(7_864_320)).toBe('7.5 MiB');
    expect(formatBytes(150 * 1024 * 1024)).toBe('150 MiB');
    expect(formatBytes(3 * 1024 ** 4)).toBe('3072 GiB');
    expect(formatBytes(Number.NaN)).toBe('0 B');
  });

  it('names the release with its revision', () => {
    expect(releaseLabel('23.05.5', 'r24106-10cc5fcd00')).toBe('23.05.5 (r24106-10cc5fcd00)');
    expect(releaseLabel('SNAPSHOT', '')).toBe('SNAPSHOT');
  });

  it('says how much of the fleet it fits and how many need a reset', () => {
    expect(fitLabel({ routers: 12, fits: 4, configReset: 0 })).toBe('fits 4 of 12 routers');
    expect(fitLabel({ routers: 1, fits: 0, configReset: 0 })).toBe('fits 0 of 1 router');
    expect(fitLabel({ routers: 0, fits: 0, configReset: 0 })).toBe('fits no router (the fleet is empty)');
    expect(configResetLabel({ routers: 12, fits: 4, configReset: 0 })).toBeNull();
    expect(configResetLabel({ routers: 12, fits: 4, configReset: 1 })).toBe('1 needs a configuration reset');
    expect(configResetLabel({ routers: 12, fits: 4, configReset: 3 })).toBe('3 need a configuration reset');
  });

  it("reads a refusal's code from the 422 and says what to do", () => {
    const refused = { code: 'firmware_image_refused', details: [{ message: 'factory_image' }] };
    expect(refusalCodeOf(refused)).toBe('factory_image');
    expect(refusalCodeOf({ code: 'image_too_large', details: [] })).toBeNull();
    expect(refusalCodeOf({ code: 'firmware_image_refused', details: [] })).toBeNull();
    for (const code of ['no_metadata', 'factory_image', 'truncated', 'bad_crc', 'bad_metadata', 'empty']) {
      expect(refusalAdvice(code), code).toMatch(/\w/);
    }
    expect(refusalAdvice('factory_image')).toContain('sysupgrade image');
    expect(refusalAdvice('something_new')).toBeNull();
    expect(refusalAdvice(null)).toBeNull();
  });

  it("shows a transfer's bytes against the image's size when known", () => {
    expect(transferLabel(48 * 1024, 96 * 1024)).toBe('48 KiB of 96 KiB (50%)');
    expect(transferLabel(200, 100)).toBe('200 B of 100 B (100%)');
    expect(transferLabel(2048, null)).toBe('2 KiB');
  });
});
