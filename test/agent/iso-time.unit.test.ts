import { describe, expect, it } from 'vitest';
import { isoTime } from '../../agent/iso-time.js';

describe('isoTime (toISOString without ICU)', () => {
  it('is Date.prototype.toISOString for every date it formats itself', () => {
    const edges = [
      0,
      1,
      -1,
      951_782_400_000 /* 2000-02-29 */,
      253_402_300_799_999 /* 9999-12-31T23:59:59.999Z */,
      -62_167_219_200_000 /* 0000-01-01 */,
      Date.now(),
    ];
    let seed = 7;
    const random = () => ((seed = (seed * 48271) % 2147483647) / 2147483647) * 253_402_300_799_999;
    for (const ms of [...edges, ...Array.from({ length: 5000 }, random)]) {
      const d = new Date(Math.floor(ms));
      expect(isoTime(d)).toBe(d.toISOString());
    }
  });

  it('falls back to toISOString outside years 0-9999, and throws for an invalid date like it', () => {
    expect(isoTime(new Date(8.64e15))).toBe('+275760-09-13T00:00:00.000Z');
    expect(isoTime(new Date(-62_167_219_200_001))).toBe(new Date(-62_167_219_200_001).toISOString());
    expect(() => isoTime(new Date(NaN))).toThrow(RangeError);
  });
});
