/**
 * What the firmware tests build images from: realistic metadata, deterministic payloads, and a
 * block writer of their own whose CRC is computed bit by bit (not with the production table), so
 * that a bug in the shared CRC or in the writer's trailer shows up as a failing read.
 */

/** Metadata as OpenWrt 24.10.0 writes it for an MT7621 router. */
export const MT7621_METADATA = {
  metadata_version: '1.0',
  compat_version: '1.0',
  supported_devices: ['xiaomi,mi-router-4a-gigabit', 'xiaomi,mir4ag'],
  version: {
    dist: 'OpenWrt',
    version: '24.10.0',
    revision: 'r28427-6df0e3d02a',
    target: 'ramips/mt7621',
    board: 'xiaomi_mi-router-4a-gigabit',
  },
};

/** Bytes that look like nothing in particular and are the same on every run. */
export function payloadBytes(length: number, seed = 1): Uint8Array {
  const bytes = new Uint8Array(length);
  let state = seed >>> 0 || 1;
  for (let index = 0; index < length; index += 1) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    bytes[index] = state & 0xff;
  }
  return bytes;
}

/** CRC-32 register update one bit at a time, the textbook way; no final XOR, as fwtool. */
export function bitwiseFwtoolCrc(bytes: Uint8Array, register = 0xffffffff): number {
  let crc = register >>> 0;
  for (const byte of bytes) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit += 1) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return crc >>> 0;
}

/** Appends a block with any data and type, and a trailer whose size may be overridden. */
export function appendRawBlock(image: Uint8Array, data: Uint8Array, type: number, sizeOverride?: number): Uint8Array {
  const out = new Uint8Array(image.length + data.length + 16);
  out.set(image);
  out.set(data, image.length);
  const view = new DataView(out.buffer, out.length - 16);
  view.setUint32(0, 0x46577830);
  view.setUint32(4, bitwiseFwtoolCrc(out.subarray(0, image.length + data.length)));
  view.setUint8(8, type);
  view.setUint32(12, sizeOverride ?? data.length + 16);
  return out;
}

/** A metadata block's data: the 8-byte zero header, then the text. */
export function infoData(text: string): Uint8Array {
  const json = new TextEncoder().encode(text);
  const data = new Uint8Array(8 + json.length);
  data.set(json, 8);
  return data;
}

export function hexOf(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('hex');
}
