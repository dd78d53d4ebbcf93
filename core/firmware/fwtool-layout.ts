/**
 * The binary layout of the blocks OpenWrt's fwtool appends to a sysupgrade image, as read from
 * fwtool's own source (tools/fwtool in the OpenWrt tree: fwtool.c, fwimage.h, crc32.h) and
 * restated in docs/DOMAIN.md, "Firmware images". What was verified there:
 *
 * - Every block ends in a 16-byte trailer: magic u32, crc32 u32, type u8, three pad bytes (zero),
 *   size u32. Magic, crc32 and size are big-endian (fwtool writes them with cpu_to_be32); the
 *   magic is 0x46577830, the ASCII bytes "FWx0".
 * - `size` counts the whole block: its data plus the 16-byte trailer. A metadata block (type 1,
 *   FWIMAGE_INFO) is an 8-byte header (version u32 = 0, flags u32 = 0) then the JSON text, so its
 *   size is 8 + JSON length + 16. A signature block (type 0, FWIMAGE_SIGNATURE) is the signature
 *   bytes (a ucert/usign blob) then the trailer: size = signature length + 16.
 * - The CRC (fwtool-crc32.ts) covers every byte of the file before the trailer, from offset 0: the
 *   payload, any earlier blocks with their trailers, and this block's header and data. Each fwtool
 *   run starts a new register at 0xFFFFFFFF and reads the whole file, so a signature block's CRC
 *   also covers the metadata block before it. The trailer's own bytes are never covered.
 * - fwtool appends one block per run; OpenWrt's build appends metadata first and, when it signs,
 *   the signature after it, so in a signed image the signature block comes last.
 * - Reading, fwtool walks from the end: take the last 16 bytes as a trailer; stop if the magic
 *   is wrong; check the CRC of everything before the trailer; refuse a block whose data is larger
 *   than its buffer (32 KiB); take the data; a signature block is skipped when metadata is wanted,
 *   a metadata block whose header version is not 0 is skipped, the first metadata block found is
 *   the answer. Then the block before is tried, ending where this one began.
 * - fwtool refuses to append more than 30 KiB of metadata or 1 KiB of signature.
 */

/** "FWx0" read as a big-endian u32. */
export const FWTOOL_MAGIC = 0x46577830;
/** magic, crc32, type, pad[3], size. */
export const FWTOOL_TRAILER_BYTES = 16;
/** struct fwimage_header before the metadata JSON: version, flags. */
export const FWTOOL_INFO_HEADER_BYTES = 8;
/** enum fwimage_type. */
export const FWTOOL_TYPE_SIGNATURE = 0;
export const FWTOOL_TYPE_INFO = 1;
/** fwtool's METADATA_MAXLEN and SIGNATURE_MAXLEN: it will not append more than these. */
export const FWTOOL_METADATA_MAX_BYTES = 30 * 1024;
export const FWTOOL_SIGNATURE_MAX_BYTES = 1024;
/** fwtool's read buffer (BUFLEN): a block whose data is larger is a "Size error". */
export const FWTOOL_BLOCK_DATA_MAX_BYTES = FWTOOL_METADATA_MAX_BYTES + FWTOOL_SIGNATURE_MAX_BYTES + 1024;

/**
 * How many bytes at the end of an image the reader keeps for the blocks. One largest metadata
 * block and one largest signature block with their trailers take under 32 KiB; twice that leaves
 * room for an extra block (fwtool walks past unknown or skipped ones) while staying a fixed,
 * small cost per upload however large the image is.
 */
export const FWTOOL_TAIL_WINDOW_BYTES = 64 * 1024;

/** The 16 trailer bytes, decoded. */
export interface FwtoolTrailer {
  magic: number;
  crc: number;
  type: number;
  /** The block's length, trailer included. */
  size: number;
}

/** Decodes the trailer that starts at `offset` (16 bytes must be there). */
export function decodeTrailer(bytes: Uint8Array, offset: number): FwtoolTrailer {
  const view = new DataView(bytes.buffer, bytes.byteOffset + offset, FWTOOL_TRAILER_BYTES);
  return {
    magic: view.getUint32(0, false),
    crc: view.getUint32(4, false),
    type: view.getUint8(8),
    size: view.getUint32(12, false),
  };
}
