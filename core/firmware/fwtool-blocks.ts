import { continueFwtoolCrc } from './fwtool-crc32.js';
import {
  decodeTrailer,
  FWTOOL_BLOCK_DATA_MAX_BYTES,
  FWTOOL_INFO_HEADER_BYTES,
  FWTOOL_MAGIC,
  FWTOOL_TRAILER_BYTES,
  FWTOOL_TYPE_INFO,
  FWTOOL_TYPE_SIGNATURE,
} from './fwtool-layout.js';

/**
 * Walking an image's fwtool blocks from its end, as fwtool does when sysupgrade asks it for the
 * metadata (`fwtool -i`), over the tail the reader kept (fwtool-layout.ts has the layout). The
 * image's bytes before the tail are gone by then; only the CRC register over them is left, which
 * is all a block's CRC check needs of them.
 */

/** The image's last bytes and the CRC register over everything before them. */
export interface ImageTail {
  bytes: Uint8Array;
  /** Offset of bytes[0] in the image. */
  start: number;
  /** The CRC register over image bytes [0, start). */
  crcBeforeStart: number;
  totalBytes: number;
}

export type BlockWalk =
  | { kind: 'metadata'; json: string; signed: boolean; payloadBytes: number }
  /** No metadata block: `blocksPassed` signature or other blocks were walked over first. */
  | { kind: 'none'; blocksPassed: number }
  | { kind: 'bad_crc'; blockType: number; stored: number; computed: number }
  | { kind: 'bad_size'; blockType: number; size: number; end: number }
  /** The blocks reach back further than the tail the reader keeps (FWTOOL_TAIL_WINDOW_BYTES). */
  | { kind: 'beyond_tail'; blockType: number };

/** The fwtool CRC register over image bytes [0, offset); offset must lie inside the tail. */
export function crcUpTo(tail: ImageTail, offset: number): number {
  return continueFwtoolCrc(tail.crcBeforeStart, tail.bytes, 0, offset - tail.start);
}

/** What a block type is called in messages. */
export function blockTypeName(type: number): string {
  if (type === FWTOOL_TYPE_INFO) return 'metadata';
  if (type === FWTOOL_TYPE_SIGNATURE) return 'signature';
  return `type ${type}`;
}

/**
 * Walks the blocks from the end. The order of the checks is fwtool's: magic, then the CRC of
 * everything before the trailer, then the size; a signature block (and one of a type fwtool does
 * not know, or a metadata block with a non-zero header version) is passed over to the block
 * before it, and the first metadata block found is the answer.
 */
export function walkFwtoolBlocks(tail: ImageTail): BlockWalk {
  let end = tail.totalBytes;
  let signed = false;
  let blocksPassed = 0;
  for (;;) {
    const trailerStart = end - FWTOOL_TRAILER_BYTES;
    if (trailerStart < tail.start) return { kind: 'none', blocksPassed };
    const trailer = decodeTrailer(tail.bytes, trailerStart - tail.start);
    if (trailer.magic !== FWTOOL_MAGIC) return { kind: 'none', blocksPassed };

    const computed = crcUpTo(tail, trailerStart);
    if (computed !== trailer.crc) return { kind: 'bad_crc', blockType: trailer.type, stored: trailer.crc, computed };

    const dataBytes = trailer.size - FWTOOL_TRAILER_BYTES;
    if (trailer.size < FWTOOL_TRAILER_BYTES || trailer.size > end || dataBytes > FWTOOL_BLOCK_DATA_MAX_BYTES) {
      return { kind: 'bad_size', blockType: trailer.type, size: trailer.size, end };
    }
    const blockStart = end - trailer.size;
    if (blockStart < tail.start) return { kind: 'beyond_tail', blockType: trailer.type };

    if (trailer.type === FWTOOL_TYPE_INFO && dataBytes >= FWTOOL_INFO_HEADER_BYTES) {
      const headerOffset = blockStart - tail.start;
      const headerVersion = new DataView(tail.bytes.buffer, tail.bytes.byteOffset + headerOffset, 4).getUint32(0);
      if (headerVersion === 0) {
        const json = new TextDecoder('utf-8').decode(
          tail.bytes.subarray(headerOffset + FWTOOL_INFO_HEADER_BYTES, trailerStart - tail.start),
        );
        return { kind: 'metadata', json, signed, payloadBytes: blockStart };
      }
    }
    if (trailer.type === FWTOOL_TYPE_SIGNATURE) signed = true;
    blocksPassed += 1;
    end = blockStart;
  }
}

const MAGIC_BYTES = [0x46, 0x57, 0x78, 0x30];
/** How many magic-looking spots in the tail are tried as the trailer of an earlier block. */
const MAX_EARLIER_TRAILER_CANDIDATES = 32;

function magicAt(bytes: Uint8Array, index: number): boolean {
  return MAGIC_BYTES.every((byte, offset) => bytes[index + offset] === byte);
}

/** JSON as fwtool stores it: printable ASCII, tabs, newlines, or bytes of UTF-8 sequences. */
function isTextByte(byte: number): boolean {
  return byte === 0x09 || byte === 0x0a || byte === 0x0d || (byte >= 0x20 && byte !== 0x7f);
}

/**
 * When the walk found nothing at the very end, whether the end looks like a cut fwtool block
 * (an upload that stopped early), and the evidence in words. Three tells, strongest first:
 *  - the magic "FWx0" within the last 15 bytes, where no whole trailer fits after it;
 *  - a complete block (magic, matching CRC, sane size) that ends before the file does, followed
 *    by bytes that are no block: the block after it, usually the signature, was cut;
 *  - the metadata block's start (8 zero header bytes, then "{") followed by nothing but text up
 *    to the end: the file stops inside the metadata JSON, or in the first bytes of its trailer.
 */
export function cutBlockEvidence(tail: ImageTail): string | null {
  const { bytes, start, totalBytes } = tail;
  for (let offset = totalBytes - FWTOOL_TRAILER_BYTES + 1; offset <= totalBytes - 4; offset += 1) {
    if (offset >= start && magicAt(bytes, offset - start)) {
      return `its last ${totalBytes - offset} bytes are the start of an fwtool trailer, which takes ${FWTOOL_TRAILER_BYTES}`;
    }
  }

  let candidates = 0;
  for (let index = bytes.length - FWTOOL_TRAILER_BYTES; index >= 0; index -= 1) {
    if (!magicAt(bytes, index)) continue;
    candidates += 1;
    if (candidates > MAX_EARLIER_TRAILER_CANDIDATES) break;
    const trailer = decodeTrailer(bytes, index);
    const end = start + index + FWTOOL_TRAILER_BYTES;
    const sane = trailer.size >= FWTOOL_TRAILER_BYTES && trailer.size <= end;
    if (sane && crcUpTo(tail, start + index) === trailer.crc) {
      return (
        `a complete fwtool ${blockTypeName(trailer.type)} block ends at byte ${end}, ` +
        `but the ${totalBytes - end} bytes after it are not a complete block`
      );
    }
  }

  const jsonStart = lastMetadataStart(bytes);
  if (jsonStart !== null && bytes.subarray(jsonStart).every(isTextByte)) {
    return 'it ends inside its fwtool metadata JSON';
  }
  return null;
}

/** Index of the "{" after the last run of 8 zero bytes (an fwtool metadata header), or null. */
function lastMetadataStart(bytes: Uint8Array): number | null {
  for (let index = bytes.length - 1; index >= FWTOOL_INFO_HEADER_BYTES; index -= 1) {
    if (bytes[index] !== 0x7b) continue;
    let zeros = 0;
    while (zeros < FWTOOL_INFO_HEADER_BYTES && bytes[index - 1 - zeros] === 0) zeros += 1;
    if (zeros === FWTOOL_INFO_HEADER_BYTES) return index;
  }
  return null;
}
