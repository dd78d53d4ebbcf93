/**
 * Why an uploaded file is not an image the controller will offer for a sysupgrade. Each code has
 * one meaning, and each message says what is wrong and what the operator should do next.
 */

export type FirmwareRefusalCode = 'no_metadata' | 'factory_image' | 'truncated' | 'bad_crc' | 'bad_metadata' | 'empty';

export class FirmwareImageRefused extends Error {
  override readonly name = 'FirmwareImageRefused';

  constructor(
    readonly code: FirmwareRefusalCode,
    message: string,
  ) {
    super(message);
  }
}
