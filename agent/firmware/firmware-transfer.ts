/**
 * The TRANSFERRING step's bytes: DownloadFirmware from the controller into a FileSink on the
 * router, chunk by chunk (a router has 64-256 MB of RAM, the image is 5-64 MB: it is never
 * whole in the agent's memory). A broken stream resumes from the bytes already written, a few
 * times; attempts that moved the transfer forward do not count against it. What the controller
 * refuses for good (not a target, unknown image) and a router that cannot take the bytes end
 * the transfer at once.
 */
import { status as grpcStatus } from '@grpc/grpc-js';
import type { FileSink } from '../../core/host/router-host.js';
import type { DownloadFirmwareRequest, FirmwareChunk } from '../../proto/gen/wrtfleet/agent/v1/firmware.js';

/** The controller's DownloadFirmware as the agent calls it (ControllerLink.downloadFirmware, or a test's source). */
export type DownloadFirmware = (request: DownloadFirmwareRequest, signal?: AbortSignal) => AsyncIterable<FirmwareChunk>;

export interface TransferOptions {
  download: DownloadFirmware;
  sink: FileSink;
  sha256: string;
  sizeBytes: number;
  /** Attempts in a row without progress before giving up (default 4). */
  attempts?: number;
  /** An attempt that receives nothing for this long is given up and resumed (default 60 s). */
  stallMs?: number;
  /** Wait before the n-th retry (default 1 s, doubling to 8 s). */
  retryDelayMs?: (retry: number) => number;
  onBytes: (bytesDone: number) => void;
  log?: (message: string) => void;
}

/** The router did not take the bytes (full /tmp, lost SSH): retrying the download cannot help. */
class SinkFailure extends Error {}

const PERMANENT = new Set<number>([
  grpcStatus.PERMISSION_DENIED,
  grpcStatus.NOT_FOUND,
  grpcStatus.INVALID_ARGUMENT,
  grpcStatus.UNAUTHENTICATED,
  grpcStatus.UNIMPLEMENTED,
]);

const defaultRetryDelay = (retry: number) => Math.min(8_000, 1_000 * 2 ** (retry - 1));

/** Streams the whole image into `sink`; resolves with the byte count, rejects with why it stopped. */
export async function transferImage(o: TransferOptions): Promise<number> {
  const attempts = o.attempts ?? 4;
  let offset = 0;
  let fruitless = 0;
  let lastError: Error | undefined;
  while (fruitless < attempts) {
    if (fruitless > 0) await new Promise((r) => setTimeout(r, (o.retryDelayMs ?? defaultRetryDelay)(fruitless)));
    const startedAt = offset;
    // A controller that stops sending without closing the stream would hold the upgrade for ever.
    const stalled = new AbortController();
    const stallMs = o.stallMs ?? 60_000;
    let stallTimer: NodeJS.Timeout | undefined;
    const watch = () => {
      clearTimeout(stallTimer);
      stallTimer = setTimeout(() => stalled.abort(), stallMs);
    };
    watch();
    try {
      for await (const chunk of o.download({ sha256: o.sha256, offset }, stalled.signal)) {
        watch();
        const data = chunk.data;
        if (offset + data.length > o.sizeBytes)
          throw new SinkFailure(`the controller sent more than the image's ${o.sizeBytes} bytes`);
        try {
          await o.sink.write(data);
        } catch (err) {
          throw new SinkFailure((err as Error).message, { cause: err });
        }
        offset += data.length;
        o.onBytes(offset);
      }
      if (offset === o.sizeBytes) return offset;
      lastError = new Error(`the download ended at byte ${offset} of ${o.sizeBytes}`);
    } catch (err) {
      if (err instanceof SinkFailure) throw err;
      const code = (err as { code?: unknown }).code;
      if (typeof code === 'number' && PERMANENT.has(code))
        throw new Error(
          `the controller refused the download: ${(err as { details?: string }).details ?? (err as Error).message}`,
          { cause: err },
        );
      lastError = stalled.signal.aborted ? new Error(`nothing received for ${stallMs / 1000} s`) : (err as Error);
    } finally {
      clearTimeout(stallTimer);
    }
    fruitless = offset > startedAt ? 1 : fruitless + 1;
    if (fruitless < attempts) o.log?.(`download broken at byte ${offset} (${lastError.message}): resuming`);
  }
  throw new Error(
    `the download stopped at byte ${offset} of ${o.sizeBytes} after ${attempts} attempts: ${lastError?.message ?? 'no reason'}`,
  );
}
