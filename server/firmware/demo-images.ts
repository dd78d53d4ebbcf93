import { writeFwtoolImage } from '../../core/firmware/index.js';
import type { FirmwareImageStore } from './image-store.js';

/**
 * Sysupgrade images for the demo fleet's models, one each, so that a new user can try an upgrade
 * from the console. Their metadata is what OpenWrt's build writes for these devices; their
 * payload is not a firmware (256 KiB of a fixed pattern): only simulated routers take them.
 * Fixed bytes, so a restarted demo finds them stored already.
 */
export const DEMO_IMAGES = [
  {
    fileName: 'openwrt-24.10.0-mediatek-filogic-glinet_gl-mt6000-squashfs-sysupgrade.bin',
    supportedDevices: ['glinet,gl-mt6000'],
    target: 'mediatek/filogic',
    board: 'glinet_gl-mt6000',
    release: '24.10.0',
    revision: 'r28427-6df0e3d02a',
  },
  {
    fileName: 'openwrt-24.10.0-ath79-generic-tplink_archer-c7-v2-squashfs-sysupgrade.bin',
    supportedDevices: ['tplink,archer-c7-v2', 'tplink_archer-c7-v2'],
    target: 'ath79/generic',
    board: 'tplink_archer-c7-v2',
    release: '24.10.0',
    revision: 'r28427-6df0e3d02a',
  },
  {
    fileName: 'openwrt-24.10.5-ramips-mt7621-kt_km14-102h-squashfs-sysupgrade.bin',
    supportedDevices: ['kt,km14-102h'],
    target: 'ramips/mt7621',
    board: 'kt_km14-102h',
    release: '24.10.5',
    revision: 'r29087-d9c5716d1d',
  },
] as const;

const PAYLOAD_BYTES = 256 * 1024;

export function demoImageBytes(image: (typeof DEMO_IMAGES)[number]): Uint8Array {
  const payload = new Uint8Array(PAYLOAD_BYTES);
  for (let i = 0; i < payload.length; i++) payload[i] = (i * 31 + image.board.length) & 0xff;
  return writeFwtoolImage(payload, {
    supported_devices: image.supportedDevices,
    version: {
      dist: 'OpenWrt',
      version: image.release,
      revision: image.revision,
      target: image.target,
      board: image.board,
    },
    compat_version: '1.0',
  });
}

/** Stores the demo's images (again: an image stored already is kept once). */
export async function addDemoImages(images: FirmwareImageStore): Promise<number> {
  for (const image of DEMO_IMAGES)
    await images.upload([demoImageBytes(image)], image.fileName, { actor: 'system:demo' });
  return DEMO_IMAGES.length;
}
