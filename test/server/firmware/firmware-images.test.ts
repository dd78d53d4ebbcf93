import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Controller } from '../../../server/controller.js';
import { startTestController } from '../../support/controller.js';
import { createPgliteDatabase, type TestDatabase } from '../../support/databases.js';
import { ARCHER_C7_2410, patternBytes, sysupgradeImage } from '../../support/firmware-images.js';

const MAX_BYTES = 2 * 1024 * 1024;
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies as the tests read them
type Body = Record<string, any>;

/**
 * Firmware images through the REST API over real HTTP (the body streams into the store): what is
 * stored, what is refused and why, the size limit, listing, removal. Images are built in fwtool's
 * format by the tests; their payload is not a firmware.
 */
describe('firmware images over the REST API (PGlite)', () => {
  let db: TestDatabase;
  let controller: Controller;
  let token: string;

  beforeAll(async () => {
    db = await createPgliteDatabase();
    ({ controller, token } = await startTestController(db, { firmwareMaxBytes: MAX_BYTES }));
  });
  afterAll(async () => {
    await controller?.close();
    await db?.drop();
  });

  const upload = async (bytes: Uint8Array, fileName: string, contentType = 'application/octet-stream') => {
    const res = await fetch(`${controller.httpUrl}/v1/firmware/images?fileName=${encodeURIComponent(fileName)}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': contentType },
      body: Buffer.from(bytes),
    });
    return { status: res.status, body: (await res.json()) as Body };
  };
  const api = async (path: string, method = 'GET') => {
    const res = await fetch(`${controller.httpUrl}${path}`, { method, headers: { authorization: `Bearer ${token}` } });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as Body) : null };
  };

  it('stores a sysupgrade image once, by its SHA-256, with its metadata', async () => {
    const image = sysupgradeImage(ARCHER_C7_2410);
    const sha256 = createHash('sha256').update(image).digest('hex');
    const first = await upload(image, 'openwrt-24.10.0-ath79-generic-tplink_archer-c7-v2-squashfs-sysupgrade.bin');
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      sha256,
      sizeBytes: image.length,
      release: '24.10.0',
      revision: 'r28427-6df0e3d02a',
      target: 'ath79/generic',
      signed: false,
      metadata: { supportedDevices: ['tplink,archer-c7-v2'], compatVersion: '1.0' },
      fit: { routers: 0, fits: 0 },
    });
    const again = await upload(image, 'copy.bin');
    expect(again.status).toBe(200);
    expect(again.body.fileName).toBe(first.body.fileName);
    const list = await api('/v1/firmware/images');
    expect(list.body!.items.filter((i: { sha256: string }) => i.sha256 === sha256)).toHaveLength(1);
    expect((await api(`/v1/firmware/images/${sha256}`)).body).toMatchObject({ sha256, release: '24.10.0' });
    // Stored in 1 MiB rows that read back as the uploaded bytes, from any offset.
    const stored = await controller.db.prisma.firmwareImage.findFirstOrThrow({ where: { sha256 } });
    const back: Buffer[] = [];
    for await (const part of controller.images.bytesFrom(stored.id, 1000)) back.push(part);
    expect(Buffer.concat(back).equals(image.subarray(1000))).toBe(true);
  });

  it('streams an image larger than a stored chunk and reads it back whole', async () => {
    const image = sysupgradeImage(ARCHER_C7_2410, { payloadBytes: 1_500_000, seed: 3 });
    const res = await upload(image, 'big-sysupgrade.bin');
    expect(res.status).toBe(201);
    const stored = await controller.db.prisma.firmwareImage.findFirstOrThrow({ where: { sha256: res.body.sha256 } });
    expect(await controller.db.prisma.firmwareImageChunk.count({ where: { imageId: stored.id } })).toBe(2);
    const back: Buffer[] = [];
    for await (const part of controller.images.bytesFrom(stored.id, 0)) {
      expect(part.length).toBeLessThanOrEqual(64 * 1024);
      back.push(part);
    }
    expect(Buffer.concat(back).equals(image)).toBe(true);
  });

  it.each([
    ['no metadata', () => patternBytes(200_000), 'plain.bin', 'no_metadata'],
    [
      'a factory image',
      () => patternBytes(200_000),
      'openwrt-ath79-tplink_archer-c7-v2-squashfs-factory.bin',
      'factory_image',
    ],
    [
      'a bad CRC',
      () => {
        const image = sysupgradeImage(ARCHER_C7_2410);
        image[100] = image[100]! ^ 0xff;
        return image;
      },
      'flipped.bin',
      'bad_crc',
    ],
    ['a cut trailer', () => sysupgradeImage(ARCHER_C7_2410).subarray(0, -5), 'cut.bin', 'truncated'],
    ['an empty file', () => new Uint8Array(0), 'empty.bin', 'empty'],
  ])('refuses %s with 422 naming the reason, and keeps nothing', async (_what, bytes, name, code) => {
    const before = await controller.db.prisma.firmwareImage.count();
    const res = await upload(bytes(), name);
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ error: 'firmware_image_refused' });
    expect(res.body.details[0].message).toBe(code);
    expect(res.body.message.length).toBeGreaterThan(20);
    expect(await controller.db.prisma.firmwareImage.count()).toBe(before);
    expect(await controller.db.prisma.firmwareImageChunk.count({ where: { image: { readyAt: null } } })).toBe(0);
  });

  it('refuses an image past the size limit with 413, and bad requests with 400 or 415', async () => {
    const big = sysupgradeImage(ARCHER_C7_2410, { payloadBytes: MAX_BYTES + 10 });
    expect((await upload(big, 'huge.bin')).status).toBe(413);
    const json = await upload(new TextEncoder().encode('{"a":1}'), 'x.bin', 'application/json');
    expect(json.status).toBe(415);
    const badName = await upload(sysupgradeImage(ARCHER_C7_2410), '../etc/passwd');
    expect(badName.status).toBe(400);
    expect(JSON.stringify(badName.body)).toContain('fileName');
    expect((await api('/v1/firmware/images/not-a-sha')).status).toBe(400);
    expect((await api(`/v1/firmware/images/${'0'.repeat(64)}`)).status).toBe(404);
  });

  it('removes an image (audited) and answers 404 after', async () => {
    const image = sysupgradeImage(ARCHER_C7_2410, { seed: 11 });
    const { body } = await upload(image, 'to-remove.bin');
    expect((await api(`/v1/firmware/images/${body.sha256}`, 'DELETE')).status).toBe(204);
    expect((await api(`/v1/firmware/images/${body.sha256}`)).status).toBe(404);
    expect((await api(`/v1/firmware/images/${body.sha256}`, 'DELETE')).status).toBe(404);
    const events = await controller.db.prisma.auditEvent.findMany({
      where: { targetType: 'firmware_image', targetId: body.sha256 },
      orderBy: { seq: 'asc' },
    });
    expect(events.map((e) => e.action)).toEqual(['firmware.image_added', 'firmware.image_removed']);
  });
});
