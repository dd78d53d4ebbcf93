import { fwtoolCrc } from './fwtool-crc32.js';

/**
 * Appending fwtool blocks to a payload, byte for byte as OpenWrt's build does with `fwtool -I`
 * then `fwtool -S` (docs/DOMAIN.md, "Firmware images"): the metadata block (8-byte header of
 * zeros, the JSON, a trailer), then, when a signature is given, the signature block (the
 * signature bytes, a trailer). Used by tests, the demo's per-model images and simulated routers.
 *
 * It encodes the trailer itself rather than through the reader's layout module, so that a
 * mistake in one is not silently mirrored by the other; the CRC is shared, and the known-answer
 * tests pin it to fwtool's.
 */

export interface FwtoolWriteOptions {
  /** The signature block's data (a ucert blob in real images); no signature block when absent. */
  signature?: Uint8Array;
}

/** The JSON file fwtool reads for -I, as the build produces it with `echo '{...}'`: a trailing newline. */
function metadataText(metadata: object): Uint8Array {
  return new TextEncoder().encode(`${JSON.stringify(metadata)}\n`);
}

/**
 * A trailer: "FWx0", the CRC register over every byte before it (big-endian), the type, three
 * zero pad bytes, the block's length including these 16 bytes (big-endian).
 */
function trailerBytes(crc: number, type: number, blockLength: number): Uint8Array {
  const trailer = new Uint8Array(16);
  trailer.set([0x46, 0x57, 0x78, 0x30], 0);
  trailer[4] = (crc >>> 24) & 0xff;
  trailer[5] = (crc >>> 16) & 0xff;
  trailer[6] = (crc >>> 8) & 0xff;
  trailer[7] = crc & 0xff;
  trailer[8] = type;
  trailer[12] = (blockLength >>> 24) & 0xff;
  trailer[13] = (blockLength >>> 16) & 0xff;
  trailer[14] = (blockLength >>> 8) & 0xff;
  trailer[15] = blockLength & 0xff;
  return trailer;
}

/** Appends one block (its data then its trailer) to `image`, as one fwtool run does. */
function appendBlock(image: Uint8Array, data: Uint8Array, type: number): Uint8Array {
  const blockLength = data.length + 16;
  const out = new Uint8Array(image.length + blockLength);
  out.set(image, 0);
  out.set(data, image.length);
  out.set(trailerBytes(fwtoolCrc(out.subarray(0, image.length + data.length)), type, blockLength), out.length - 16);
  return out;
}

/** fwtool's METADATA_MAXLEN and SIGNATURE_MAXLEN: `fwtool -I`/`-S` fail beyond them. */
const METADATA_LIMIT = 30 * 1024;
const SIGNATURE_LIMIT = 1024;

export function writeFwtoolImage(payload: Uint8Array, metadata: object, options: FwtoolWriteOptions = {}): Uint8Array {
  const json = metadataText(metadata);
  if (json.length > METADATA_LIMIT)
    throw new Error(`metadata is ${json.length} bytes; fwtool takes at most ${METADATA_LIMIT}`);
  const infoData = new Uint8Array(8 + json.length);
  infoData.set(json, 8);
  let image = appendBlock(payload, infoData, 1);
  if (options.signature !== undefined) {
    if (options.signature.length > SIGNATURE_LIMIT) {
      throw new Error(`signature is ${options.signature.length} bytes; fwtool takes at most ${SIGNATURE_LIMIT}`);
    }
    image = appendBlock(image, options.signature, 0);
  }
  return image;
}
