/**
 * Alerts in the console against a real controller (3 simulated routers online) with three more
 * routers written offline into its database, in Debian's Chromium: nothing firing at first; then
 * the router-offline rule, tuned to fire at once, fires for the three, and the navigation's badge
 * counts them; the Alerts page lists them; acknowledging one and silencing another go through the
 * API and show; the silence is ended from its list; the router page shows its own alert; a
 * read-only caller sees the alerts without a button to act on them.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousAccessibilityViolations } from './support/axe.js';
import { launchChromium, openPage, PHONE, type PageProblems } from './support/browser.js';
import { startConsoleController, type ConsoleController } from './support/console-controller.js';
import { screenshotThemes } from './support/screenshots.js';
import { signInWithToken } from './support/sign-in.js';

interface AlertBody {
  id: string;
  status: string;
  subject: { id: string; name: string };
  acknowledged: { by: string; note: string | null } | null;
  silence: { id: string; endsAt: string } | null;
}

const OFFLINE = [
  { name: 'edge-ams-1', tags: ['site:ams'] },
  { name: 'edge-ams-2', tags: ['site:ams'] },
  { name: 'edge-fra-1', tags: ['site:fra'] },
];

describe('alerts in the console: badge, list, acknowledge, silence, router page (real controller)', () => {
  let ctl: ConsoleController;
  let browser: Browser;
  let page: Page;
  let problems: PageProblems;
  const ids = new Map<string, string>();

  beforeAll(async () => {
    [ctl, browser] = await Promise.all([startConsoleController({ routersPerModel: 1 }), launchChromium()]);
    ({ page, problems } = await openPage(browser));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await ctl?.close();
  });

  const api = async <T = Record<string, unknown>>(path: string, init: { method?: string; body?: unknown } = {}) => {
    const res = await fetch(`${ctl.url}${path}`, {
      method: init.method ?? 'GET',
      headers: {
        authorization: `Bearer ${ctl.token}`,
        ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    return { status: res.status, body: (res.status === 204 ? null : await res.json()) as T };
  };
  const evaluate = () => ctl.controller.alerting.evaluator.evaluate({ force: true });
  const alertOf = async (name: string) => {
    const { body } = await api<{ items: AlertBody[] }>(`/v1/alerts?router=${ids.get(name)}`);
    return body.items[0]!;
  };
  const nav = () => page.getByRole('navigation', { name: 'Console' });
  const badge = () => page.getByTestId('alerts-badge');
  const table = () => page.getByRole('table', { name: 'Alerts', exact: true });
  const row = (name: string) => table().locator('tbody tr').filter({ hasText: name });

  it('says nothing is firing, with no badge, before any alert', async () => {
    await signInWithToken(page, ctl.url, ctl.token, '/alerts');
    await page.getByRole('heading', { name: 'Alerts', level: 1 }).waitFor();
    await page.getByText('Nothing is firing: every rule is quiet.').waitFor();
    expect(await badge().count()).toBe(0);
    // The rules, read-only, as shipped.
    const rules = page.getByRole('table', { name: 'Alert rules' });
    await rules.getByText('router-offline').waitFor();
    const offline = await rules.locator('tbody tr').filter({ hasText: 'router-offline' }).innerText();
    expect(offline).toMatch(/router-offline\s+router offline\s+warning\s+5m\s+site\s+yes\s+0/);
    await page.getByText('No silence is running or waiting.').waitFor();
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshotThemes(page, 'alerts-empty');
  });

  it('counts the firing alerts in the navigation and lists them', async () => {
    const tuned = await api('/v1/alert-rules/router-offline', {
      method: 'PATCH',
      body: { forSeconds: 0, groupWaitSeconds: 0 },
    });
    expect(tuned.status, JSON.stringify(tuned.body)).toBe(200);
    const prisma = ctl.controller.db.prisma;
    await prisma.router.createMany({
      data: OFFLINE.map((r, i) => ({
        name: r.name,
        identity: `test:alerts:${i}`,
        status: 'offline' as const,
        lastSeenAt: new Date(Date.now() - 600_000),
        tags: r.tags,
      })),
    });
    for (const r of await prisma.router.findMany({ where: { name: { in: OFFLINE.map((o) => o.name) } } }))
      ids.set(r.name, r.id);
    expect(await evaluate()).toMatchObject({ fired: 3 });

    // The badge reads the summary every 15 s, on any page.
    await nav().getByRole('link', { name: 'Fleet' }).click();
    await expect.poll(() => badge().innerText(), { timeout: 20_000 }).toMatch(/^3\s*firing$/);
    expect(await badge().getAttribute('class')).toContain('wf-nav__badge--warning');
    expect(await nav().getByRole('link', { name: 'Alerts' }).innerText()).toMatch(/^Alerts\s*3/);

    await nav().getByRole('link', { name: 'Alerts' }).click();
    await page.getByRole('heading', { name: 'Alerts', level: 1 }).waitFor();
    await expect.poll(() => table().locator('tbody tr').count()).toBe(3);
    const headers = (await table().locator('thead th').allInnerTexts()).map((h) => h.replace(/[▲▼↕]/g, '').trim());
    expect(headers).toEqual([
      'Severity',
      'Status',
      'Subject',
      'Summary',
      'Group',
      'Fired',
      'Acknowledged',
      'Silenced until',
      'Actions',
    ]);
    const ams = (await row('edge-ams-1').locator('th, td').allInnerTexts()).map((t) => t.trim());
    expect(ams.slice(0, 3)).toEqual(['warning', 'firing', 'edge-ams-1\nrouter']);
    expect(ams[3]).toContain('edge-ams-1');
    expect(ams[4]).toBe('site:ams');
    expect(ams[6]).toBe('—');
    // Resolved ones have no actions, and say when they resolved.
    await page.getByRole('button', { name: 'Resolved', exact: true }).click();
    await page.getByText('No alert has resolved yet.').waitFor();
    expect(await table().count()).toBe(0);
    await page.getByRole('button', { name: 'All', exact: true }).click();
    await expect.poll(() => table().locator('tbody tr').count()).toBe(3);
    expect(await table().locator('thead th').allInnerTexts()).toContain('Resolved ↕');
    await page.getByRole('button', { name: 'Active', exact: true }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('view')).toBe(null);
    expect(await row('edge-fra-1').locator('td').nth(3).innerText()).toBe('site:fra');
    expect(await row('edge-ams-1').getByRole('link', { name: 'edge-ams-1' }).getAttribute('href')).toBe(
      `/routers/${ids.get('edge-ams-1')}`,
    );
    // Filters: a severity none has.
    await page.getByLabel('Severity', { exact: true }).selectOption('critical');
    await page.getByText('No alert matches these filters.').waitFor();
    expect(new URL(page.url()).searchParams.get('severity')).toBe('critical');
    await page.getByLabel('Severity', { exact: true }).selectOption('');
    await expect.poll(() => table().locator('tbody tr').count()).toBe(3);
    await page.getByLabel('Rule', { exact: true }).selectOption('router-offline');
    await expect.poll(() => table().locator('tbody tr').count()).toBe(3);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshotThemes(page, 'alerts');
  });

  it('acknowledges an alert with a note: the API says so and the row shows it', async () => {
    await row('edge-ams-1').getByRole('button', { name: 'Acknowledge router-offline on edge-ams-1' }).click();
    const dialog = page.getByRole('dialog', { name: /^Acknowledge router-offline on / });
    await dialog.waitFor();
    await dialog.getByLabel('Note').fill('power cut at the AMS site, on it');
    await screenshotThemes(page, 'alerts-ack-dialog');
    await dialog.getByRole('button', { name: 'Acknowledge', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });

    const acked = await alertOf('edge-ams-1');
    expect(acked.status).toBe('acknowledged');
    expect(acked.acknowledged).toMatchObject({ note: 'power cut at the AMS site, on it' });
    expect(acked.acknowledged!.by).toContain('tester');
    await expect.poll(() => row('edge-ams-1').locator('td').nth(1).innerText()).toBe('acknowledged');
    expect(await row('edge-ams-1').innerText()).toContain('“power cut at the AMS site, on it”');
    expect(
      await row('edge-ams-1')
        .getByRole('button', { name: /^Acknowledge / })
        .count(),
    ).toBe(0);
    // The badge counts only what nobody is on.
    await expect.poll(() => badge().innerText()).toMatch(/^2\s*firing$/);
  });

  it("silences one router's alert: the silence is created and the alert shows silenced", async () => {
    await row('edge-fra-1').getByRole('button', { name: 'Silence router-offline on edge-fra-1' }).click();
    const dialog = page.getByRole('dialog', { name: 'Silence router-offline on edge-fra-1?' });
    await dialog.waitFor();
    const scopes = await dialog
      .getByRole('radio')
      .evaluateAll((els) => els.map((el) => (el as HTMLInputElement).closest('label')!.textContent));
    expect(scopes).toEqual([
      'Rule router-offline on edge-fra-1',
      'Every rule on edge-fra-1',
      'Rule router-offline everywhere',
      '1 hour',
      '4 hours',
      '24 hours',
      'until…',
    ]);
    // The comment is required, and a custom end must be in the future.
    await dialog.getByLabel('until…').check();
    await dialog.getByLabel('Ends at').fill('2020-01-01T10:00');
    await dialog.getByRole('button', { name: 'Silence', exact: true }).click();
    await dialog.getByText('Say why: the silence is listed with its comment.').waitFor();
    await dialog.getByText('The end must be in the future.').waitFor();
    expect((await api<{ items: unknown[] }>('/v1/silences')).body.items).toEqual([]);

    await dialog.getByLabel('Every rule on edge-fra-1').check();
    await dialog.getByLabel('4 hours', { exact: true }).check();
    await dialog.getByLabel('Comment').fill('FRA uplink maintenance');
    expect(await dialog.getByText('Say why').count()).toBe(0);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshotThemes(page, 'alerts-silence-dialog');
    const before = Date.now();
    const [request] = await Promise.all([
      page.waitForRequest((r) => r.method() === 'POST' && new URL(r.url()).pathname === '/v1/silences'),
      dialog.getByRole('button', { name: 'Silence', exact: true }).click(),
    ]);
    const sent = request.postDataJSON() as { selector: unknown; comment: string; endsAt: string; rule?: string };
    expect(sent).toEqual({
      comment: 'FRA uplink maintenance',
      endsAt: expect.any(String),
      selector: { ids: [ids.get('edge-fra-1')] },
    });
    const hours = (Date.parse(sent.endsAt) - before) / 3_600_000;
    expect(hours).toBeGreaterThan(3.99);
    expect(hours).toBeLessThan(4.01);
    expect((await request.response())!.status()).toBe(201);
    await dialog.waitFor({ state: 'detached' });

    const silences = (await api<{ items: { id: string; comment: string; rule: string | null }[] }>('/v1/silences')).body
      .items;
    expect(silences).toEqual([expect.objectContaining({ comment: 'FRA uplink maintenance', rule: null })]);
    await evaluate();
    const silenced = await alertOf('edge-fra-1');
    expect(silenced.status).toBe('silenced');
    expect(silenced.silence?.id).toBe(silences[0]!.id);

    await page.getByRole('button', { name: 'Refresh' }).click();
    await expect.poll(() => row('edge-fra-1').locator('td').nth(1).innerText()).toBe('silenced');
    expect(await row('edge-fra-1').locator('td').nth(6).innerText()).toBe(
      await page.evaluate(
        (iso) => new Date(iso).toLocaleString(undefined, { dateStyle: 'short', timeStyle: 'short' }),
        silenced.silence!.endsAt,
      ),
    );
    const list = page.getByRole('table', { name: 'Silences' });
    await expect
      .poll(() => list.locator('tbody tr').first().innerText())
      .toMatch(/^every rule, router edge-fra-1\s+FRA uplink maintenance\s+running/);
    await expect.poll(() => badge().innerText(), { timeout: 20_000 }).toMatch(/^1\s*firing$/);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshotThemes(page, 'alerts-silenced');
  });

  it('ends the silence from its list', async () => {
    const list = page.getByRole('table', { name: 'Silences' });
    await list.getByRole('button', { name: 'End now: every rule, router edge-fra-1' }).click();
    const dialog = page.getByRole('dialog', { name: 'End this silence now?' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'End silence' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByText('No silence is running or waiting.').waitFor();
    expect((await api<{ items: unknown[] }>('/v1/silences')).body.items).toEqual([]);
    await evaluate();
    expect((await alertOf('edge-fra-1')).status).toBe('firing');
    await page.getByRole('button', { name: 'Refresh' }).click();
    await expect.poll(() => row('edge-fra-1').locator('td').nth(1).innerText()).toBe('firing');
  });

  it("shows a router's active alerts on its page, and none on a router without", async () => {
    await row('edge-ams-2').getByRole('link', { name: 'edge-ams-2' }).click();
    await page.getByRole('heading', { name: 'edge-ams-2', level: 1 }).waitFor();
    const panel = page.getByRole('region', { name: 'Active alerts (1)' });
    await panel.waitFor();
    const cells = (await panel.locator('tbody tr').first().locator('th, td').allInnerTexts()).map((t) => t.trim());
    expect(cells.slice(0, 3)).toEqual(['warning', 'firing', 'router-offline']);
    expect(await panel.getByRole('button', { name: 'Acknowledge router-offline on edge-ams-2' }).count()).toBe(1);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshotThemes(page, 'router-alerts');

    // Acknowledged from here: the panel shows it, the API says so.
    await panel.getByRole('button', { name: 'Acknowledge router-offline on edge-ams-2' }).click();
    const dialog = page.getByRole('dialog', { name: /^Acknowledge router-offline on / });
    await dialog.getByRole('button', { name: 'Acknowledge', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    await expect.poll(() => panel.locator('tbody td').nth(1).innerText()).toBe('acknowledged');
    expect((await alertOf('edge-ams-2')).status).toBe('acknowledged');

    // A router of the simulated fleet, online, has none: no panel at all.
    const online = await ctl.controller.db.prisma.router.findFirstOrThrow({ where: { status: 'online' } });
    await signInWithToken(page, ctl.url, ctl.token, `/routers/${online.id}`);
    await page.getByRole('heading', { name: online.name, level: 1 }).waitFor();
    await page.getByRole('region', { name: 'Facts' }).waitFor();
    expect(await page.getByRole('region', { name: /^Active alerts/ }).count()).toBe(0);
  });

  it('shows a read-only caller the alerts and silences without acknowledge, silence or end', async () => {
    expect(
      (
        await api('/v1/silences', {
          method: 'POST',
          body: { rule: 'router-offline', comment: 'quiet please', endsAt: new Date(Date.now() + 3_600_000) },
        })
      ).status,
    ).toBe(201);
    const reader = await ctl.controller.tokens.create({
      name: 'reader',
      owner: 'rita',
      scopes: ['read'],
      createdBy: 'test',
    });
    const { context, page: readerPage } = await openPage(browser);
    try {
      await signInWithToken(readerPage, ctl.url, reader.secret, '/alerts');
      const rows = readerPage.getByRole('table', { name: 'Alerts', exact: true }).locator('tbody tr');
      await expect.poll(() => rows.count()).toBe(3);
      await readerPage.getByRole('table', { name: 'Silences' }).getByText('quiet please').waitFor();
      expect(await readerPage.getByRole('columnheader', { name: 'Actions' }).count()).toBe(0);
      expect(await readerPage.getByRole('button', { name: /^(Acknowledge |Silence |End now)/ }).count()).toBe(0);
      // A silence of a router none of the alerts shown names: its name is read for the list.
      const quiet = await api('/v1/silences', {
        method: 'POST',
        body: {
          selector: { ids: [ids.get('edge-ams-2')] },
          comment: 'ams-2 rack',
          endsAt: new Date(Date.now() + 60_000),
        },
      });
      expect(quiet.status).toBe(201);
      await signInWithToken(readerPage, ctl.url, reader.secret, '/alerts?view=resolved');
      await readerPage.getByText('No alert has resolved yet.').waitFor();
      await readerPage
        .getByRole('table', { name: 'Silences' })
        .getByRole('rowheader', { name: 'every rule, router edge-ams-2' })
        .waitFor();
      await signInWithToken(readerPage, ctl.url, reader.secret, `/routers/${ids.get('edge-fra-1')}`);
      await readerPage.getByRole('region', { name: 'Active alerts (1)' }).waitFor();
      expect(await readerPage.getByRole('button', { name: /^(Acknowledge|Silence) / }).count()).toBe(0);
    } finally {
      await context.close();
    }
  });

  it('turns the badge red when a critical alert fires, and fits a phone', async () => {
    const rule = await api('/v1/alert-rules', {
      method: 'POST',
      body: {
        name: 'fra-down',
        kind: 'router_offline',
        severity: 'critical',
        selector: { tags: ['site:fra'] },
        forSeconds: 0,
        groupWaitSeconds: 0,
      },
    });
    expect(rule.status, JSON.stringify(rule.body)).toBe(201);
    expect(await evaluate()).toMatchObject({ fired: 1 });
    await signInWithToken(page, ctl.url, ctl.token, '/alerts?severity=critical');
    await expect.poll(() => table().locator('tbody tr').count()).toBe(1);
    expect(await row('edge-fra-1').locator('td').first().innerText()).toBe('critical');
    await expect.poll(() => badge().innerText()).toMatch(/^\d+\s*firing, 1 critical$/);
    expect(await badge().getAttribute('class')).toContain('wf-nav__badge--critical');

    const { context, page: phone } = await openPage(browser, { viewport: PHONE });
    try {
      await signInWithToken(phone, ctl.url, ctl.token, '/alerts');
      await phone.getByRole('table', { name: 'Alerts', exact: true }).locator('tbody tr').nth(3).waitFor();
      await phone.getByTestId('alerts-badge').waitFor();
      // The page does not scroll sideways: the wide table scrolls in its own region.
      expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
      await screenshotThemes(phone, 'alerts-phone');
    } finally {
      await context.close();
    }
  });

  it('ran without a page error or a CSP violation', () => {
    expect(problems).toEqual({ errors: [], cspViolations: [] });
  });
});
