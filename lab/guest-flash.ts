/**
 * The lab guest's "flash": a small raw disk QEMU attaches as virtio-blk (/dev/vda in the guest).
 * A guest's root is an initramfs, so a reboot wipes everything written to it; this disk is what
 * a reboot keeps, as a router's flash does. The guest's /init lays a tar it finds there over its
 * root before dropbear starts (lab/images/guest-init.sh). Each lab start makes it blank: every
 * boot of the lab begins with the router as built. Only the mipsel kernel has virtio_blk; the
 * mips guest leaves the device unclaimed.
 */
import { open, rm } from 'node:fs/promises';
import { join } from 'node:path';

/** Plenty for a few release files, scripts and a host key; sparse on the host. */
const FLASH_BYTES = 4 * 2 ** 20;
/** The one free PCI slot of the four the malta board routes an interrupt for (18-21). */
const FLASH_SLOT = '0x15';

export function flashPath(runDir: string, guestName: string): string {
  return join(runDir, `${guestName}-flash.img`);
}

/** A blank flash (zeros: no tar, so /init lays nothing over the initramfs). */
export async function createBlankFlash(path: string): Promise<void> {
  const file = await open(path, 'w');
  try {
    await file.truncate(FLASH_BYTES);
  } finally {
    await file.close();
  }
}

export async function removeFlash(path: string): Promise<void> {
  await rm(path, { force: true });
}

export function flashQemuArgs(path: string): string[] {
  return [
    '-drive',
    `file=${path},if=none,format=raw,id=flash`,
    '-device',
    `virtio-blk-pci,drive=flash,addr=${FLASH_SLOT},romfile=`,
  ];
}
