/**
 * The fleet as code in the console against a real controller (3 simulated routers), in Debian's
 * Chromium: a profile, a rollout policy and an assignment applied from "files" (POST /v1/apply
 * with a source) beside a profile saved through the API. The profiles list marks the applied
 * profile as managed from files and not the other; the applied profile's editor says a save is
 * drift the next apply undoes, and still saves; the Fleet intent page lists the assignment and
 * the policy with their mark, and says how to create a firmware policy, of which there is none.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousAccessibilityViolations } from './support/axe.js';
import { launchChromium, openPage, PHONE, type PageProblems } from './support/browser.js';
import { startConsoleController, type ConsoleController } from './support/console-controller.js';
import { screenshotThemes } from './support/screenshots.js';
import { signInWithToken } from './support/sign-in.js';

const SOURCE = 'git:abc123';
const doc = (kind: string, name: string, spec: unknown) => ({
  apiVersion: 'wrtfleet/v1',
  kind,
  metadata: { name },
  spec,
});
const DOCUMENTS = [
  doc('Profile', 'home', { l3Rewrite: { ttl: { value: 65 } } }),
  doc('RolloutPolicy', 'careful', { canary: 1, batchSize: 5 }),
  doc('Assignment', 'ams-home', { selector: { tags: ['site:ams'] }, profile: 'home', rolloutPolicy: 'careful' }),
];

describe('the fleet as code in the console: managed marks and the Fleet intent page (real controller)', () => {
  let ctl: ConsoleController;
  let browser: Browser;
  let page: Page;
  let problems: PageProblems;

  beforeAll(async () => {
    [ctl, browser] = await Promise.all([startConsoleController({ routersPerModel: 1 }), launchChromium()]);
    ({ page, problems } = await openPage(browser));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await ctl?.close();
  });

  const api = async (path: string, init: { method?: string; body?: unknown } = {}) => {
    const res = await fetch(`${ctl.url}${path}`, {
      method: init.method ?? 'GET',
      headers: {
        authorization: `Bearer ${ctl.token}`,
        ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const profileRow = (name: string) =>
    page.getByRole('table', { name: 'Profiles' }).locator('tbody tr').filter({ hasText: name });
  const intentTable = (name: string) => page.getByRole('table', { name, exact: true });
  const cells = async (table: string, row: string) =>
    (await intentTable(table).locator('tbody tr').filter({ hasText: row }).locator('th, td').allInnerTexts()).map((t) =>
      t.replace(/\s+/g, ' ').trim(),
    );

  it('seeds the fleet: three documents applied from files, one profile saved through the API', async () => {
    const applied = await api('/v1/apply', { method: 'POST', body: { documents: DOCUMENTS, source: SOURCE } });
    expect(applied.status, JSON.stringify(applied.body)).toBe(200);
    const office = await api('/v1/profiles/office', { method: 'PUT', body: { spec: {} } });
    expect(office.status, JSON.stringify(office.body)).toBe(201);
  });

  it('marks the profile the files manage in the profiles list, and only that one', async () => {
    await signInWithToken(page, ctl.url, ctl.token, '/profiles');
    await page.getByRole('heading', { name: 'Profiles', level: 1 }).waitFor();
    await profileRow('office').waitFor();
    // The mark is on the line under its profile's row (the list is narrow), and on no other.
    const marks = page.getByRole('table', { name: 'Profiles' }).getByTestId('managed-mark');
    expect(await marks.count()).toBe(1);
    const home = page.locator('tr#managed-home').getByTestId('managed-mark');
    expect(await home.innerText()).toMatch(/^Managed from files\s+git:abc123 · \S+$/);
    expect(await home.getAttribute('title')).toMatch(/^Managed from files: source git:abc123, applied .+ by \S+/);
    expect(await page.locator('tr#managed-office').count()).toBe(0);
  });

  it("says on the managed profile's editor that a save is drift, and still saves", async () => {
    await profileRow('home').getByRole('link', { name: 'home' }).click();
    await page.getByRole('heading', { name: 'Edit home' }).waitFor();
    const notice = page.getByTestId('managed-notice');
    expect((await notice.innerText()).replace(/\s+/g, ' ')).toMatch(
      /^Managed from files \(source git:abc123, applied .+ by \S+\)\. A change saved here shows as drift in the next wrtfleet plan and the next wrtfleet apply puts the files’ version back\.$/,
    );
    expect(await page.getByRole('button', { name: 'Save revision' }).isEnabled()).toBe(true);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshotThemes(page, 'profile-managed');

    // Saving stays possible: a new revision, and the files' mark is kept (the next plan shows drift).
    const editor = page.getByLabel('Spec (JSON)');
    await editor.fill((await editor.inputValue()).replace('"value": 65', '"value": 66'));
    await page.getByRole('button', { name: 'Save revision' }).click();
    await page.getByText('Saved revision 2 of home.').waitFor();
    await page.getByRole('heading', { name: 'Edit home' }).waitFor();
    await page.getByTestId('managed-notice').waitFor();

    // The office profile, saved through the API only, has no such notice.
    await profileRow('office').getByRole('link', { name: 'office' }).click();
    await page.getByRole('heading', { name: 'Edit office' }).waitFor();
    expect(await page.getByTestId('managed-notice').count()).toBe(0);
  });

  it('lists the assignments and rollout policies, and says how to create a firmware policy', async () => {
    const nav = page.getByRole('navigation', { name: 'Console' });
    await nav.getByRole('link', { name: 'Intent' }).click();
    await page.getByRole('heading', { name: 'Fleet intent', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/intent');
    expect(await nav.locator('[aria-current="page"]').innerText()).toBe('Intent');
    expect(await page.getByRole('heading', { level: 2 }).allInnerTexts()).toEqual([
      'Assignments',
      'Rollout policies',
      'Firmware policies',
    ]);

    await intentTable('Assignments').locator('tbody tr').first().waitFor();
    expect(await intentTable('Assignments').locator('tbody tr').count()).toBe(1);
    const assignment = await cells('Assignments', 'ams-home');
    expect(assignment.slice(0, 4)).toEqual(['ams-home', 'tagged site:ams', 'home@latest', 'careful']);
    expect(assignment[4]).toMatch(/^Managed from files git:abc123 · \S+$/);
    expect(await intentTable('Assignments').getByRole('link', { name: 'home@latest' }).getAttribute('href')).toBe(
      '/profiles?profile=home',
    );

    await intentTable('Rollout policies').locator('tbody tr').first().waitFor();
    const policy = await cells('Rollout policies', 'careful');
    // Canary and batch size as the file says; the rest are the defaults the controller filled in.
    expect(policy.slice(0, 6)).toEqual(['careful', '1', '5', '0%', 'none', 'any time']);
    expect(policy[6]).toMatch(/^Managed from files git:abc123 · \S+$/);

    const firmware = page.getByTestId('intent-firmware-policies');
    expect((await firmware.innerText()).replace(/\s+/g, ' ')).toContain(
      'No firmware policy yet. Write kind: FirmwarePolicy documents in the fleet’s files and run wrtfleet apply -f DIR (see docs/FLEET-AS-CODE.md).',
    );
    expect(await intentTable('Firmware policies').count()).toBe(0);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshotThemes(page, 'fleet-intent');
  });

  it('marks a resource saved through the API only as not managed', async () => {
    const saved = await api('/v1/rollout-policies/hasty', { method: 'PUT', body: { spec: { batchSize: 50 } } });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    // A reload forgets the token (held in memory only): sign in again on the page.
    await signInWithToken(page, ctl.url, ctl.token, '/intent');
    await intentTable('Rollout policies').locator('tbody tr').nth(1).waitFor();
    expect(await cells('Rollout policies', 'hasty')).toEqual(['hasty', '1', '50', '0%', 'none', 'any time', '—']);
  });

  it('is usable at phone width', async () => {
    const { context, page: phone } = await openPage(browser, { viewport: PHONE });
    try {
      await signInWithToken(phone, ctl.url, ctl.token, '/intent');
      await phone.getByRole('table', { name: 'Assignments', exact: true }).locator('tbody tr').first().waitFor();
      await phone.getByRole('table', { name: 'Rollout policies', exact: true }).locator('tbody tr').nth(1).waitFor();
      // The page does not scroll sideways: a wide table scrolls in its own region.
      expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
      await screenshotThemes(phone, 'fleet-intent-phone');
    } finally {
      await context.close();
    }
  });

  it('ran without a page error or a CSP violation', () => {
    expect(problems).toEqual({ errors: [], cspViolations: [] });
  });
});
