/**
 * The CRC-32 that OpenWrt's fwtool writes into every trailer (docs/DOMAIN.md, "Firmware
 * images"). It is the reflected CRC-32 of zlib and Ethernet (polynomial 0xEDB88320, one table
 * lookup per byte), with the register started at 0xFFFFFFFF, but fwtool never applies the
 * final XOR: the value it stores is the raw register, i.e. the bitwise NOT of what
 * `zlib.crc32` returns for the same bytes. Written here rather than taken from `node:zlib`,
 * whose `crc32` is missing on some Node 20 releases and could not continue a register anyway.
 */

/** The register before the first byte: fwtool's `.crc32 = ~0` and `uint32_t crc32 = ~0`. */
export const FWTOOL_CRC_START = 0xffffffff;

const REFLECTED_POLYNOMIAL = 0xedb88320;

/** One entry per byte value: that byte shifted through the register eight times. */
const CRC_TABLE: Uint32Array = (() => {
  const table = new Uint32Array(256);
  for (let byte = 0; byte < 256; byte += 1) {
    let register = byte;
    for (let bit = 0; bit < 8; bit += 1) {
      register = register & 1 ? (register >>> 1) ^ REFLECTED_POLYNOMIAL : register >>> 1;
    }
    table[byte] = register >>> 0;
  }
  return table;
})();

/**
 * Feeds `bytes[start, end)` through the register `crc` and returns the new register (unsigned).
 * Chained calls over consecutive pieces give the same value as one call over their concatenation,
 * which is what lets the reader keep a running CRC over a stream.
 */
export function continueFwtoolCrc(crc: number, bytes: Uint8Array, start = 0, end = bytes.length): number {
  let register = crc >>> 0;
  for (let index = start; index < end; index += 1) {
    register = (CRC_TABLE[(register ^ (bytes[index] as number)) & 0xff] as number) ^ (register >>> 8);
  }
  return register >>> 0;
}

/** The value fwtool stores for a trailer preceded by exactly `bytes`. */
export function fwtoolCrc(bytes: Uint8Array): number {
  return continueFwtoolCrc(FWTOOL_CRC_START, bytes);
}
