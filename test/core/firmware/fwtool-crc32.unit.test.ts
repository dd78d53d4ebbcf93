import { describe, expect, it } from 'vitest';
import { continueFwtoolCrc, fwtoolCrc, FWTOOL_CRC_START } from '../../../core/firmware/index.js';
import { bitwiseFwtoolCrc, payloadBytes } from './fwtool-samples.js';

describe('fwtool CRC-32', () => {
  it('is the standard CRC-32 register without the final XOR (check value of "123456789")', () => {
    // CRC-32's published check value is 0xCBF43926; fwtool stores the register before the XOR.
    expect(fwtoolCrc(new TextEncoder().encode('123456789'))).toBe(0x340bc6d9);
    expect((~0xcbf43926 >>> 0).toString(16)).toBe('340bc6d9');
  });

  it('leaves the start register unchanged over no bytes', () => {
    expect(fwtoolCrc(new Uint8Array())).toBe(FWTOOL_CRC_START);
  });

  it('agrees with a bit-by-bit CRC on arbitrary data', () => {
    for (const length of [1, 7, 255, 4096, 65_537]) {
      const bytes = payloadBytes(length, length);
      expect(fwtoolCrc(bytes)).toBe(bitwiseFwtoolCrc(bytes));
    }
  });

  it('continues a register: pieces give the value of the whole', () => {
    const bytes = payloadBytes(10_000, 3);
    let register = FWTOOL_CRC_START;
    for (const [start, end] of [
      [0, 1],
      [1, 999],
      [999, 5000],
      [5000, 10_000],
    ] as const) {
      register = continueFwtoolCrc(register, bytes, start, end);
    }
    expect(register).toBe(fwtoolCrc(bytes));
  });
});
