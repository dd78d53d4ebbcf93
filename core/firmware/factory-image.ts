/**
 * Recognising a factory image, the file a router is first flashed with from its vendor
 * firmware, when an operator uploads one instead of the sysupgrade image. A factory image
 * carries no fwtool metadata; what it has is the vendor's header. Two well-known ones are
 * recognised, from how OpenWrt's firmware-utils write them:
 *
 * - TP-Link's classic header (mktplinkfw): at offset 0 a big-endian header version of
 *   0x01000000 or 0x02000000, then a 24-byte vendor name, "TP-LINK Technologies" unless the
 *   build overrides it. OpenWrt's ath79 sysupgrade images for these devices start with the same
 *   header, so it only counts when the fwtool metadata is missing.
 * - TP-Link's safeloader layout (tplink-safeloader, Archer C7 v4+, EAP, CPE): a big-endian u32
 *   at offset 0 equal to the file's length, an MD5 after it, and at 0x1014 the image's partition
 *   table, whose first line starts "fwup-ptn partition-table".
 *
 * A file name containing "factory" is the other tell: OpenWrt names them
 * `openwrt-<release>-<target>-<device>-squashfs-factory.bin`.
 */

const SAFELOADER_PARTITION_TABLE_OFFSET = 0x1014;
const SAFELOADER_TABLE_MARK = 'fwup-ptn partition-table';
const TPLINK_HEADER_VERSIONS = [0x01000000, 0x02000000];
const TPLINK_VENDOR_OFFSET = 4;
const TPLINK_VENDOR_MARK = 'TP-LINK';

/** How many leading bytes the reader keeps to recognise these headers. */
export const FACTORY_HEAD_BYTES = SAFELOADER_PARTITION_TABLE_OFFSET + SAFELOADER_TABLE_MARK.length;

function asciiAt(bytes: Uint8Array, offset: number, text: string): boolean {
  if (offset + text.length > bytes.length) return false;
  for (let index = 0; index < text.length; index += 1) {
    if (bytes[offset + index] !== text.charCodeAt(index)) return false;
  }
  return true;
}

function u32At(bytes: Uint8Array, offset: number): number | null {
  if (offset + 4 > bytes.length) return null;
  return new DataView(bytes.buffer, bytes.byteOffset + offset, 4).getUint32(0, false);
}

/** The file's last path segment, whichever separator the browser or client used. */
function baseName(fileName: string): string {
  return fileName.split(/[\\/]/).pop() ?? fileName;
}

/**
 * Why the file looks like a factory image ("its file name says factory", "a TP-Link firmware
 * header at offset 0"), or null. `head` is the file's first bytes (at most FACTORY_HEAD_BYTES).
 */
export function factoryImageEvidence(head: Uint8Array, totalBytes: number, fileName?: string): string | null {
  if (fileName !== undefined && /factory/i.test(baseName(fileName))) {
    return `its file name "${baseName(fileName)}" says factory`;
  }
  const headerVersion = u32At(head, 0);
  if (
    headerVersion !== null &&
    TPLINK_HEADER_VERSIONS.includes(headerVersion) &&
    asciiAt(head, TPLINK_VENDOR_OFFSET, TPLINK_VENDOR_MARK)
  ) {
    return 'it starts with a TP-Link firmware header';
  }
  if (headerVersion === totalBytes && asciiAt(head, SAFELOADER_PARTITION_TABLE_OFFSET, SAFELOADER_TABLE_MARK)) {
    return 'it has a TP-Link safeloader partition table';
  }
  return null;
}
