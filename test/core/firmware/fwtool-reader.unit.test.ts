import { describe, expect, it } from 'vitest';
import {
  FWTOOL_READER_MAX_TAIL_BYTES,
  FWTOOL_TAIL_WINDOW_BYTES,
  FwtoolReader,
  imageRelease,
  readFwtoolImage,
  writeFwtoolImage,
} from '../../../core/firmware/index.js';
import { appendRawBlock, hexOf, infoData, MT7621_METADATA, payloadBytes } from './fwtool-samples.js';

/**
 * The known answer, derived outside this code base from fwtool's algorithm: payload "123456789",
 * the 8-byte zero header, the JSON below plus "\n" (127 bytes), and the trailer
 *   46577830  magic "FWx0"
 *   c4b14c6c  CRC-32 register (start 0xFFFFFFFF, reflected 0xEDB88320, no final XOR) over the
 *             9 + 8 + 127 bytes before the trailer, big-endian
 *   01 000000 type FWIMAGE_INFO, pad
 *   00000097  size 151 = 8 + 127 + 16, big-endian
 * then a 4-byte signature DE AD BE EF and its trailer 46577830 72beef10 00 000000 00000014.
 */
const KNOWN_METADATA = {
  supported_devices: ['a,b'],
  version: { dist: 'OpenWrt', version: '24.10.0', revision: 'r1-ab', target: 'x/y', board: 'a_b' },
};
const KNOWN_INFO_TRAILER = '46577830c4b14c6c0100000000000097';
const KNOWN_SIGNATURE_TRAILER = '4657783072beef100000000000000014';
const ASCII_123456789 = new TextEncoder().encode('123456789');

function readInChunks(image: Uint8Array, sizes: () => number, fileName?: string) {
  const reader = new FwtoolReader();
  for (let offset = 0; offset < image.length;) {
    const size = Math.max(1, sizes());
    reader.update(image.subarray(offset, offset + size));
    offset += size;
  }
  return reader.finish(fileName);
}

describe('writing fwtool blocks (known answer)', () => {
  it('writes the metadata block and trailer bytes fwtool writes', () => {
    const image = writeFwtoolImage(ASCII_123456789, KNOWN_METADATA);
    expect(image.length).toBe(9 + 151);
    expect(hexOf(image.subarray(9, 17))).toBe('0000000000000000');
    expect(new TextDecoder().decode(image.subarray(17, 17 + 127))).toBe(`${JSON.stringify(KNOWN_METADATA)}\n`);
    expect(hexOf(image.subarray(image.length - 16))).toBe(KNOWN_INFO_TRAILER);
  });

  it('writes the signature block after the metadata, its CRC covering the metadata', () => {
    const image = writeFwtoolImage(ASCII_123456789, KNOWN_METADATA, {
      signature: Uint8Array.of(0xde, 0xad, 0xbe, 0xef),
    });
    expect(hexOf(image.subarray(9 + 151 - 16, 9 + 151))).toBe(KNOWN_INFO_TRAILER);
    expect(hexOf(image.subarray(9 + 151, 9 + 151 + 4))).toBe('deadbeef');
    expect(hexOf(image.subarray(image.length - 16))).toBe(KNOWN_SIGNATURE_TRAILER);
  });
});

describe('reading fwtool blocks', () => {
  it('reads the known-answer image, built here byte by byte without the writer', () => {
    const trailer = Buffer.from(KNOWN_INFO_TRAILER, 'hex');
    const json = new TextEncoder().encode(`${JSON.stringify(KNOWN_METADATA)}\n`);
    const image = new Uint8Array([...ASCII_123456789, ...new Uint8Array(8), ...json, ...trailer]);
    const read = readFwtoolImage(image);
    expect(read).toMatchObject({ signed: false, payloadBytes: 9, totalBytes: 160 });
    expect(read.metadata.supportedDevices).toEqual(['a,b']);
    expect(read.metadata.version).toEqual(KNOWN_METADATA.version);
  });

  it('round-trips realistic metadata through the writer', () => {
    const payload = payloadBytes(300_000);
    const image = readFwtoolImage(writeFwtoolImage(payload, MT7621_METADATA), 'openwrt-sysupgrade.bin');
    expect(image.signed).toBe(false);
    expect(image.payloadBytes).toBe(payload.length);
    expect(image.metadata).toMatchObject({
      supportedDevices: ['xiaomi,mi-router-4a-gigabit', 'xiaomi,mir4ag'],
      newSupportedDevices: null,
      compatVersion: '1.0',
      compatMessage: null,
      version: { dist: 'OpenWrt', version: '24.10.0', revision: 'r28427-6df0e3d02a', target: 'ramips/mt7621' },
    });
    expect(image.metadata.raw['metadata_version']).toBe('1.0');
    expect(imageRelease(image.metadata)).toEqual({ release: '24.10.0', revision: 'r28427-6df0e3d02a' });
  });

  it('defaults compat_version to 1.0 and keeps compat_message and new_supported_devices', () => {
    const { compat_version: _dropped, ...withoutCompat } = MT7621_METADATA;
    expect(readFwtoolImage(writeFwtoolImage(payloadBytes(100), withoutCompat)).metadata.compatVersion).toBe('1.0');
    const migrated = {
      ...MT7621_METADATA,
      compat_version: '2.0',
      compat_message: 'Partition layout changed: reinstall with the factory image.',
      new_supported_devices: ['xiaomi,mi-router-4a-gigabit'],
      supported_devices: ['Please use the factory image'],
    };
    const metadata = readFwtoolImage(writeFwtoolImage(payloadBytes(100), migrated)).metadata;
    expect(metadata).toMatchObject({
      compatVersion: '2.0',
      compatMessage: 'Partition layout changed: reinstall with the factory image.',
      newSupportedDevices: ['xiaomi,mi-router-4a-gigabit'],
    });
  });

  it('reads the metadata of a signed image and says it is signed', () => {
    const payload = payloadBytes(50_000);
    const image = writeFwtoolImage(payload, MT7621_METADATA, { signature: payloadBytes(560, 9) });
    const read = readFwtoolImage(image);
    expect(read.signed).toBe(true);
    expect(read.payloadBytes).toBe(payload.length);
    expect(read.totalBytes).toBe(image.length);
    expect(read.metadata.version.version).toBe('24.10.0');
  });

  it('walks past a block of a type it does not know, as fwtool does', () => {
    const withInfo = writeFwtoolImage(payloadBytes(1000), MT7621_METADATA);
    const image = appendRawBlock(withInfo, payloadBytes(40, 2), 7);
    expect(readFwtoolImage(image)).toMatchObject({ signed: false, payloadBytes: 1000 });
  });

  it('skips a metadata block whose header version is not 0 and takes the one before', () => {
    const first = writeFwtoolImage(payloadBytes(1000), MT7621_METADATA);
    const future = infoData('{"supported_devices":[],"version":{"version":"99.0.0"}}');
    future[3] = 1;
    const read = readFwtoolImage(appendRawBlock(first, future, 1));
    expect(read.metadata.version.version).toBe('24.10.0');
  });

  it('gives the same answer fed in random-sized chunks as whole', () => {
    const image = writeFwtoolImage(payloadBytes(400_000), MT7621_METADATA, { signature: payloadBytes(500, 4) });
    const whole = readFwtoolImage(image, 'a.bin');
    let seed = 42;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % 70_000;
    };
    for (let run = 0; run < 5; run += 1) expect(readInChunks(image, random, 'a.bin')).toEqual(whole);
    expect(readInChunks(image, () => 1 + (seed++ % 3))).toEqual(whole);
  });

  it('keeps a bounded tail while reading a 20 MB image in 64 KiB chunks', () => {
    const payload = new Uint8Array(20 * 1024 * 1024);
    for (let index = 0; index < payload.length; index += 4093) payload[index] = index & 0xff;
    const image = writeFwtoolImage(payload, MT7621_METADATA, { signature: payloadBytes(600, 5) });
    const reader = new FwtoolReader();
    let largestTail = 0;
    for (let offset = 0; offset < image.length; offset += 64 * 1024) {
      reader.update(image.subarray(offset, offset + 64 * 1024));
      largestTail = Math.max(largestTail, reader.retainedTailBytes);
    }
    expect(largestTail).toBeLessThanOrEqual(FWTOOL_READER_MAX_TAIL_BYTES);
    expect(FWTOOL_READER_MAX_TAIL_BYTES).toBe(2 * FWTOOL_TAIL_WINDOW_BYTES);
    expect(reader.bytesRead).toBe(image.length);
    expect(reader.finish()).toMatchObject({ signed: true, payloadBytes: payload.length, totalBytes: image.length });
  });

  it('refuses more input after finish', () => {
    const reader = new FwtoolReader();
    reader.update(writeFwtoolImage(payloadBytes(10), MT7621_METADATA));
    reader.finish();
    expect(() => reader.update(new Uint8Array(1))).toThrow(/after finish/);
  });
});
