/**
 * FirmwareProgress as the agent sends it (proto/wrtfleet/agent/v1/firmware.proto): one message
 * per step, the detail bounded as the contract says, and during the transfer a byte count at
 * most every tenth of the image or every two seconds, so a slow link still shows movement
 * without a message per chunk.
 */
import { boundChars } from '../../core/bounded-text.js';
import { FirmwareProgress_Step, type FirmwareProgress } from '../../proto/gen/wrtfleet/agent/v1/firmware.js';

export { FirmwareProgress_Step } from '../../proto/gen/wrtfleet/agent/v1/firmware.js';

/** FirmwareProgress.detail: at most this many characters. */
export const FIRMWARE_DETAIL_MAX_CHARS = 1024;

export function firmwareProgress(
  upgradeId: string,
  step: FirmwareProgress_Step,
  fields: { failed?: boolean; detail?: string; bytesDone?: number } = {},
): FirmwareProgress {
  return {
    upgradeId,
    step,
    failed: fields.failed ?? false,
    detail: boundChars(fields.detail ?? '', FIRMWARE_DETAIL_MAX_CHARS),
    bytesDone: fields.bytesDone ?? 0,
  };
}

/** "STEP_TESTING" -> "testing", for logs. */
export function stepName(step: FirmwareProgress_Step): string {
  return (FirmwareProgress_Step[step] ?? String(step)).replace(/^STEP_/, '').toLowerCase();
}

/** Decides when a transfer's byte count is worth a message: every 10 % of the image or every `intervalMs`. */
export class TransferReporting {
  private lastBytes = 0;
  private lastAt: number;

  constructor(
    private readonly totalBytes: number,
    private readonly intervalMs = 2_000,
    private readonly now: () => number = Date.now,
  ) {
    this.lastAt = now();
  }

  due(bytesDone: number): boolean {
    const step = Math.max(1, Math.floor(this.totalBytes / 10));
    const t = this.now();
    if (bytesDone - this.lastBytes < step && t - this.lastAt < this.intervalMs) return false;
    this.lastBytes = bytesDone;
    this.lastAt = t;
    return true;
  }
}
