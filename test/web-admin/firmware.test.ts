/**
 * The Firmware page and firmware rollouts against a real controller and the demo's 12 simulated
 * routers (4 of them TP-Link Archer C7 v2 on ath79/generic 23.05.3), in Debian's Chromium: upload
 * a sysupgrade image built for the Archer C7 and see it fit those 4 and why not the others;
 * upload a file without metadata and a factory image and read why they are refused; roll the
 * image out through the wizard and follow its page (kind, image, each router's state and step);
 * remove an image, refused while a rollout carries it.
 */
import { randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFwtoolImage } from '../../core/firmware/index.js';
import { seriousAccessibilityViolations } from './support/axe.js';
import { launchChromium, openPage, type PageProblems } from './support/browser.js';
import { startConsoleController, type ConsoleController } from './support/console-controller.js';
import { screenshotThemes } from './support/screenshots.js';
import { signInWithToken } from './support/sign-in.js';

const GOOD_NAME = 'openwrt-23.05.5-ath79-generic-tplink_archer-c7-v2-squashfs-sysupgrade.bin';
const FACTORY_NAME = 'openwrt-23.05.5-ath79-generic-tplink_archer-c7-v2-squashfs-factory.bin';

/** A sysupgrade image of a newer 23.05 for the Archer C7 v2, as OpenWrt's build writes it. */
function archerImage(): Buffer {
  const image = writeFwtoolImage(randomBytes(96 * 1024), {
    supported_devices: ['tplink,archer-c7-v2'],
    version: {
      dist: 'OpenWrt',
      version: '23.05.5',
      revision: 'r24106-10cc5fcd00',
      target: 'ath79/generic',
      board: 'tplink_archer-c7-v2',
    },
    compat_version: '1.0',
  });
  return Buffer.from(image);
}

/** A TP-Link factory image: the vendor header at offset 0, no fwtool metadata. */
function factoryImage(): Buffer {
  const head = Buffer.alloc(64 * 1024);
  head.writeUInt32BE(0x01000000, 0);
  head.write('TP-LINK Technologies', 4, 'ascii');
  return head;
}

describe('the Firmware page and firmware rollouts (real controller, 12 simulated routers)', () => {
  let ctl: ConsoleController;
  let browser: Browser;
  let page: Page;
  let problems: PageProblems;
  let rolloutId = '';
  const good = archerImage();

  beforeAll(async () => {
    [ctl, browser] = await Promise.all([startConsoleController(), launchChromium()]);
    ({ page, problems } = await openPage(browser));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await ctl?.close();
  });

  const api = async (path: string, init: RequestInit = {}) => {
    const res = await fetch(`${ctl.url}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${ctl.token}`, ...(init.headers ?? {}) },
    });
    return { status: res.status, body: res.status === 204 ? null : ((await res.json()) as Record<string, unknown>) };
  };
  const table = () => page.getByRole('table', { name: 'Firmware images' });
  const upload = async (name: string, buffer: Buffer) => {
    await page.getByLabel('Image file').setInputFiles({ name, mimeType: 'application/octet-stream', buffer });
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
  };

  it('uploads an image and shows it with its fit and why the others do not fit', async () => {
    await signInWithToken(page, ctl.url, ctl.token, '/fleet');
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Firmware' }).click();
    await page.getByRole('heading', { name: 'Firmware', level: 1 }).waitFor();
    await page.getByText('No firmware image yet.').waitFor();

    await upload(GOOD_NAME, good);
    await page.getByText(`Uploaded ${GOOD_NAME}, OpenWrt 23.05.5 (r24106-10cc5fcd00): fits 4 of 12 routers.`).waitFor();
    const rows = table().locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(1);
    const cells = (await rows.first().locator('th, td').allInnerTexts()).map((t) => t.trim());
    expect(cells.slice(0, 3)).toEqual([`▸ ${GOOD_NAME}`, '23.05.5\nr24106-10cc5fcd00', 'ath79/generic']);
    expect(cells[3]).toMatch(/^96\.\d KiB$/);
    expect(cells[4]).toBe('no');
    expect(cells[5]).toBe('fits 4 of 12 routers');
    expect(cells[6]).toContain('token:tester');

    // Its metadata, and the 8 others grouped by why.
    await rows
      .first()
      .getByRole('button', { name: `▸ ${GOOD_NAME}` })
      .click();
    const metadata = page.getByRole('region', { name: `Metadata of ${GOOD_NAME}` });
    await metadata.waitFor();
    expect(await metadata.innerText()).toMatch(/Supported devices\s+tplink,archer-c7-v2/);
    expect(await metadata.innerText()).toMatch(/Compat version\s+1\.0/);
    const refusals = await page.getByRole('region', { name: `Routers ${GOOD_NAME} does not fit` }).innerText();
    const counted = [...refusals.matchAll(/(\d+) routers?/g)].reduce((n, m) => n + Number(m[1]), 0);
    expect(counted).toBe(8);
    expect(refusals).toMatch(/e\.g\. /);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshotThemes(page, 'firmware');

    // The same file again is the same image, stored once.
    await upload(GOOD_NAME, good);
    await page.getByText(`Already stored: ${GOOD_NAME}`, { exact: false }).waitFor();
    const stored = await api('/v1/firmware/images?keepConfig=true&allowDowngrade=false');
    expect((stored.body!.items as unknown[]).length).toBe(1);
  });

  it('says why a file without metadata and a factory image are refused', async () => {
    await upload('notes.bin', Buffer.from('not a firmware image\n'.repeat(64)));
    const refused = page.locator('.wf-upload__refused');
    await refused.getByText('The controller refused notes.bin.').waitFor();
    const text = await refused.innerText();
    expect(text).toContain('not an OpenWrt sysupgrade image');
    expect(text).toContain('no_metadata');
    expect(text).toContain('HTTP 422 · firmware_image_refused');

    await upload(FACTORY_NAME, factoryImage());
    await refused.getByText(`The controller refused ${FACTORY_NAME}.`).waitFor();
    expect(await refused.innerText()).toContain('This is a factory image');
    expect(await refused.innerText()).toContain('factory_image');
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshotThemes(page, 'firmware-refused');
    // Nothing was stored.
    const stored = await api('/v1/firmware/images?keepConfig=true&allowDowngrade=false');
    expect((stored.body!.items as unknown[]).length).toBe(1);
  });

  it("rolls the image out through the wizard and shows each router's state and step", async () => {
    await table()
      .getByRole('link', { name: `Roll out ${GOOD_NAME}` })
      .click();
    await page.getByRole('heading', { name: 'New rollout' }).waitFor();
    expect(await page.getByLabel('Firmware upgrade').isChecked()).toBe(true);
    const sha = await page.getByLabel('Firmware image', { exact: true }).inputValue();
    expect(sha).toMatch(/^[0-9a-f]{64}$/);
    await page.getByText('Fleet-wide, this image fits 4 of 12 routers with these options.').waitFor();
    // Without the configuration: sysupgrade -n, and what it costs.
    await page.getByLabel('Keep the configuration').uncheck();
    await page.getByText(/sysupgrade -n wipes the configuration/).waitFor();
    await page.getByLabel('Keep the configuration').check();
    // A maintenance window with a zone the browser does not know is refused before sending.
    await page.getByLabel('Only inside a maintenance window').check();
    // A window that opens in three hours: nothing is sent while the test looks at the page.
    const hhmm = (ms: number) => new Date(ms).toISOString().slice(11, 16);
    const [opens, closes] = [hhmm(Date.now() + 3 * 3_600_000), hhmm(Date.now() + 4 * 3_600_000)];
    await page.getByLabel('Window opens').fill(opens);
    await page.getByLabel('Window closes').fill(closes);
    await page.getByLabel('Time zone').fill('Mars/Olympus');
    await page.getByLabel('Every router').check();
    await page.getByLabel('Canary size').fill('0');
    await page.getByRole('button', { name: 'Start rollout' }).click();
    await page.getByText('an IANA time zone, e.g. Europe/Paris or UTC').waitFor();
    expect(((await api('/v1/rollouts')).body!.items as unknown[]).length).toBe(0);
    await page.getByLabel('Time zone').fill('UTC');
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshotThemes(page, 'rollouts-wizard-firmware');

    const [request] = await Promise.all([
      page.waitForRequest((r) => r.method() === 'POST' && new URL(r.url()).pathname === '/v1/rollouts'),
      page.getByRole('button', { name: 'Start rollout' }).click(),
    ]);
    const sent = request.postDataJSON() as Record<string, unknown>;
    expect(sent).toEqual({
      firmware: {
        image: sha,
        keepConfig: true,
        allowDowngrade: false,
        window: { start: opens, end: closes, timeZone: 'UTC' },
      },
      selector: { all: true },
      strategy: { canary: 0, batchSize: 50, maxFailureRatio: 0, soakSeconds: 0, promote: 'auto' },
    });
    expect((await request.response())!.status()).toBe(201);
    await page.waitForURL(/\/rollouts\/[^/?]+$/);
    rolloutId = decodeURIComponent(new URL(page.url()).pathname.split('/').pop()!);
    const stored = (await api(`/v1/rollouts/${rolloutId}`)).body!;
    expect(stored).toMatchObject({ kind: 'firmware', profile: null, total: 12, leftOut: 8 });
    expect(stored.firmware).toMatchObject({
      image: sha,
      fileName: GOOD_NAME,
      release: '23.05.5',
      options: { keepConfig: true, allowDowngrade: false, window: { start: opens, end: closes, timeZone: 'UTC' } },
    });

    const summary = page.getByRole('heading', { level: 2 }).filter({ hasText: 'to every router' });
    await summary.waitFor();
    expect(await summary.innerText()).toContain(`firmware 23.05.5 (r24106-10cc5fcd00) · ${GOOD_NAME}`);
    const image = await page.getByRole('definition').allInnerTexts();
    expect(image).toContain('firmware upgrade');
    expect(image.join('\n')).toContain(`${opens}–${closes} UTC`);
    const routers = page.getByRole('table', { name: 'Routers of the rollout' });
    await expect.poll(() => routers.locator('tbody tr').count(), { timeout: 10_000 }).toBe(12);
    const headers = (await routers.locator('thead th').allInnerTexts()).map((h) => h.replace(/[▲▼↕]/g, '').trim());
    expect(headers).toEqual(['Router', 'Batch', 'State', 'Step', 'Error']);
    const leftOut = (await routers.locator('tbody tr').allInnerTexts()).filter((r) => /left out\s+skipped/.test(r));
    expect(leftOut).toHaveLength(8);

    // Its window is closed, so no router has been sent anything: three Archer targets are set to
    // where upgrading ones would be (transferring, upgraded, unconfirmed) to see each shown. Real
    // upgrades of the simulated fleet are tested in test/server/firmware/.
    const prisma = ctl.controller.db.prisma;
    const archers = await prisma.rolloutTarget.findMany({
      where: { rolloutId, batch: { gte: 0 } },
      orderBy: { routerId: 'asc' },
      select: { routerId: true },
    });
    expect(archers).toHaveLength(4);
    const now = new Date();
    await prisma.rolloutTarget.update({
      where: { rolloutId_routerId: { rolloutId, routerId: archers[0]!.routerId } },
      data: {
        state: 'sent',
        firmwareStep: 'transferring',
        bytesDone: 48 * 1024,
        stepDetail: 'downloading to /tmp/firmware.bin',
        stepAt: now,
      },
    });
    await prisma.rolloutTarget.update({
      where: { rolloutId_routerId: { rolloutId, routerId: archers[1]!.routerId } },
      data: { state: 'upgraded', firmwareStep: 'flashing', stepAt: now, flashedAt: now, finishedAt: now },
    });
    await prisma.rolloutTarget.update({
      where: { rolloutId_routerId: { rolloutId, routerId: archers[2]!.routerId } },
      data: {
        state: 'unconfirmed',
        firmwareStep: 'flashing',
        stepAt: now,
        flashedAt: now,
        finishedAt: now,
        error: 'flashed, never came back',
      },
    });
    // A fresh load (the token, held in memory only, is pasted again).
    await signInWithToken(page, ctl.url, ctl.token, `/rollouts/${rolloutId}`);
    await routers.waitFor();
    await expect
      .poll(async () => (await routers.locator('tbody tr').allInnerTexts()).join('\n'), { timeout: 10_000 })
      .toMatch(/transferring\s+48 KiB of 96\.\d KiB \(49%\)/);
    const rowTexts = (await routers.locator('tbody tr').allInnerTexts()).join('\n');
    expect(rowTexts).toContain('downloading to /tmp/firmware.bin');
    expect(rowTexts).toMatch(/upgraded\s+flashing/);
    expect(rowTexts).toMatch(/unconfirmed\s+flashing[\s\S]*flashed .*[\s\S]*flashed, never came back/);
    expect(await routers.locator('.wf-status--upgraded').count()).toBe(1);
    expect(await routers.locator('.wf-status--unconfirmed').count()).toBe(1);
    const counts = await page.getByRole('list', { name: 'Routers by state' }).innerText();
    expect(counts).toMatch(/1\s*↑ upgraded/);
    expect(counts).toMatch(/1\s*\? unconfirmed/);
    expect(counts).not.toContain('applied');
    const batchHeaders = await page.getByRole('table', { name: 'Batches' }).locator('thead th').allInnerTexts();
    expect(batchHeaders).toEqual([
      'Batch',
      'Phase',
      'Routers',
      'queued',
      'sent',
      'failed',
      'skipped',
      'upgraded',
      'unconfirmed',
    ]);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshotThemes(page, 'rollout-firmware');

    // Cancelling says what a cancel does to an upgrade.
    await page.getByRole('button', { name: 'Cancel rollout', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: /^Cancel rollout / });
    await dialog.waitFor();
    expect(await dialog.innerText()).toMatch(/already verifying, testing or flashing the image go on/);
    await screenshotThemes(page, 'rollout-firmware-cancel-dialog');
    await dialog.getByRole('button', { name: 'Keep it' }).click();
    await dialog.waitFor({ state: 'detached' });

    // The list says what it carries.
    await page.getByRole('link', { name: 'All rollouts' }).click();
    const list = page.getByRole('table', { name: 'Rollouts' });
    await list.waitFor();
    const row = await list.locator('tbody tr').first().innerText();
    expect(row).toContain('firmware 23.05.5');
    expect(row).toContain(`23.05.5 (r24106-10cc5fcd00)\n${GOOD_NAME}`);
    expect(row).toContain('(+1 unconfirmed)');
    await screenshotThemes(page, 'rollouts-list-firmware');
  }, 120_000);

  it('removes an image after asking, refused while a rollout carries it', async () => {
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Firmware' }).click();
    await table().waitFor();
    const remove = table().getByRole('button', { name: `Remove ${GOOD_NAME}` });
    const dialog = page.getByRole('dialog', { name: `Remove ${GOOD_NAME}?` });
    await remove.click();
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Remove image' }).click();
    await dialog.getByText('HTTP 409 · image_in_use').waitFor();
    await screenshotThemes(page, 'firmware-remove-in-use');
    await dialog.getByRole('button', { name: 'Cancel', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(await table().locator('tbody tr').count()).toBe(1);

    expect((await api(`/v1/rollouts/${rolloutId}/cancel`, { method: 'POST' })).status).toBe(200);
    await remove.click();
    await dialog.waitFor();
    // A fresh dialog: the earlier refusal is not shown again.
    expect(await dialog.getByText('image_in_use').count()).toBe(0);
    await dialog.getByRole('button', { name: 'Remove image' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByText('No firmware image yet.').waitFor();
    const stored = await api('/v1/firmware/images?keepConfig=true&allowDowngrade=false');
    expect(stored.body!.items).toEqual([]);
  });

  it('shows a read-only caller the images, without upload, roll out or remove', async () => {
    await api('/v1/firmware/images?fileName=' + GOOD_NAME, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream' },
      body: new Uint8Array(archerImage()),
    });
    const reader = await ctl.controller.tokens.create({
      name: 'reader',
      owner: 'rita',
      scopes: ['read'],
      createdBy: 'test',
    });
    const { context, page: readerPage } = await openPage(browser);
    try {
      await signInWithToken(readerPage, ctl.url, reader.secret, '/firmware');
      // How many it fits depends on whether the wizard's rollout above has upgraded the Archers yet.
      await readerPage
        .getByRole('table', { name: 'Firmware images' })
        .getByText(/fits \d+ of 12 routers/)
        .waitFor();
      expect(await readerPage.getByRole('heading', { name: 'Upload an image' }).count()).toBe(0);
      expect(await readerPage.getByRole('button', { name: /^Remove / }).count()).toBe(0);
      expect(await readerPage.getByRole('link', { name: /^Roll out / }).count()).toBe(0);
    } finally {
      await context.close();
    }
  });

  it('ran without a page error or a CSP violation', () => {
    expect(problems).toEqual({ errors: [], cspViolations: [] });
  });
});
