/** Firmware images for sysupgrade (docs/DOMAIN.md, "Firmware images"): reading, writing, fitting, room. */
export { FirmwareImageRefused, type FirmwareRefusalCode } from './firmware-image-refused.js';
export { factoryImageEvidence } from './factory-image.js';
export { continueFwtoolCrc, fwtoolCrc, FWTOOL_CRC_START } from './fwtool-crc32.js';
export { FWTOOL_MAGIC, FWTOOL_TAIL_WINDOW_BYTES, FWTOOL_TRAILER_BYTES } from './fwtool-layout.js';
export {
  imageRelease,
  parseFirmwareMetadata,
  type FirmwareMetadata,
  type FirmwareVersionInfo,
} from './fwtool-metadata.js';
export { FwtoolReader, FWTOOL_READER_MAX_TAIL_BYTES, readFwtoolImage, type FwtoolImage } from './fwtool-reader.js';
export { writeFwtoolImage, type FwtoolWriteOptions } from './fwtool-writer.js';
export {
  judgeFit,
  type FitOptions,
  type FitRefusal,
  type FitRefusalCode,
  type FitVerdict,
  type RouterForFit,
} from './image-fit.js';
export { compareReleases, revisionNumber, type ReleaseRef } from './release-order.js';
export {
  checkRoom,
  MEMORY_RESERVE_BYTES,
  parseDfAvailableBytes,
  parseMemAvailableBytes,
  TMP_HEADROOM_BYTES,
  type RoomCheck,
  type RouterRoom,
} from './router-room.js';
