import { writeFwtoolImage } from '../../core/firmware/index.js';

/** A router model as an image's metadata names it. */
export interface ImageModel {
  board: string;
  target: string;
  release: string;
  revision: string;
}

export const ARCHER_C7_2410: ImageModel = {
  board: 'tplink,archer-c7-v2',
  target: 'ath79/generic',
  release: '24.10.0',
  revision: 'r28427-6df0e3d02a',
};

/** Deterministic bytes: the same image (and SHA-256) on every run. */
export function patternBytes(length: number, seed = 7): Uint8Array {
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i++) bytes[i] = (i * 131 + seed * 17 + (i >> 9)) & 0xff;
  return bytes;
}

/** A sysupgrade image as OpenWrt's build writes one for `model` (the payload is not a firmware). */
export function sysupgradeImage(
  model: ImageModel,
  options: { payloadBytes?: number; seed?: number; compatVersion?: string; signature?: Uint8Array } = {},
): Buffer {
  const payload = patternBytes(options.payloadBytes ?? 300 * 1024, options.seed);
  return Buffer.from(
    writeFwtoolImage(
      payload,
      {
        supported_devices: [model.board],
        version: {
          dist: 'OpenWrt',
          version: model.release,
          revision: model.revision,
          target: model.target,
          board: model.board.replace(',', '_'),
        },
        compat_version: options.compatVersion ?? '1.0',
      },
      options.signature ? { signature: options.signature } : {},
    ),
  );
}
