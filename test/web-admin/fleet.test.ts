/**
 * The Fleet page against a real controller and the demo's 12 simulated routers, in Debian's
 * Chromium, as an operator uses it: counts, a filter in the URL, a selection and its bulk
 * actions (tag, "all that match", a command with live per-router results, assign a profile,
 * start a rollout), a router going
 * offline shown without a reload, a read-only operator who sees no actions.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/controller.js';
import { DESKTOP, launchChromium, openPage, PHONE, type PageProblems } from './support/browser.js';
import { seriousAccessibilityViolations } from './support/axe.js';
import { DEMO_ROUTERS, startConsoleController, type ConsoleController } from './support/console-controller.js';
import { screenshotThemes } from './support/screenshots.js';
import { signInWithToken } from './support/sign-in.js';

describe('the Fleet page (real controller, simulated fleet, Chromium)', () => {
  let ctl: ConsoleController;
  let browser: Browser;
  let page: Page;
  let problems: PageProblems;

  const count = (key: string) => page.locator(`[data-count="${key}"]`).innerText();
  const bodyRows = () => page.getByRole('table').locator('tbody tr');
  const waitForRows = async (n: number) => {
    await eventually(async () => (await bodyRows().count()) === n, 15_000, `${n} rows`);
  };
  const clearSelection = async () => {
    const clear = page.getByRole('button', { name: 'Clear selection' });
    if (await clear.count()) await clear.click();
  };

  beforeAll(async () => {
    [ctl, browser] = await Promise.all([startConsoleController(), launchChromium()]);
    ({ page, problems } = await openPage(browser, { viewport: DESKTOP }));
    await signInWithToken(page, ctl.url, ctl.token, '/fleet');
  });

  afterAll(async () => {
    await browser?.close();
    await ctl?.close();
  });

  it('shows the 12 demo routers with their SoCs, the counts, and says it is live', async () => {
    await waitForRows(DEMO_ROUTERS);
    const text = (await bodyRows().allInnerTexts()).join('\n');
    for (const soc of ['MT7621', 'QCA9558', 'MT7986']) expect(text).toContain(soc);
    await eventually(async () => (await count('total')) === String(DEMO_ROUTERS), 10_000, 'counts');
    expect(await count('online')).toBe(String(DEMO_ROUTERS));
    await page
      .getByRole('status')
      .filter({ hasText: /^Live$/ })
      .waitFor();
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshotThemes(page, 'fleet-table');
  });

  it('filters by SoC: the URL, the table and the counts change; sorting by name descending', async () => {
    await page.getByLabel('SoC').fill('MT7621');
    await page.waitForURL(/[?&]soc=MT7621/);
    await waitForRows(DEMO_ROUTERS / 3);
    expect((await bodyRows().allInnerTexts()).every((row) => row.includes('MT7621'))).toBe(true);
    await eventually(async () => (await count('total')) === String(DEMO_ROUTERS / 3), 10_000, 'filtered counts');

    // The table is by name already (the default order): one click turns it around.
    await page.getByRole('button', { name: /^Name/ }).click();
    await page.waitForURL(/[?&]sort=-name/);
    await eventually(async () => {
      const names = await page.getByRole('table').locator('tbody tr td:nth-child(2)').allInnerTexts();
      return names.length === DEMO_ROUTERS / 3 && names.join() === [...names].sort().reverse().join();
    });
    expect(await page.locator('th[aria-sort="descending"]').innerText()).toContain('Name');

    // The link is the view: opened afresh, it shows the same routers.
    const link = page.url();
    const other = await openPage(browser, { viewport: DESKTOP });
    try {
      await signInWithToken(other.page, ctl.url, ctl.token, new URL(link).pathname + new URL(link).search);
      await eventually(async () => (await other.page.getByRole('table').locator('tbody tr').count()) === 4);
      expect(await other.page.getByLabel('SoC').inputValue()).toBe('MT7621');
    } finally {
      await other.context.close();
    }
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshotThemes(page, 'fleet-filtered');
  });

  it('tags a selection and shows the tag; the tag filter finds exactly those', async () => {
    await page.getByLabel('Select the routers on this page').check();
    await page.getByRole('status').filter({ hasText: '4 selected' }).waitFor();
    await page.getByRole('button', { name: 'Tag…', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Tag 4 routers' });
    await dialog.getByLabel('Tags').fill('site:lab');
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await dialog.getByRole('button', { name: 'Add tags' }).click();
    await page.getByText('Tagged 4 of 4 routers').waitFor();
    await eventually(async () => (await page.locator('.wf-fleet-tag', { hasText: 'site:lab' }).count()) === 4);

    await page.getByLabel('SoC').fill('');
    await page.getByLabel('Tags').fill('site:lab');
    await page.waitForURL((url) => url.searchParams.get('tags') === 'site:lab' && !url.searchParams.has('soc'));
    await waitForRows(4);
    const tagged = await ctl.controller.db.prisma.router.findMany({ where: { tags: { has: 'site:lab' } } });
    expect(tagged.map((r) => r.soc)).toEqual(['MT7621', 'MT7621', 'MT7621', 'MT7621']);
    await page.getByLabel('Tags').fill('');
    await waitForRows(DEMO_ROUTERS);
  });

  it('"select all N that match" acts on every matching router, not only the ticked one', async () => {
    await page.getByLabel('SoC').fill('MT7986');
    await waitForRows(4);
    await page.getByRole('table').getByRole('checkbox').nth(1).check();
    await page.getByRole('button', { name: 'Select all 4 that match' }).click();
    await page.getByRole('status').filter({ hasText: '4 selected (all that match the filter)' }).waitFor();
    await page.getByRole('button', { name: 'Untag…' }).click();
    // Untag first proves nothing carries it yet: 0 changed.
    await page.getByRole('dialog').getByLabel('Tags').fill('batch:a');
    await page.getByRole('dialog').getByRole('button', { name: 'Remove tags' }).click();
    await page.getByText('Untagged 0 of 4 routers').waitFor();
    await page.getByRole('button', { name: 'Tag…', exact: true }).click();
    await page.getByRole('dialog').getByLabel('Tags').fill('batch:a');
    await page.getByRole('dialog').getByRole('button', { name: 'Add tags' }).click();
    await page.getByText('Tagged 4 of 4 routers').waitFor();
    const events = await ctl.controller.db.prisma.auditEvent.findMany({ where: { action: 'router.tags.set' } });
    // Four tagged in the test before, four here; each router its own event, with the actor.
    expect(events).toHaveLength(8);
    expect(new Set(events.map((e) => e.actor)).size).toBe(1);
    expect(events[0]!.actor).not.toBe('');
    await clearSelection();
  });

  it('runs "check drift" on a selection and shows each router\'s result live', async () => {
    await page.getByLabel('Select the routers on this page').check();
    await page.getByRole('button', { name: 'Run command…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Run a command on 4 routers' });
    await dialog.getByLabel('Command').selectOption('check_drift');
    await dialog.getByRole('button', { name: 'Run' }).click();
    const panel = page.getByRole('region', { name: /check drift/ });
    await panel.waitFor();
    await eventually(
      async () => (await panel.getByRole('list', { name: 'Per-router results' }).getByRole('listitem').count()) === 4,
      30_000,
      'four per-router results',
    );
    await panel.getByRole('heading', { name: /4\/4 done · completed/ }).waitFor({ timeout: 30_000 });
    const results = await panel.getByRole('listitem').allInnerTexts();
    for (const line of results) expect(line).toMatch(/MT7986|[a-z0-9-]+/);
    // Every router answered, each with the agent's account (a drift check finds none or some).
    expect(results.every((line) => /succeeded|failed|refused/.test(line))).toBe(true);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshotThemes(page, 'fleet-command');
    await panel.getByRole('button', { name: 'Close' }).click();
    await clearSelection();
    await page.getByLabel('SoC').fill('');
    await waitForRows(DEMO_ROUTERS);
  });

  it('assigns a profile to a selection, then starts a rollout on it that the table shows applied', async () => {
    const put = await fetch(`${ctl.url}/v1/profiles/fleet-ttl`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${ctl.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ spec: { l3Rewrite: { ttl: { enabled: true, value: 65 } } } }),
    });
    expect(put.status, await put.text()).toBeLessThan(300);
    await page.getByLabel('SoC').fill('QCA9558');
    await waitForRows(4);
    await page.getByLabel('Select the routers on this page').check();
    await page.getByRole('button', { name: 'Assign profile…' }).click();
    const assign = page.getByRole('dialog', { name: 'Assign a profile to 4 routers' });
    await assign.getByLabel('Profile').selectOption('fleet-ttl');
    await assign.getByRole('button', { name: 'Assign' }).click();
    await page.getByText('Assigned fleet-ttl to 4 of 4 routers').waitFor();
    const assigned = await ctl.controller.db.prisma.router.findMany({
      where: { assignment: { profile: { name: 'fleet-ttl' } } },
      select: { soc: true },
    });
    expect(assigned.map((r) => r.soc)).toEqual(['QCA9558', 'QCA9558', 'QCA9558', 'QCA9558']);

    await page.getByLabel('Select the routers on this page').check();
    await page.getByRole('button', { name: 'Start rollout…' }).click();
    const start = page.getByRole('dialog', { name: 'Start a rollout on 4 routers' });
    await start.getByLabel('Profile').selectOption('fleet-ttl');
    await start.getByLabel('Canary size').fill('1');
    await start.getByLabel('Batch size').fill('2');
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await start.getByRole('button', { name: 'Start rollout' }).click();
    const started = page.getByText(/Rollout \S+ of fleet-ttl started on 4 routers/);
    await started.waitFor().catch(async (err: Error) => {
      await page.screenshot({ path: 'test-results/web-admin/fleet-rollout-failure.png' });
      throw err;
    });
    const rolloutId = /Rollout (\S+) of/.exec(await started.innerText())![1]!;
    await eventually(
      async () =>
        (await ctl.controller.db.prisma.rollout.findUnique({ where: { id: rolloutId } }))?.state === 'completed',
      30_000,
      'the rollout to complete',
    );
    // The live feed brings the applied revision into the rows without a reload.
    await eventually(
      async () => (await bodyRows().allInnerTexts()).filter((row) => row.includes('fleet-ttl@1')).length === 4,
      15_000,
      'four rows showing fleet-ttl@1 applied',
    );
    await clearSelection();
    await page.getByLabel('SoC').fill('');
    await waitForRows(DEMO_ROUTERS);
  });

  it('shows a router going offline without a reload', async () => {
    await eventually(async () => (await count('online')) === String(DEMO_ROUTERS), 10_000, 'all online');
    const navigations: string[] = [];
    page.on('framenavigated', (frame) => navigations.push(frame.url()));
    await ctl.fleet[0]!.stop();
    const router = await eventually(
      () => ctl.controller.db.prisma.router.findFirst({ where: { status: 'offline' } }),
      15_000,
      'a router stored offline',
    );
    const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: router.name, exact: true }) });
    await eventually(async () => (await row.innerText()).includes('offline'), 15_000, 'the row to say offline');
    await eventually(async () => (await count('offline')) === '1', 10_000, 'offline count 1');
    expect(await count('online')).toBe(String(DEMO_ROUTERS - 1));
    expect(navigations).toEqual([]);
    expect(problems).toEqual({ errors: [], cspViolations: [] });
  });

  it('says "reconnecting" when the live stream is lost, and goes live again', async () => {
    await page.route('**/v1/routers/events', (route) => route.abort('connectionreset'));
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Profiles' }).click();
    await page.getByRole('heading', { name: 'Profiles', level: 1 }).waitFor();
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Fleet' }).click();
    await page.getByRole('status').filter({ hasText: 'Reconnecting…' }).waitFor();
    // The table stays as it was meanwhile.
    await waitForRows(DEMO_ROUTERS);
    await page.unroute('**/v1/routers/events');
    await page
      .getByRole('status')
      .filter({ hasText: /^Live$/ })
      .waitFor({ timeout: 30_000 });
  });

  it('is usable at phone width: the table scrolls in its own frame', async () => {
    const phone = await openPage(browser, { viewport: PHONE });
    try {
      await signInWithToken(phone.page, ctl.url, ctl.token);
      await phone.page
        .getByRole('table')
        .locator('tbody tr')
        .nth(DEMO_ROUTERS - 1)
        .waitFor();
      const overflow = await phone.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      const frame = phone.page.getByRole('region', { name: 'Routers table' });
      expect(await frame.evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true);
      expect(await seriousAccessibilityViolations(phone.page)).toEqual([]);
      await screenshotThemes(phone.page, 'fleet-table-phone');
    } finally {
      await phone.context.close();
    }
  });

  it('is usable from the keyboard: Tab reaches a row, Space selects it, an action opens, Escape closes it', async () => {
    /** Presses `key` until `target` has the focus: it is reachable from the keyboard alone. */
    const pressUntilFocused = async (target: ReturnType<Page['locator']>, key: string, max = 80) => {
      for (let i = 0; i < max; i++) {
        if (await target.evaluate((el) => el === document.activeElement)) return;
        await page.keyboard.press(key);
      }
      throw new Error(`${key} x ${max} never focused ${String(target)}`);
    };
    await page.getByLabel('SoC').fill('MT7621');
    await waitForRows(4);
    await page.getByRole('link', { name: 'Fleet', exact: true }).focus();
    const firstRow = page.getByRole('table').locator('tbody').getByRole('checkbox').first();
    await pressUntilFocused(firstRow, 'Tab');
    await page.keyboard.press('Space');
    await page.getByRole('status').filter({ hasText: '1 selected' }).waitFor();

    const untag = page.getByRole('button', { name: 'Untag…' });
    await pressUntilFocused(untag, 'Shift+Tab');
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Untag 1 router' });
    await dialog.waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });

    const tag = page.getByRole('button', { name: 'Tag…', exact: true });
    await pressUntilFocused(tag, 'Shift+Tab');
    await page.keyboard.press('Enter');
    // The dialog puts the focus in its first field; Tab moves on to its buttons.
    await page.keyboard.type('kb:yes');
    const add = page.getByRole('dialog', { name: 'Tag 1 router' }).getByRole('button', { name: 'Add tags' });
    await pressUntilFocused(add, 'Tab', 10);
    await page.keyboard.press('Enter');
    await page.getByText('Tagged 1 of 1 routers').waitFor();
    expect(await ctl.controller.db.prisma.router.count({ where: { tags: { has: 'kb:yes' } } })).toBe(1);
    await clearSelection();
    await page.getByLabel('SoC').fill('');
    await waitForRows(DEMO_ROUTERS);
  });

  it('shows a read-only operator no selection and no actions', async () => {
    const { secret } = await ctl.controller.tokens.create({
      name: 'viewer',
      owner: 'bob',
      scopes: ['read'],
      createdBy: 'test',
    });
    const viewer = await openPage(browser, { viewport: DESKTOP });
    try {
      await signInWithToken(viewer.page, ctl.url, secret);
      await viewer.page
        .getByRole('table')
        .locator('tbody tr')
        .nth(DEMO_ROUTERS - 1)
        .waitFor();
      expect(await viewer.page.getByRole('checkbox').count()).toBe(0);
      expect(await viewer.page.getByRole('button', { name: 'Run command…' }).count()).toBe(0);
      const forged = await fetch(`${ctl.url}/v1/routers/bulk`, {
        method: 'POST',
        headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
        body: JSON.stringify({ action: 'tag', tags: ['x'], filter: {} }),
      });
      expect(forged.status).toBe(403);
    } finally {
      await viewer.context.close();
    }
  });
  // Last: it decommissions a demo router, which the tests above count on.
  it('finds routers by what they can do and run, and hides decommissioned ones unless asked for', async () => {
    const api = async (path: string, init: RequestInit = {}) =>
      (await fetch(`${ctl.url}${path}`, {
        ...init,
        headers: { authorization: `Bearer ${ctl.token}`, 'content-type': 'application/json' },
      }).then((r) => r.json())) as Record<string, unknown> & { total: number };
    await signInWithToken(page, ctl.url, ctl.token, '/fleet');
    await waitForRows(DEMO_ROUTERS);
    for (const header of ['Can', 'Datapath', 'Offload'])
      expect(await page.getByRole('columnheader', { name: header }).count()).toBe(1);
    // Without a sort the table is by name: the header says so.
    expect(await page.locator('th[aria-sort="ascending"]').innerText()).toContain('Name');

    // MT7621 and MT7986 offload in hardware, QCA9558 does not.
    const hardware = (await api('/v1/routers/counts?hardwareOffload=yes')).total;
    expect(hardware).toBeGreaterThan(0);
    expect(hardware).toBeLessThan(DEMO_ROUTERS);
    await page.getByLabel('HW offload', { exact: true }).selectOption('yes');
    await page.waitForURL(/[?&]hardwareOffload=yes/);
    await waitForRows(hardware);
    const abilities = await page.getByRole('table').locator('tbody td.wf-fleet-abilities').allInnerTexts();
    expect(abilities.every((cell) => cell.includes('HW offload'))).toBe(true);
    await eventually(async () => (await count('total')) === String(hardware), 10_000, 'offload counts');
    await screenshotThemes(page, 'fleet-abilities');
    await page.getByLabel('HW offload', { exact: true }).selectOption('');

    const running = (await api('/v1/routers/counts?datapath=none')).total;
    await page.getByLabel('Datapath', { exact: true }).selectOption('none');
    await page.waitForURL(/[?&]datapath=none/);
    await eventually(async () => (await count('total')) === String(running), 10_000, 'datapath counts');
    await page.getByLabel('Datapath', { exact: true }).selectOption('');
    await waitForRows(DEMO_ROUTERS);

    const retired = ctl.fleet[0]!;
    const items = (await api('/v1/routers?limit=100')).items as { id: string; identity: string }[];
    const id = items.find((r) => r.identity === retired.identity)!.id;
    await api(`/v1/routers/${id}/decommission`, { method: 'POST', body: '{}' });
    await eventually(async () => (await count('total')) === String(DEMO_ROUTERS - 1), 15_000, 'live counts');
    await waitForRows(DEMO_ROUTERS - 1);
    await page.getByLabel('Decommissioned').selectOption('only');
    await page.waitForURL(/[?&]decommissioned=only/);
    await waitForRows(1);
    expect(await bodyRows().first().innerText()).toContain('decommissioned');
    expect(await count('total')).toBe('1');
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshotThemes(page, 'fleet-decommissioned');

    // Its page says what it is and offers only bringing it back, not "Rotate credentials".
    await bodyRows().first().getByRole('link').first().click();
    await page.waitForURL(new RegExp(`/routers/${id}`));
    const actions = page.getByRole('group', { name: 'Router actions' });
    await actions.getByRole('button', { name: 'Bring back (re-enroll)' }).waitFor();
    expect(await actions.getByRole('button').allInnerTexts()).toEqual(['Bring back (re-enroll)']);
    expect(await page.getByText('in step').count()).toBe(0);
    await screenshotThemes(page, 'router-decommissioned');
    await page.goBack();
    await page.getByLabel('Decommissioned').selectOption('');
    await waitForRows(DEMO_ROUTERS - 1);
  });
});
