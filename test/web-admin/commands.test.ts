/**
 * The command history pages in Chromium, against a real controller with the demo's 12
 * simulated routers: commands sent earlier (by the API, as the CLI or a closed console panel
 * would) are listed with who sent them, when and their routers by outcome; one opens to every
 * router's result and output, paged, filtered by outcome, and links to its audit events.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommandView } from '../../server/commands/command-view.js';
import { targetsOf, waitForJob } from '../support/commands.js';
import { authedFetch } from '../support/controller.js';
import { seriousAccessibilityViolations } from './support/axe.js';
import { launchChromium, openPage, PHONE, type PageProblems } from './support/browser.js';
import { DEMO_ROUTERS, startConsoleController, type ConsoleController } from './support/console-controller.js';
import { screenshotThemes } from './support/screenshots.js';
import { signInWithToken } from './support/sign-in.js';

describe('the command history pages (simulated fleet, Chromium)', () => {
  let ctl: ConsoleController;
  let browser: Browser;
  let api: ReturnType<typeof authedFetch>;
  let page: Page;
  let problems: PageProblems;
  let drift: CommandView;
  let rollback: CommandView;
  let reprobe: CommandView;
  let one: { id: string; name: string };

  const send = async (path: string, body: unknown) => {
    const r = await api<CommandView>(path, { method: 'POST', body });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return waitForJob(api, r.body.id, (j) => j.state === 'completed');
  };

  beforeAll(async () => {
    [ctl, browser] = await Promise.all([startConsoleController(), launchChromium()]);
    api = authedFetch(ctl.url, ctl.token);
    one = (await api('/v1/routers?limit=1')).body.items[0];
    drift = await send('/v1/commands', { kind: 'check_drift', selector: { all: true } });
    // Nothing is applied anywhere: every router refuses a rollback, each with its reason.
    rollback = await send('/v1/commands', { kind: 'rollback', selector: { all: true } });
    reprobe = await send(`/v1/routers/${one.id}/commands`, { kind: 'reprobe' });
    ({ page, problems } = await openPage(browser));
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await ctl?.close();
  });

  const jobRows = () => page.getByRole('table', { name: 'Commands, newest first' }).locator('tbody tr');

  it('lists every command, newest first, with who sent it and its routers by outcome', async () => {
    await signInWithToken(page, ctl.url, ctl.token);
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Commands' }).click();
    await page.getByRole('heading', { name: 'Commands', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/commands');
    await expect.poll(() => jobRows().count()).toBe(3);
    expect(await jobRows().evaluateAll((rows) => rows.map((r) => r.getAttribute('data-job')))).toEqual([
      reprobe.id,
      rollback.id,
      drift.id,
    ]);
    const [first, second, third] = await jobRows().allInnerTexts();
    expect(first).toMatch(/reprobe\s+token:tester\s+completed\s+1 router\s+1 succeeded/);
    expect(second).toMatch(new RegExp(`rollback\\s+token:tester\\s+completed\\s+all routers \\(${DEMO_ROUTERS}\\)`));
    expect(second).toContain(`${DEMO_ROUTERS} refused`);
    expect(third).toContain(`${DEMO_ROUTERS} succeeded`);

    await page.getByLabel('Kind').selectOption('check_drift');
    await page.waitForURL((u) => u.searchParams.get('kind') === 'check_drift');
    await expect.poll(() => jobRows().count()).toBe(1);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await page.getByLabel('Kind').selectOption('');
    await expect.poll(() => jobRows().count()).toBe(3);
    await screenshotThemes(page, 'commands');
  });

  it("opens one: every router's outcome and output, a page at a time", async () => {
    await signInWithToken(page, ctl.url, ctl.token, '/commands?limit=2');
    await expect.poll(() => jobRows().count()).toBe(2);
    await page.getByRole('button', { name: 'Older commands' }).click();
    await expect.poll(() => jobRows().count()).toBe(3);
    await jobRows().nth(2).getByRole('link').click();
    await page.waitForURL(new RegExp(`/commands/${drift.id}$`));
    await page.getByRole('heading', { name: 'Check drift command', level: 1, exact: true }).waitFor();
    expect(await page.getByTestId('command-state').innerText()).toBe('completed');

    // Paged by the link's size: 5, then 10, then all 12, the button gone.
    await signInWithToken(page, ctl.url, ctl.token, `/commands/${drift.id}?limit=5`);
    const results = page.getByRole('table', { name: 'Per-router results' }).locator('tbody tr');
    await expect.poll(() => results.count()).toBe(5);
    for (const shown of [10, DEMO_ROUTERS]) {
      await page.getByRole('button', { name: 'More routers' }).click();
      await expect.poll(() => results.count()).toBe(shown);
    }
    expect(await page.getByRole('button', { name: 'More routers' }).count()).toBe(0);
    const stored = await targetsOf(api, drift.id);
    const names = await results.evaluateAll((rows) => rows.map((r) => r.getAttribute('data-router')));
    expect(new Set(names)).toEqual(new Set([...stored.values()].map((t) => t.name)));
    for (const t of [...stored.values()].slice(0, 3)) {
      const row = results.and(page.locator(`[data-router="${t.name}"]`));
      expect(await row.innerText()).toContain('succeeded');
      expect(await row.locator('pre').innerText()).toBe(t.output);
      expect(await row.getByRole('link', { name: t.name }).getAttribute('href')).toBe(`/routers/${t.routerId}`);
    }
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshotThemes(page, 'command');

    await page.getByRole('combobox', { name: 'Outcome' }).selectOption('failed');
    await page.getByText('No router failed.').waitFor();
    expect(new URL(page.url()).searchParams.get('state')).toBe('failed');

    await page.getByRole('link', { name: 'events of this command' }).click();
    await page.getByRole('heading', { name: 'Audit', level: 1 }).waitFor();
    await page.getByRole('listitem').filter({ hasText: 'command.created' }).waitFor();
    expect(await page.getByLabel('Command id').inputValue()).toBe(drift.id);
    const actions = await page.locator('.wf-audit-event__action').allInnerTexts();
    expect(actions).toEqual(['command.completed', 'command.created']);
  });

  it("shows a refusal's reason for each router", async () => {
    await signInWithToken(page, ctl.url, ctl.token, `/commands/${rollback.id}`);
    await page.getByRole('heading', { name: 'Rollback command', level: 1, exact: true }).waitFor();
    const results = page.getByRole('table', { name: 'Per-router results' }).locator('tbody tr');
    await expect.poll(() => results.count()).toBe(DEMO_ROUTERS);
    expect(await results.first().innerText()).toMatch(/refused\s+nothing applied: nothing to roll back/);
    await screenshotThemes(page, 'command-refused');
  });

  it('fits a phone-width screen', async () => {
    const phone = await openPage(browser, { viewport: PHONE });
    try {
      await signInWithToken(phone.page, ctl.url, ctl.token, `/commands/${drift.id}`);
      await phone.page.getByRole('table', { name: 'Per-router results' }).waitFor();
      const overflow = await phone.page.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      );
      expect(overflow).toBeLessThanOrEqual(1);
      await screenshotThemes(phone.page, 'command-phone');
      expect(phone.problems.errors).toEqual([]);
    } finally {
      await phone.context.close();
    }
  });

  it('ran without a page error or a CSP violation', () => {
    expect(problems).toEqual({ errors: [], cspViolations: [] });
  });
});
