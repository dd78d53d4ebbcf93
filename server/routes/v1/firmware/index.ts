import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { PrismaClient } from '../../../../prisma/generated/client/client.js';
import { FirmwareImageRefused } from '../../../../core/firmware/index.js';
import { fitSummary } from '../../../firmware/fleet-fit.js';
import { ImageInUse, ImageTooLarge, type FirmwareImageStore, type StoredImage } from '../../../firmware/image-store.js';
import { ApiError, errorBodySchema } from '../../../http/api-error.js';
import { auditContext } from '../../../http/request-context.js';
import { FirmwareImageSchema, FitQuery, Sha256Param } from './firmware-schemas.js';

export interface FirmwarePluginOptions {
  images: FirmwareImageStore;
  db: PrismaClient;
}

const FILE_NAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._+-]{0,199}$';

/** Firmware images: upload (read and checked as sysupgrade would), list with their fit, remove. */
export const firmwarePlugin: FastifyPluginAsyncTypebox<FirmwarePluginOptions> = async (app, { images, db }) => {
  // The image arrives as the raw body, streamed into the store: never parsed, never whole in memory.
  app.addContentTypeParser('application/octet-stream', (_request, payload, done) => done(null, payload));

  const view = async (image: StoredImage, options: { keepConfig: boolean; allowDowngrade: boolean }) => ({
    sha256: image.sha256,
    fileName: image.fileName,
    sizeBytes: image.sizeBytes,
    release: image.release,
    revision: image.revision,
    target: image.target,
    signed: image.signed,
    metadata: {
      supportedDevices: image.metadata.supportedDevices,
      newSupportedDevices: image.metadata.newSupportedDevices,
      version: image.metadata.version,
      compatVersion: image.metadata.compatVersion,
      compatMessage: image.metadata.compatMessage,
    },
    uploadedBy: image.uploadedBy,
    createdAt: image.createdAt.toISOString(),
    fit: await fitSummary(db, image.metadata, options),
  });

  app.post(
    '/v1/firmware/images',
    {
      // Fastify's own limit would refuse any image: the handler and the store enforce the
      // configured one (read only when a request comes, so the OpenAPI document needs no store).
      bodyLimit: Number.MAX_SAFE_INTEGER,
      schema: {
        tags: ['firmware'],
        summary: 'Upload an OpenWrt sysupgrade image (the raw file as application/octet-stream)',
        description:
          "The controller reads the image's fwtool metadata (the FWx0 blocks at its end: supported_devices, version, " +
          'compat_version) and checks their CRC. Refused with 422 naming the reason: no metadata, a factory image, a ' +
          'truncated image, a bad CRC, unusable metadata; 413 past the size limit (WRTFLEET_FIRMWARE_MAX_BYTES). ' +
          'An image already stored (same SHA-256) is answered with 200 and stored once.',
        querystring: Type.Object(
          { fileName: Type.String({ pattern: FILE_NAME_PATTERN, description: "The image's file name" }) },
          { additionalProperties: false },
        ),
        consumes: ['application/octet-stream'],
        body: Type.Unknown({ description: 'The image file' }),
        response: {
          200: FirmwareImageSchema,
          201: FirmwareImageSchema,
          400: errorBodySchema,
          413: errorBodySchema,
          415: errorBodySchema,
          422: errorBodySchema,
        },
      },
    },
    async (request, reply) => {
      const length = Number(request.headers['content-length'] ?? NaN);
      if (length > images.maxBytes)
        throw new ApiError(413, 'image_too_large', `the image is larger than ${images.maxBytes} bytes`);
      if (!request.body || typeof (request.body as AsyncIterable<Uint8Array>)[Symbol.asyncIterator] !== 'function')
        throw new ApiError(415, 'unsupported_media_type', 'send the image as application/octet-stream');
      try {
        const { image, created } = await images.upload(
          request.body as AsyncIterable<Uint8Array>,
          request.query.fileName,
          auditContext(request),
        );
        return reply.status(created ? 201 : 200).send(await view(image, { keepConfig: true, allowDowngrade: false }));
      } catch (err) {
        if (err instanceof FirmwareImageRefused)
          throw new ApiError(422, 'firmware_image_refused', err.message, [{ in: 'body', path: '', message: err.code }]);
        if (err instanceof ImageTooLarge) throw new ApiError(413, 'image_too_large', err.message);
        throw err;
      }
    },
  );

  app.get(
    '/v1/firmware/images',
    {
      schema: {
        tags: ['firmware'],
        summary: 'Firmware images, newest first, each with the routers it fits and why the others do not',
        querystring: FitQuery,
        response: { 200: Type.Object({ items: Type.Array(FirmwareImageSchema) }) },
      },
    },
    async (request) => {
      const items = [];
      for (const image of await images.list()) items.push(await view(image, request.query));
      return { items };
    },
  );

  app.get(
    '/v1/firmware/images/:sha256',
    {
      schema: {
        tags: ['firmware'],
        summary: 'A firmware image, its metadata and its fit',
        params: Sha256Param,
        querystring: FitQuery,
        response: { 200: FirmwareImageSchema, 404: errorBodySchema },
      },
    },
    async (request) => {
      const image = await images.get(request.params.sha256);
      if (!image) throw new ApiError(404, 'not_found', `no firmware image ${request.params.sha256}`);
      return view(image, request.query);
    },
  );

  app.delete(
    '/v1/firmware/images/:sha256',
    {
      schema: {
        tags: ['firmware'],
        summary: 'Remove a firmware image (refused while a rollout that has not ended carries it)',
        params: Sha256Param,
        response: { 204: Type.Null(), 404: errorBodySchema, 409: errorBodySchema },
      },
    },
    async (request, reply) => {
      try {
        if (!(await images.remove(request.params.sha256, auditContext(request))))
          throw new ApiError(404, 'not_found', `no firmware image ${request.params.sha256}`);
      } catch (err) {
        if (err instanceof ImageInUse) throw new ApiError(409, 'image_in_use', err.message);
        throw err;
      }
      return reply.status(204).send(null);
    },
  );
};
