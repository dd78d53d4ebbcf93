import { factoryImageEvidence, FACTORY_HEAD_BYTES } from './factory-image.js';
import { FirmwareImageRefused } from './firmware-image-refused.js';
import { blockTypeName, cutBlockEvidence, walkFwtoolBlocks, type ImageTail } from './fwtool-blocks.js';
import { continueFwtoolCrc, FWTOOL_CRC_START } from './fwtool-crc32.js';
import { FWTOOL_BLOCK_DATA_MAX_BYTES, FWTOOL_TAIL_WINDOW_BYTES } from './fwtool-layout.js';
import { parseFirmwareMetadata, type FirmwareMetadata } from './fwtool-metadata.js';

/**
 * Reading an uploaded sysupgrade image as it streams in (docs/DOMAIN.md, "Firmware images").
 * Images are 5 to 64 MB and are never held whole: the reader keeps the first few KiB (to
 * recognise a factory image's header), a bounded tail where the fwtool blocks are, and the CRC
 * register over every byte that has left the tail, which is all fwtool's CRC check needs.
 */

export interface FwtoolImage {
  metadata: FirmwareMetadata;
  /** A signature block was found after the metadata (its signature is not verified here). */
  signed: boolean;
  /** Bytes before the metadata block: the image proper. */
  payloadBytes: number;
  totalBytes: number;
}

/**
 * The most tail bytes a reader ever holds. The tail buffer is twice the window so that sliding
 * it (dropping bytes at the front) is a copy per window's worth of input, not per chunk; after
 * any update it holds at least the last FWTOOL_TAIL_WINDOW_BYTES of the image.
 */
export const FWTOOL_READER_MAX_TAIL_BYTES = 2 * FWTOOL_TAIL_WINDOW_BYTES;

export class FwtoolReader {
  private readonly tail = new Uint8Array(FWTOOL_READER_MAX_TAIL_BYTES);
  private tailLength = 0;
  /** The CRC register over the image bytes that have left the tail. */
  private crcBeforeTail = FWTOOL_CRC_START;
  private readonly head = new Uint8Array(FACTORY_HEAD_BYTES);
  private headLength = 0;
  private totalBytes = 0;
  private finished = false;

  /** Tail bytes held now; never above FWTOOL_READER_MAX_TAIL_BYTES. */
  get retainedTailBytes(): number {
    return this.tailLength;
  }

  /** Bytes fed so far. */
  get bytesRead(): number {
    return this.totalBytes;
  }

  update(chunk: Uint8Array): void {
    if (this.finished) throw new Error('FwtoolReader.update after finish');
    this.totalBytes += chunk.length;
    if (this.headLength < this.head.length) {
      const taken = Math.min(this.head.length - this.headLength, chunk.length);
      this.head.set(chunk.subarray(0, taken), this.headLength);
      this.headLength += taken;
    }
    let offset = 0;
    while (offset < chunk.length) {
      if (this.tailLength === this.tail.length) this.slideTail();
      const taken = Math.min(this.tail.length - this.tailLength, chunk.length - offset);
      this.tail.set(chunk.subarray(offset, offset + taken), this.tailLength);
      this.tailLength += taken;
      offset += taken;
    }
  }

  /** Drops all but the last window's bytes from the tail, folding them into the CRC register. */
  private slideTail(): void {
    const dropped = this.tailLength - FWTOOL_TAIL_WINDOW_BYTES;
    this.crcBeforeTail = continueFwtoolCrc(this.crcBeforeTail, this.tail, 0, dropped);
    this.tail.copyWithin(0, dropped, this.tailLength);
    this.tailLength = FWTOOL_TAIL_WINDOW_BYTES;
  }

  /** Reads the blocks once the whole image has been fed; throws FirmwareImageRefused. */
  finish(fileName?: string): FwtoolImage {
    this.finished = true;
    const name = fileName === undefined ? 'The uploaded file' : `"${fileName}"`;
    if (this.totalBytes === 0) {
      throw new FirmwareImageRefused('empty', `${name} is empty (0 bytes). Upload the sysupgrade image again.`);
    }
    // Exactly the window, however the input was chunked, so that the answer never depends on it.
    if (this.tailLength > FWTOOL_TAIL_WINDOW_BYTES) this.slideTail();
    const tail: ImageTail = {
      bytes: this.tail.subarray(0, this.tailLength),
      start: this.totalBytes - this.tailLength,
      crcBeforeStart: this.crcBeforeTail,
      totalBytes: this.totalBytes,
    };
    const walk = walkFwtoolBlocks(tail);
    switch (walk.kind) {
      case 'metadata':
        return {
          metadata: parseFirmwareMetadata(walk.json),
          signed: walk.signed,
          payloadBytes: walk.payloadBytes,
          totalBytes: this.totalBytes,
        };
      case 'bad_crc':
        throw new FirmwareImageRefused(
          'bad_crc',
          `${name} is damaged: the CRC in its fwtool ${blockTypeName(walk.blockType)} trailer ` +
            `(${hex(walk.stored)}) does not match the image's contents (${hex(walk.computed)}), ` +
            'so sysupgrade would reject it. Download the image again and check its sha256sum against ' +
            'the one published with it.',
        );
      case 'bad_size':
        throw sizeRefusal(name, walk.blockType, walk.size, walk.end);
      case 'beyond_tail':
        throw new FirmwareImageRefused(
          'bad_metadata',
          `${name} has fwtool blocks that together take more than the last ` +
            `${FWTOOL_TAIL_WINDOW_BYTES} bytes, far more than OpenWrt writes (metadata and signature ` +
            'take a few KiB). Rebuild the image with a standard OpenWrt build or Image Builder.',
        );
      case 'none':
        throw this.refusalWithoutMetadata(name, tail, walk.blocksPassed, fileName);
    }
  }

  private refusalWithoutMetadata(
    name: string,
    tail: ImageTail,
    blocksPassed: number,
    fileName: string | undefined,
  ): FirmwareImageRefused {
    if (blocksPassed > 0) {
      return new FirmwareImageRefused(
        'no_metadata',
        `${name} ends in a valid fwtool signature block but has no metadata block before it, so the ` +
          'controller cannot tell which devices it is for. Upload the sysupgrade image from an ' +
          'OpenWrt build or Image Builder, which writes the metadata.',
      );
    }
    const cut = cutBlockEvidence(tail);
    if (cut !== null) {
      return new FirmwareImageRefused(
        'truncated',
        `${name} is incomplete: ${cut} (the file is ${this.totalBytes} bytes). The upload or ` +
          'download stopped early; upload the file again and compare its size and sha256sum with ' +
          'the download page.',
      );
    }
    const factory = factoryImageEvidence(this.head.subarray(0, this.headLength), this.totalBytes, fileName);
    if (factory !== null) {
      return new FirmwareImageRefused(
        'factory_image',
        `${name} looks like a factory image (${factory}; it carries no OpenWrt image metadata). ` +
          'Factory images are for the first install from the vendor firmware; upload the sysupgrade ' +
          'image for this device (openwrt-...-squashfs-sysupgrade.bin).',
      );
    }
    return new FirmwareImageRefused(
      'no_metadata',
      `${name} carries no OpenWrt image metadata (no fwtool block at its end), so the controller ` +
        'cannot tell which devices it is for. Upload the sysupgrade image built for the router ' +
        'model (openwrt-...-sysupgrade.bin or .itb); builds without metadata are not supported.',
    );
  }
}

function sizeRefusal(name: string, blockType: number, size: number, end: number): FirmwareImageRefused {
  const block = `its fwtool ${blockTypeName(blockType)} trailer`;
  if (size > end || size < 16) {
    return new FirmwareImageRefused(
      'truncated',
      `${name} is incomplete: ${block} says the block is ${size} bytes, but only ${end} bytes come ` +
        'before it. Upload the file again and compare its size and sha256sum with the download page.',
    );
  }
  return new FirmwareImageRefused(
    'bad_metadata',
    `${name} has ${block} claiming ${size} bytes, more than fwtool ever writes ` +
      `(${FWTOOL_BLOCK_DATA_MAX_BYTES} bytes of data); sysupgrade would reject it with a size error. ` +
      'Rebuild the image with a standard OpenWrt build or Image Builder.',
  );
}

const hex = (value: number): string => `0x${value.toString(16).padStart(8, '0')}`;

/** Reads an image held in memory (tests, small fixtures): the same path as a stream. */
export function readFwtoolImage(bytes: Uint8Array, fileName?: string): FwtoolImage {
  const reader = new FwtoolReader();
  reader.update(bytes);
  return reader.finish(fileName);
}
