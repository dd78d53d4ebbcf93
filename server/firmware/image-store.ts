import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { PrismaClient } from '../../prisma/generated/client/client.js';
import type { AuditLog } from '../audit/audit-log.js';
import { FwtoolReader, imageRelease, type FirmwareMetadata } from '../../core/firmware/index.js';

/** Bytes per stored chunk: a row small enough for PGlite and PostgreSQL alike, few rows per image. */
export const IMAGE_CHUNK_BYTES = 1024 * 1024;
/** The most bytes of an image one FirmwareChunk message carries (firmware.proto). */
export const WIRE_CHUNK_BYTES = 64 * 1024;
/** Stored chunks kept in memory per replica (1 MiB each): a 32 MiB image, or several small ones. */
const CACHED_CHUNKS = 32;
/** An upload not finished after this long was left by a replica that died; the next start deletes it. */
const ABANDONED_UPLOAD_MS = 60 * 60 * 1000;

export class ImageTooLarge extends Error {}
export class ImageInUse extends Error {}

export interface StoredImage {
  id: string;
  sha256: string;
  fileName: string;
  sizeBytes: number;
  metadata: FirmwareMetadata;
  release: string;
  revision: string;
  target: string | null;
  signed: boolean;
  uploadedBy: string;
  createdAt: Date;
}

type ImageRow = Awaited<ReturnType<PrismaClient['firmwareImage']['findFirstOrThrow']>>;

const storedImage = (r: ImageRow): StoredImage => ({
  id: r.id,
  sha256: r.sha256!,
  fileName: r.fileName,
  sizeBytes: Number(r.sizeBytes),
  metadata: r.metadata as unknown as FirmwareMetadata,
  release: r.release ?? '',
  revision: r.revision ?? '',
  target: r.target,
  signed: r.signed,
  uploadedBy: r.uploadedBy,
  createdAt: r.createdAt,
});

/**
 * Firmware images in the database, by SHA-256: every replica serves every image, on PGlite as on
 * PostgreSQL. An upload streams through the fwtool reader and the hash into 1 MiB rows, never
 * whole in memory; a refused or broken one leaves nothing behind.
 */
export class FirmwareImageStore {
  constructor(
    private readonly db: PrismaClient,
    private readonly audit: AuditLog,
    readonly maxBytes: number,
  ) {}

  /** Deletes uploads a dead replica left unfinished. */
  async removeAbandonedUploads(): Promise<number> {
    const { count } = await this.db.firmwareImage.deleteMany({
      where: { readyAt: null, createdAt: { lt: new Date(Date.now() - ABANDONED_UPLOAD_MS) } },
    });
    return count;
  }

  /**
   * Stores an image from `body`. Returns it and whether it is new: an image already stored (same
   * SHA-256) is not stored twice. Throws FirmwareImageRefused (what is wrong with the image) or
   * ImageTooLarge; either way nothing stays stored.
   */
  async upload(
    body: AsyncIterable<Uint8Array> | Iterable<Uint8Array> | Readable,
    fileName: string,
    ctx: { actor: string; requestId?: string },
  ) {
    const row = await this.db.firmwareImage.create({ data: { fileName, uploadedBy: ctx.actor }, select: { id: true } });
    try {
      const read = await this.writeChunks(row.id, body, fileName);
      // sha256 is set only on ready images (and cleared on removed ones): this is the same image.
      const existing = await this.db.firmwareImage.findUnique({ where: { sha256: read.sha256 } });
      if (existing) {
        await this.db.firmwareImage.delete({ where: { id: row.id } });
        return { image: storedImage(existing), created: false };
      }
      const { release, revision } = imageRelease(read.image.metadata);
      const data = {
        sha256: read.sha256,
        sizeBytes: BigInt(read.bytes),
        metadata: read.image.metadata as object,
        release,
        revision,
        target: read.image.metadata.version.target,
        signed: read.image.signed,
        readyAt: new Date(),
      };
      const image = await this.audit.record(async (tx) => {
        const stored = await tx.firmwareImage.update({ where: { id: row.id }, data });
        return {
          result: stored,
          event: {
            actor: ctx.actor,
            action: 'firmware.image_added',
            targetType: 'firmware_image',
            targetId: read.sha256,
            after: { fileName, sizeBytes: read.bytes, release, revision, target: data.target, signed: data.signed },
            requestId: ctx.requestId,
          },
        };
      });
      return { image: storedImage(image), created: true };
    } catch (err) {
      await this.db.firmwareImage.delete({ where: { id: row.id } }).catch(() => undefined);
      throw err;
    }
  }

  private async writeChunks(imageId: string, body: AsyncIterable<Uint8Array> | Iterable<Uint8Array>, fileName: string) {
    const reader = new FwtoolReader();
    const hash = createHash('sha256');
    let bytes = 0;
    let seq = 0;
    let parts: Buffer[] = [];
    let pending = 0;
    const flush = async () => {
      if (pending === 0) return;
      const data = Buffer.concat(parts, pending);
      parts = [];
      pending = 0;
      await this.db.firmwareImageChunk.create({ data: { imageId, seq: seq++, data } });
    };
    for await (const chunk of body) {
      const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
      bytes += buffer.length;
      if (bytes > this.maxBytes)
        throw new ImageTooLarge(`the image is larger than this controller accepts (${this.maxBytes} bytes)`);
      reader.update(buffer);
      hash.update(buffer);
      for (let at = 0; at < buffer.length;) {
        const take = Math.min(IMAGE_CHUNK_BYTES - pending, buffer.length - at);
        parts.push(buffer.subarray(at, at + take));
        pending += take;
        at += take;
        if (pending === IMAGE_CHUNK_BYTES) await flush();
      }
    }
    await flush();
    const image = reader.finish(fileName);
    return { image, bytes, sha256: hash.digest('hex') };
  }

  async list(): Promise<StoredImage[]> {
    const rows = await this.db.firmwareImage.findMany({
      where: { readyAt: { not: null }, deletedAt: null },
      orderBy: { createdAt: 'desc' },
    });
    return rows.map(storedImage);
  }

  async get(sha256: string): Promise<StoredImage | null> {
    const row = await this.db.firmwareImage.findFirst({ where: { sha256, readyAt: { not: null }, deletedAt: null } });
    return row ? storedImage(row) : null;
  }

  /**
   * Removes an image. Refused (ImageInUse) while a rollout that has not ended carries it; one that
   * ended keeps the image's record (its bytes go), so its history still names what it installed.
   */
  async remove(sha256: string, ctx: { actor: string; requestId?: string }): Promise<boolean> {
    const row = await this.db.firmwareImage.findFirst({ where: { sha256, readyAt: { not: null }, deletedAt: null } });
    if (!row) return false;
    const active = await this.db.rollout.count({
      where: { firmwareImageId: row.id, state: { notIn: ['completed', 'cancelled'] } },
    });
    if (active > 0)
      throw new ImageInUse(`${active} rollout(s) that have not ended carry this image: cancel them first`);
    await this.audit.record(async (tx) => {
      const used = await tx.rollout.count({ where: { firmwareImageId: row.id } });
      if (used > 0) {
        await tx.firmwareImageChunk.deleteMany({ where: { imageId: row.id } });
        await tx.firmwareImage.update({ where: { id: row.id }, data: { deletedAt: new Date(), sha256: null } });
      } else await tx.firmwareImage.delete({ where: { id: row.id } });
      return {
        result: null,
        event: {
          actor: ctx.actor,
          action: 'firmware.image_removed',
          targetType: 'firmware_image',
          targetId: sha256,
          before: { fileName: row.fileName, release: row.release, revision: row.revision },
          requestId: ctx.requestId,
        },
      };
    });
    return true;
  }

  /**
   * The image a router may download (the gateway's FirmwareSource): only while a rollout that has
   * not ended is upgrading that router to it (its target `sent`).
   */
  async imageFor(identity: string, sha256: string) {
    const image = await this.db.firmwareImage.findFirst({
      where: { sha256, readyAt: { not: null }, deletedAt: null },
      select: { id: true, sizeBytes: true },
    });
    if (!image) return 'not_found' as const;
    const upgrading = await this.db.rolloutTarget.count({
      where: {
        state: 'sent',
        router: { identity },
        rollout: { firmwareImageId: image.id, state: { notIn: ['completed', 'cancelled'] } },
      },
    });
    return upgrading > 0 ? { imageId: image.id, sizeBytes: Number(image.sizeBytes) } : ('denied' as const);
  }

  /**
   * Stored chunks recently read, by image and sequence: a batch downloads one image hundreds of
   * times, and reading each 1 MiB row from the database for each router cost the most. At most
   * CACHED_CHUNKS of them (the least recently used go first); an image's chunks never change.
   */
  private readonly cache = new Map<string, Buffer>();

  private async chunk(imageId: string, seq: number): Promise<Buffer | null> {
    const key = `${imageId}:${seq}`;
    const cached = this.cache.get(key);
    if (cached) {
      this.cache.delete(key);
      this.cache.set(key, cached);
      return cached;
    }
    const row = await this.db.firmwareImageChunk.findUnique({
      where: { imageId_seq: { imageId, seq } },
      select: { data: true },
    });
    if (!row) return null;
    const data = Buffer.from(row.data);
    this.cache.set(key, data);
    if (this.cache.size > CACHED_CHUNKS) this.cache.delete(this.cache.keys().next().value!);
    return data;
  }

  /** The image's bytes from `offset`, at most WIRE_CHUNK_BYTES at a time, one stored chunk in memory. */
  async *bytesFrom(imageId: string, offset: number): AsyncGenerator<Buffer> {
    let seq = Math.floor(offset / IMAGE_CHUNK_BYTES);
    let skip = offset - seq * IMAGE_CHUNK_BYTES;
    for (;;) {
      const data = await this.chunk(imageId, seq);
      if (!data) return;
      for (let at = skip; at < data.length; at += WIRE_CHUNK_BYTES) yield data.subarray(at, at + WIRE_CHUNK_BYTES);
      skip = 0;
      seq += 1;
    }
  }
}
