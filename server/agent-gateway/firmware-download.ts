import { status as GrpcStatus, type ServerWritableStream, type ServiceError } from '@grpc/grpc-js';
import type { Logger } from 'pino';
import type { DownloadFirmwareRequest, FirmwareChunk } from '../../proto/gen/wrtfleet/agent/v1/firmware.js';
import type { AgentSecurity } from './agent-security.js';
import { IdentityRefused } from './agent-report-sink.js';

/** The metadata entry naming the router a DownloadFirmware call speaks for (checked against its certificate). */
export const IDENTITY_METADATA = 'wrtfleet-identity';

/** Where the gateway finds an image's bytes, and whether a router may have them. */
export interface FirmwareSource {
  /**
   * The image a router being upgraded may download: `not_found` for an image the controller does
   * not have, `denied` when no upgrade of this router to it is under way.
   */
  imageFor(identity: string, sha256: string): Promise<{ imageId: string; sizeBytes: number } | 'not_found' | 'denied'>;
  bytesFrom(imageId: string, offset: number): AsyncIterable<Buffer>;
}

type DownloadCall = ServerWritableStream<DownloadFirmwareRequest, FirmwareChunk>;

/** Ends the call with a status; nothing was sent. */
function fail(call: DownloadCall, code: GrpcStatus, details: string): number {
  const error: Partial<ServiceError> = { code, details, message: details };
  call.emit('error', error);
  return 0;
}

/**
 * Serves DownloadFirmware: the caller proves its router with its client certificate (as Connect
 * does; an insecure controller takes the identity as said), may only fetch an image an upgrade of
 * that router carries, and gets the bytes from `offset` as the database yields them, waiting for
 * the stream to drain, so a slow router never makes the controller hold the image. Returns the
 * bytes sent.
 */
export async function answerDownload(
  call: DownloadCall,
  security: AgentSecurity | undefined,
  source: FirmwareSource | undefined,
  log: Logger,
): Promise<number> {
  const identity = String(call.metadata.get(IDENTITY_METADATA)[0] ?? '');
  const { sha256, offset } = call.request;
  if (!source) return fail(call, GrpcStatus.UNIMPLEMENTED, 'this controller serves no firmware');
  if (!identity) return fail(call, GrpcStatus.INVALID_ARGUMENT, `the ${IDENTITY_METADATA} metadata is required`);
  try {
    await security?.authorizeStream(call, identity);
  } catch (err) {
    if (err instanceof IdentityRefused) return fail(call, err.code, err.message);
    throw err;
  }
  const image = await source.imageFor(identity, sha256);
  if (image === 'not_found') return fail(call, GrpcStatus.NOT_FOUND, `no firmware image ${sha256.slice(0, 64)}`);
  if (image === 'denied')
    return fail(call, GrpcStatus.PERMISSION_DENIED, `no upgrade of router ${identity} to this image is under way`);
  const start = Number(offset);
  if (!Number.isSafeInteger(start) || start < 0 || start > image.sizeBytes)
    return fail(call, GrpcStatus.OUT_OF_RANGE, `offset ${offset} is outside the image (${image.sizeBytes} bytes)`);
  let sent = 0;
  try {
    for await (const data of source.bytesFrom(image.imageId, start)) {
      if (call.cancelled) return sent;
      sent += data.length;
      if (!call.write({ data })) await new Promise<void>((resolve) => call.once('drain', () => resolve()));
    }
    call.end();
    log.debug({ identity, sha256, offset: start, bytes: sent }, 'firmware image served');
    return sent;
  } catch (err) {
    log.warn({ err, identity, sha256 }, 'serving a firmware image failed');
    fail(call, GrpcStatus.UNAVAILABLE, 'the image could not be read; try again');
    return sent;
  }
}
