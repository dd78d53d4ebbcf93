import { describe, expect, it } from 'vitest';
import {
  FirmwareImageRefused,
  FWTOOL_TAIL_WINDOW_BYTES,
  readFwtoolImage,
  writeFwtoolImage,
  type FirmwareRefusalCode,
} from '../../../core/firmware/index.js';
import { appendRawBlock, infoData, MT7621_METADATA, payloadBytes } from './fwtool-samples.js';

function refusalOf(image: Uint8Array, fileName?: string): FirmwareImageRefused {
  try {
    readFwtoolImage(image, fileName);
  } catch (error) {
    if (error instanceof FirmwareImageRefused) return error;
    throw error;
  }
  throw new Error('the image was accepted');
}

function expectRefused(image: Uint8Array, code: FirmwareRefusalCode, message: RegExp, fileName?: string): void {
  const refusal = refusalOf(image, fileName);
  expect(refusal.code, refusal.message).toBe(code);
  expect(refusal.message).toMatch(message);
}

const PAYLOAD = payloadBytes(200_000);
const UNSIGNED = writeFwtoolImage(PAYLOAD, MT7621_METADATA);
const SIGNED = writeFwtoolImage(PAYLOAD, MT7621_METADATA, { signature: payloadBytes(560, 7) });

/** A copy with one byte inverted. */
function flipped(image: Uint8Array, index: number): Uint8Array {
  const copy = image.slice();
  copy[index] = (copy[index] as number) ^ 0xff;
  return copy;
}

describe('refusing damaged images', () => {
  it('refuses an empty file', () => {
    expectRefused(new Uint8Array(), 'empty', /empty \(0 bytes\)/);
  });

  it('refuses a flipped payload byte (bad_crc), signed or not', () => {
    for (const image of [UNSIGNED, SIGNED]) {
      for (const index of [0, 12_345, PAYLOAD.length - 1]) {
        expectRefused(flipped(image, index), 'bad_crc', /CRC .* does not match.*sha256sum/);
      }
    }
  });

  it('refuses a flipped metadata byte (bad_crc)', () => {
    const jsonByte = PAYLOAD.length + 8 + 20;
    expectRefused(flipped(UNSIGNED, jsonByte), 'bad_crc', /metadata trailer/);
    expectRefused(flipped(SIGNED, jsonByte), 'bad_crc', /signature trailer/);
  });

  it('refuses a flipped CRC byte in the trailer (bad_crc)', () => {
    expectRefused(flipped(UNSIGNED, UNSIGNED.length - 12), 'bad_crc', /does not match/);
  });

  it('refuses an unsigned image cut by 1 to 200 bytes as truncated', () => {
    for (let cut = 1; cut <= 200; cut += 1) {
      expectRefused(UNSIGNED.subarray(0, UNSIGNED.length - cut), 'truncated', /incomplete.*upload the file again/);
    }
  });

  it('refuses a signed image cut inside its signature block as truncated', () => {
    for (let cut = 1; cut < 560 + 16; cut += 7) {
      expectRefused(SIGNED.subarray(0, SIGNED.length - cut), 'truncated', /incomplete/);
    }
  });

  it('refuses a trailer whose size points before the start of the file as truncated', () => {
    const image = appendRawBlock(payloadBytes(100), infoData('{}'), 1, 5000);
    expectRefused(image, 'truncated', /says the block is 5000 bytes, but only 126 bytes/);
  });

  it('refuses a block larger than fwtool ever writes (bad_metadata)', () => {
    const image = appendRawBlock(payloadBytes(100_000), infoData('{}'), 1, 40_000);
    expectRefused(image, 'bad_metadata', /more than fwtool ever writes/);
  });

  it('refuses blocks that reach back further than the kept tail (bad_metadata)', () => {
    let image = writeFwtoolImage(payloadBytes(200_000), MT7621_METADATA);
    const filler = payloadBytes(30_000, 3);
    for (let block = 0; block * 30_000 < FWTOOL_TAIL_WINDOW_BYTES; block += 1) image = appendRawBlock(image, filler, 0);
    expectRefused(image, 'bad_metadata', /more than the last 65536 bytes/);
  });
});

describe('refusing images without metadata', () => {
  it('refuses plain bytes as no_metadata, with what to upload instead', () => {
    expectRefused(payloadBytes(500_000), 'no_metadata', /no OpenWrt image metadata.*sysupgrade image/);
    expectRefused(Uint8Array.of(1, 2, 3), 'no_metadata', /no OpenWrt image metadata/);
  });

  it('refuses a signature block with no metadata block before it', () => {
    expectRefused(appendRawBlock(payloadBytes(5000), payloadBytes(500), 0), 'no_metadata', /signature block/);
  });

  it('refuses a factory image by its name', () => {
    const name = 'openwrt-24.10.0-ramips-mt7621-xiaomi_mi-router-4a-gigabit-squashfs-factory.bin';
    expectRefused(payloadBytes(300_000), 'factory_image', /factory image.*upload the sysupgrade image/, name);
    expectRefused(payloadBytes(300_000), 'factory_image', /factory/, `C:\\Downloads\\${name}`);
  });

  it('refuses a factory image by its TP-Link header', () => {
    const image = payloadBytes(300_000);
    image.set([0x01, 0x00, 0x00, 0x00], 0);
    image.set(new TextEncoder().encode('TP-LINK Technologies\0\0\0\0'), 4);
    expectRefused(image, 'factory_image', /TP-Link firmware header/, 'archer-c7-v2.bin');
    image.set([0x02, 0x00, 0x00, 0x00], 0);
    expectRefused(image, 'factory_image', /TP-Link firmware header/);
  });

  it('refuses a factory image by its TP-Link safeloader partition table', () => {
    const image = payloadBytes(300_000);
    new DataView(image.buffer).setUint32(0, image.length);
    image.set(new TextEncoder().encode('fwup-ptn partition-table base 0x00800 size 0x00800\t\r\n'), 0x1014);
    expectRefused(image, 'factory_image', /safeloader/, 'firmware.bin');
  });

  it('reads a sysupgrade image that starts with a TP-Link header: the metadata decides', () => {
    const payload = payloadBytes(100_000);
    payload.set([0x01, 0x00, 0x00, 0x00], 0);
    payload.set(new TextEncoder().encode('TP-LINK Technologies'), 4);
    expect(readFwtoolImage(writeFwtoolImage(payload, MT7621_METADATA), 'x-factory.bin').payloadBytes).toBe(100_000);
  });
});

describe('refusing unusable metadata', () => {
  const withInfo = (text: string) => appendRawBlock(payloadBytes(1000), infoData(text), 1);

  it('refuses JSON that does not parse', () => {
    expectRefused(withInfo('{"supported_devices": ["a"], "version": '), 'bad_metadata', /does not parse/);
  });

  it('refuses JSON that is not an object', () => {
    expectRefused(withInfo('["a"]\n'), 'bad_metadata', /not an object/);
  });

  it('refuses metadata without supported_devices or version', () => {
    expectRefused(withInfo('{"version":{"version":"24.10.0"}}'), 'bad_metadata', /supported_devices/);
    expectRefused(withInfo('{"supported_devices":["a"]}'), 'bad_metadata', /version/);
    expectRefused(withInfo('{"supported_devices":"a","version":{"version":"1"}}'), 'bad_metadata', /supported/);
    expectRefused(
      withInfo('{"supported_devices":["a"],"new_supported_devices":[1],"version":{"version":"1"}}'),
      'bad_metadata',
      /new_supported_devices/,
    );
  });
});
