/**
 * The rollout form and page against a real controller and the demo's 12 simulated routers (4 of
 * them QCA9558, which cannot offload in hardware), in Debian's Chromium: the form shows what the
 * plan does on the matched routers (changes, unchanged, refused) and leaves the refused ones out;
 * a canary that soaks and waits for a promote shows its time left, then the Promote button.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousAccessibilityViolations } from './support/axe.js';
import { launchChromium, openPage, type PageProblems } from './support/browser.js';
import { startConsoleController, type ConsoleController } from './support/console-controller.js';
import { screenshotThemes } from './support/screenshots.js';
import { signInWithToken } from './support/sign-in.js';

const HW_SPEC = {
  l3Rewrite: { ttl: { value: 64 } },
  flowOffload: { mode: 'hardware' },
  conflictPolicy: 'prefer-offload',
};
/** Longer than a telemetry sample's way to the database (every 4 heartbeats of 1 s, a 1 s flush). */
const SOAK = 7;

describe('the rollout form and page: refused routers, soak and promote (real controller, 12 simulated routers)', () => {
  let ctl: ConsoleController;
  let browser: Browser;
  let page: Page;
  let problems: PageProblems;

  beforeAll(async () => {
    [ctl, browser] = await Promise.all([
      startConsoleController({ config: { telemetry: { flushSeconds: 1 } } }),
      launchChromium(),
    ]);
    ({ page, problems } = await openPage(browser));
    for (const [name, spec] of [
      ['hw', HW_SPEC],
      ['soak', { l3Rewrite: { ttl: { value: 70 } } }],
    ] as const) {
      const res = await fetch(`${ctl.url}/v1/profiles/${name}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${ctl.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ spec }),
      });
      expect(res.status).toBe(201);
    }
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await ctl?.close();
  });

  const api = async (path: string) => {
    const res = await fetch(`${ctl.url}${path}`, { headers: { authorization: `Bearer ${ctl.token}` } });
    expect(res.status, path).toBe(200);
    return (await res.json()) as Record<string, unknown> & { items?: Record<string, unknown>[] };
  };
  const state = () => page.getByTestId('rollout-state');

  it("shows the plan's counts before starting and leaves the refused routers out", async () => {
    await signInWithToken(page, ctl.url, ctl.token, '/rollouts?new=1');
    await page.getByRole('heading', { name: 'New rollout' }).waitFor();
    await page.getByLabel('Profile', { exact: true }).selectOption('hw');
    await page.getByLabel('Every router').check();
    await page.getByText('12 routers match (every router)').waitFor();
    const counts = page.getByRole('list', { name: 'What the plan does on them' });
    await counts.waitFor();
    expect((await counts.innerText()).replace(/\s+/g, ' ')).toBe('8 change 0 unchanged 4 refused');
    const leaveOut = page.getByLabel('Leave out the 4 routers the plan refuses');
    expect(await leaveOut.isChecked()).toBe(true);
    await page.getByLabel('Batch size').fill('4');
    await page.getByText('8 routers in 3 batches, the first a canary of 1.').waitFor();
    // Sent anyway, they would fail: said so, and counted in.
    await leaveOut.uncheck();
    await page.getByText(/They will be sent the revision and fail; the rollout pauses on them/).waitFor();
    await page.getByText('12 routers in 4 batches, the first a canary of 1.').waitFor();
    await leaveOut.check();
    await page.getByText('8 routers in 3 batches, the first a canary of 1.').waitFor();
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshotThemes(page, 'rollouts-wizard-refused');

    await page.getByRole('button', { name: 'Start rollout' }).click();
    await page.waitForURL(/\/rollouts\/[^/?]+$/);
    const id = decodeURIComponent(new URL(page.url()).pathname.split('/').pop()!);
    await state().getByText('completed').waitFor({ timeout: 60_000 });
    await page.getByText(/4 left out \(the plan refuses them\)/).waitFor();
    const routers = page.getByRole('table', { name: 'Routers of the rollout' }).locator('tbody tr');
    await expect.poll(() => routers.count(), { timeout: 5_000 }).toBe(12);
    const leftOut = (await routers.allInnerTexts()).filter((row) => row.includes('left out'));
    expect(leftOut).toHaveLength(4);
    for (const row of leftOut)
      expect(row).toMatch(/skipped\s+left out, the plan refuses it: flowOffload.mode is hardware/);
    const stored = await api(`/v1/rollouts/${id}`);
    expect(stored).toMatchObject({ state: 'completed', total: 12, leftOut: 4 });
    expect(stored.counts).toMatchObject({ applied: 8, failed: 0, skipped: 4 });
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshotThemes(page, 'rollout-left-out');
  }, 120_000);

  it('soaks after the canary with the time left, then waits for a promote behind the in-page dialog', async () => {
    await signInWithToken(page, ctl.url, ctl.token, '/rollouts?new=1');
    await page.getByRole('heading', { name: 'New rollout' }).waitFor();
    await page.getByLabel('Profile', { exact: true }).selectOption('soak');
    await page.getByLabel('SoC').fill('MT7621');
    await page.getByText('4 routers match (SoC MT7621)').waitFor();
    expect(await page.getByRole('list', { name: 'What the plan does on them' }).innerText()).toMatch(/4\s*change/);
    expect(await page.getByLabel(/^Leave out/).count()).toBe(0);
    await page.getByLabel('Batch size').fill('3');
    await page.getByLabel('Soak time (s)').fill('soon');
    await page.getByRole('button', { name: 'Start rollout' }).click();
    await page.getByText('soak time: a whole number (seconds)').waitFor();
    await page.getByLabel('Soak time (s)').fill(String(SOAK));
    await page.getByLabel('Promotion').selectOption('manual');
    await page.getByRole('button', { name: 'Start rollout' }).click();
    await page.waitForURL(/\/rollouts\/[^/?]+$/);
    const id = decodeURIComponent(new URL(page.url()).pathname.split('/').pop()!);

    await state().getByText('soaking').waitFor({ timeout: 30_000 });
    const notice = page.getByTestId('soak-notice');
    const first = Number(/: (\d+) s left/.exec(await notice.innerText())![1]);
    expect(first).toBeGreaterThan(0);
    expect(first).toBeLessThanOrEqual(SOAK);
    // It counts down by itself.
    await expect
      .poll(async () => Number(/: (\d+) s left/.exec(await notice.innerText().catch(() => ': 0 s left'))?.[1] ?? 0), {
        timeout: 5_000,
      })
      .toBeLessThan(first);
    expect(
      await page.getByText(/Canary 1, batches of 3, pause above 0% failed, soak 7 s, promote by hand/).count(),
    ).toBe(1);
    await screenshotThemes(page, 'rollout-soaking');

    await state().getByText('awaiting approval').waitFor({ timeout: 30_000 });
    await page.getByText('The first batch passed its health gates. Batch 1 waits for a promote.').waitFor();
    expect(await page.getByRole('button', { name: 'Pause', exact: true }).count()).toBe(0);
    expect(((await api(`/v1/rollouts/${id}`)).counts as Record<string, number>).queued).toBe(3);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshotThemes(page, 'rollout-awaiting-approval');

    await page.getByRole('button', { name: 'Promote', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: /^Promote rollout / });
    await dialog.waitFor();
    expect(await dialog.innerText()).toMatch(/Batch 1 is sent soak@1 now/);
    await screenshotThemes(page, 'rollout-promote-dialog');
    await dialog.getByRole('button', { name: 'Promote' }).click();
    await dialog.waitFor({ state: 'detached' });
    // Batch 1, the last, goes out: nothing to soak before.
    await state().getByText('completed').waitFor({ timeout: 60_000 });
    const stored = await api(`/v1/rollouts/${id}`);
    expect(stored.counts).toMatchObject({ applied: 4 });
    expect(stored.strategy).toMatchObject({ canary: 1, batchSize: 3, soakSeconds: SOAK, promote: 'manual' });
    const audit = await api(`/v1/audit?rollout=${id}`);
    expect(audit.items!.find((e) => e.action === 'rollout.promoted')).toMatchObject({ actor: 'token:tester' });
  }, 120_000);

  it('ran without a page error or a CSP violation', () => {
    expect(problems).toEqual({ errors: [], cspViolations: [] });
  });
});
