/**
 * The router page and the audit page in Chromium, against a real controller with the demo's
 * 12 simulated routers, as an operator uses them: open an MT7621 router from the fleet, read
 * its facts, capabilities with reasons, the plan's offload-downgrade reason and its applied
 * revision, see the counters drawn, run "check drift" and read its result; then find the
 * rollout in the audit timeline by filter, open its diff, verify the chain, export.
 */
import { readFile } from 'node:fs/promises';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authedFetch } from '../support/controller.js';
import { applyProfile } from '../support/telemetry.js';
import { seriousAccessibilityViolations } from './support/axe.js';
import { launchChromium, openPage, PHONE, type PageProblems } from './support/browser.js';
import { startConsoleController, type ConsoleController } from './support/console-controller.js';
import { screenshotThemes } from './support/screenshots.js';
import { signInWithToken } from './support/sign-in.js';
import { storeTelemetryHistory } from './support/telemetry-history-rows.js';

const SPEC = {
  l3Rewrite: { ttl: { value: 128 } },
  flowOffload: { mode: 'hardware' },
  conflictPolicy: 'prefer-rewrite',
};

/** Pixels of a canvas that are not transparent: a drawn chart has many. */
async function paintedPixels(page: Page, selector: string): Promise<number> {
  return page.locator(selector).evaluate((canvas) => {
    const c = canvas as HTMLCanvasElement;
    const data = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
    let painted = 0;
    for (let i = 3; i < data.length; i += 4) if (data[i]! > 0) painted++;
    return painted;
  });
}

describe('the router and audit pages (simulated fleet, Chromium)', () => {
  let ctl: ConsoleController;
  let browser: Browser;
  let api: ReturnType<typeof authedFetch>;
  let rolloutId: string;

  beforeAll(async () => {
    [ctl, browser] = await Promise.all([startConsoleController(), launchChromium()]);
    api = authedFetch(ctl.url, ctl.token);
    await applyProfile(api, 'home', SPEC, { soc: ['MT7621'] });
    const rollouts = await api<{ items: { id: string; profile: string }[] }>('/v1/rollouts');
    rolloutId = rollouts.body.items.find((r) => r.profile === 'home')!.id;
    // 30 days of history for every MT7621 router: whichever the operator opens has charts to draw.
    const mt7621 = await ctl.controller.db.prisma.router.findMany({ where: { soc: 'MT7621' } });
    expect(mt7621).toHaveLength(4);
    for (const r of mt7621) await storeTelemetryHistory(ctl.controller.db.prisma, r.seriesKey, Date.now());
  });

  afterAll(async () => {
    await browser?.close();
    await ctl?.close();
  });

  describe('as an admin', () => {
    let page: Page;
    let problems: PageProblems;
    let routerPath: string;

    beforeAll(async () => {
      ({ page, problems } = await openPage(browser));
      await signInWithToken(page, ctl.url, ctl.token);
    });

    it('opens an MT7621 router from the fleet and shows its facts, capabilities and plan', async () => {
      const row = page.getByRole('row').filter({ hasText: 'MT7621' }).first();
      await row.waitFor();
      await row.getByRole('link').first().click();
      await page.waitForURL(/\/routers\/[^/]+$/);
      routerPath = new URL(page.url()).pathname;
      const id = decodeURIComponent(routerPath.split('/').pop()!);
      const detail = (await api(`/v1/routers/${id}`)).body;
      await page.getByRole('heading', { name: detail.name, level: 1 }).waitFor();

      const facts = page.getByRole('region', { name: 'Facts' });
      await expect.poll(() => facts.innerText()).toContain('MT7621');
      const factText = await facts.innerText();
      expect(factText).toContain(detail.kernel);
      expect(factText).toContain(detail.openwrt.release);
      expect(factText).toMatch(/WAN interfaces\s+\S+/);

      const caps = page.getByRole('region', { name: 'Capabilities' });
      const hw = caps.getByRole('row').filter({ hasText: 'Hardware offload' });
      expect(await hw.innerText()).toContain(detail.capabilities.predicted.hardwareOffload.reason);

      const plan = page.getByRole('region', { name: 'Plan of the effective profile' });
      await plan.getByText(/offload-downgraded \(hardware-offloaded flows are forwarded by the PPE/).waitFor();
      const planText = await plan.locator('pre').innerText();
      const preview = (await api(`/v1/routers/${id}/plan`)).body;
      expect(
        planText.startsWith(`${detail.name}: home@1 -> satisfiable (plan ${preview.plan.planHash.slice(0, 12)})`),
      ).toBe(true);
      for (const d of preview.plan.decisions) expect(planText).toContain(`  - ${d.topic}: ${d.choice} (${d.reason})`);

      const revisions = page.getByRole('region', { name: 'Revisions' });
      await expect.poll(() => revisions.innerText()).toMatch(/Applied\s+home@1/);
      expect(await revisions.innerText()).toMatch(/Desired\s+home@1/);

      const history = page.getByRole('region', { name: 'Apply history' });
      await history.getByText('home@1').first().waitFor();
      await history.getByText('Evidence').first().click();
      expect(await history.locator('pre').first().innerText()).toContain('"datapath"');
    });

    it('draws the counters over time, and the range picker asks for 30 days', async () => {
      const charts = page.getByRole('region', { name: 'Counters over time' });
      const packets = charts.locator('figure').filter({ hasText: 'Packets per second' });
      await packets.locator('canvas').waitFor();
      await expect.poll(async () => Number(await packets.getAttribute('data-values'))).toBeGreaterThan(100);
      await expect.poll(() => paintedPixels(page, 'figure:has-text("Packets per second") canvas')).toBeGreaterThan(500);
      for (const title of ['Offloaded flows', 'Agent memory']) {
        const figure = charts.locator('figure').filter({ hasText: title });
        await expect.poll(async () => Number(await figure.getAttribute('data-values'))).toBeGreaterThan(10);
      }

      const asked = page.waitForRequest((r) => r.url().includes('/telemetry?') && r.url().includes('from='));
      await charts.getByRole('button', { name: '30 d' }).click();
      const url = new URL((await asked).url());
      expect(Date.parse(url.searchParams.get('to')!) - Date.parse(url.searchParams.get('from')!)).toBe(30 * 86_400_000);
      expect(new URL(page.url()).searchParams.get('range')).toBe('30d');
      await expect.poll(() => charts.innerText()).toMatch(/points of \d+ h \(hour resolution\)/);
      await expect.poll(async () => Number(await packets.getAttribute('data-values'))).toBeGreaterThan(300);
      await charts.getByRole('button', { name: '1 h' }).click();
      await expect.poll(() => charts.innerText()).toMatch(/points of 1 min/);
    });

    it('runs "check drift" behind a confirmation and shows the result live', async () => {
      const actions = page.getByRole('group', { name: 'Router actions' });
      for (const label of [
        'Check drift',
        'Re-probe',
        'Re-apply',
        'Roll back',
        'Detach',
        'Rotate credentials',
        'Decommission',
      ])
        await actions.getByRole('button', { name: label }).waitFor();
      await actions.getByRole('button', { name: 'Check drift' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByText('Nothing is changed').waitFor();
      // Cancel has the focus: Enter alone never runs an action.
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Cancel');
      await dialog.getByRole('button', { name: 'Check drift' }).click();
      const result = page.getByTestId('command-result');
      await expect.poll(() => result.innerText(), { timeout: 20_000 }).toMatch(/succeeded/);
      expect(await result.innerText()).toMatch(/no drift from home@1/);
      const drift = page.getByRole('region', { name: 'Last drift report' });
      await expect.poll(() => drift.innerText()).toMatch(/no drift\s+from home@1/);

      const id = decodeURIComponent(routerPath.split('/').pop()!);
      const events = (await api(`/v1/audit?router=${id}&order=desc&limit=5`)).body.items;
      expect(events.map((e: { action: string }) => e.action)).toContain('drift.reported');
    });

    it('has no serious accessibility problem, and is screenshotted light and dark', async () => {
      await expect.poll(() => seriousAccessibilityViolations(page)).toEqual([]);
      await screenshotThemes(page, 'router');
      expect(problems.errors).toEqual([]);
      expect(problems.cspViolations).toEqual([]);
    });

    it('fits a phone-width screen', async () => {
      const phone = await openPage(browser, { viewport: PHONE });
      try {
        await signInWithToken(phone.page, ctl.url, ctl.token, routerPath);
        await phone.page
          .getByRole('region', { name: 'Plan of the effective profile' })
          .getByText(/offload-downgraded/)
          .waitFor();
        await phone.page.locator('figure canvas').first().waitFor();
        const overflow = await phone.page.evaluate(
          () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
        );
        expect(overflow).toBeLessThanOrEqual(1);
        expect(await seriousAccessibilityViolations(phone.page)).toEqual([]);
        await screenshotThemes(phone.page, 'router-phone');
        expect(phone.problems.errors).toEqual([]);
      } finally {
        await phone.context.close();
      }
    });

    it('finds the rollout in the audit timeline by filter, opens its diff, verifies the chain, exports', async () => {
      // From the router's page to its own history, then to the whole timeline.
      await page.getByRole('link', { name: 'Audit history' }).click();
      await page.getByRole('heading', { name: 'Audit', level: 1 }).waitFor();
      await page.getByRole('listitem').filter({ hasText: 'drift.reported' }).first().waitFor();
      const routerId = decodeURIComponent(routerPath.split('/').pop()!);
      expect(await page.getByLabel('Router id').inputValue()).toBe(routerId);
      const { name } = (await api(`/v1/routers/${routerId}`)).body;
      // Who asked for the drift check is in the router's history: the command's own events,
      // named by kind and router, beside the agent's report, named by the router's name.
      const command = page.getByRole('listitem').filter({ hasText: 'command.created' }).first();
      await command.waitFor();
      expect(await command.innerText()).toContain('token:tester');
      expect(await command.getByRole('link', { name: `command_job check_drift on ${name}` }).count()).toBe(1);
      const drift = page.getByRole('listitem').filter({ hasText: 'drift.reported' }).first();
      expect(await drift.getByRole('link', { name: `router ${name}` }).getAttribute('href')).toBe(routerPath);
      // The rollout that reached the router is there too, named profile@revision.
      await page.getByRole('listitem').filter({ hasText: 'rollout.created' }).getByText('rollout home@1').waitFor();
      expect(await page.locator('.wf-audit-event__target').allInnerTexts()).not.toContainEqual(
        expect.stringContaining('…'),
      );
      await screenshotThemes(page, 'audit-router');
      await page.getByRole('button', { name: 'Clear' }).click();
      await page.waitForURL((u) => u.search === '');

      await page.getByLabel('Rollout id').fill(rolloutId);
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await page.waitForURL((u) => u.searchParams.get('rollout') === rolloutId);
      const timeline = page.getByRole('list', { name: 'Audit events, newest first' });
      const created = timeline.getByRole('listitem').filter({ hasText: 'rollout.created' });
      await created.waitFor();
      const actions = await timeline.locator('.wf-audit-event__action').allInnerTexts();
      expect(actions.at(-1)).toBe('rollout.created');
      expect(actions).toContain('rollout.completed');
      expect(actions.every((a) => a.startsWith('rollout.'))).toBe(true);
      expect(await created.getByRole('link', { name: 'rollout home@1' }).getAttribute('href')).toBe(
        `/rollouts/${rolloutId}`,
      );

      await created.getByRole('button', { name: 'Show diff' }).click();
      const diff = created.getByRole('region', { name: /Before and after of event/ });
      await diff.waitFor();
      expect(await diff.innerText()).toContain('"profile": "home"');
      expect(await diff.locator('.wf-diff__add').count()).toBeGreaterThan(3);

      await page.getByRole('button', { name: 'Verify chain' }).click();
      await page
        .getByRole('status')
        .filter({ hasText: /events checked/ })
        .waitFor();
      expect(await page.locator('.wf-verify__result').innerText()).toMatch(/^ok \d+ events checked/);

      const download = page.waitForEvent('download');
      await page.getByRole('button', { name: 'Export (JSON lines)' }).click();
      const file = await download;
      expect(file.suggestedFilename()).toMatch(/^wrtfleet-audit_rollout-[\w-]+_\d{4}-\d{2}-\d{2}T\d{6}Z\.jsonl$/);
      const lines = (await readFile((await file.path())!, 'utf8')).trim().split('\n');
      const exported = lines.map((l) => JSON.parse(l) as { targetId: string; action: string });
      expect(exported.length).toBe(actions.length);
      expect(exported.every((e) => e.targetId === rolloutId)).toBe(true);

      await expect.poll(() => seriousAccessibilityViolations(page)).toEqual([]);
      await screenshotThemes(page, 'audit');
      expect(problems.errors).toEqual([]);
      expect(problems.cspViolations).toEqual([]);
    });

    it('shows a long profile name whole', async () => {
      const name = 'ttl64-office-hours-with-hardware-offload';
      const put = await api(`/v1/profiles/${name}`, { method: 'PUT', body: { spec: SPEC } });
      expect([200, 201]).toContain(put.status);
      await page.getByRole('button', { name: 'Clear' }).click();
      await page.waitForURL((u) => u.search === '');
      await page.getByLabel('Profile name').fill(name);
      await page.getByRole('button', { name: 'Apply filters' }).click();
      const row = page.getByRole('listitem').filter({ hasText: 'profile.created' });
      await row.waitFor();
      expect(await row.locator('.wf-audit-event__target').innerText()).toBe(`profile ${name}`);
    });

    it('refuses a time range the wrong way round at its field, and keeps the filters in a shared link', async () => {
      // A fresh load: the pasted token lived in memory, so the link asks to sign in first.
      await signInWithToken(page, ctl.url, ctl.token, '/audit?action=rollout.created&to=2020-01-01T00:00:00.000Z');
      await page.getByRole('heading', { name: 'Audit', level: 1 }).waitFor();
      await page.getByText('No event matches these filters.').waitFor();
      expect(await page.getByLabel('Action').inputValue()).toBe('rollout.created');
      await page.getByLabel('From').fill('2021-01-01T00:00');
      await page.getByText('must be after "from"').waitFor();
      expect(await page.getByRole('button', { name: 'Apply filters' }).isDisabled()).toBe(true);
    });
  });

  it("rotates a router's credentials from its page: the re-enrolment token shown once, audited with the actor", async () => {
    const { page, context, problems } = await openPage(browser);
    try {
      const router = (await api('/v1/routers?soc=MT7621&limit=4')).body.items[3];
      await signInWithToken(page, ctl.url, ctl.token, `/routers/${router.id}`);
      await page.getByRole('heading', { name: router.name, level: 1 }).waitFor();
      await page
        .getByRole('group', { name: 'Router actions' })
        .getByRole('button', { name: 'Rotate credentials' })
        .click();
      const dialog = page.getByRole('dialog');
      await dialog.getByText('The token is shown once.').waitFor();
      await dialog.getByRole('button', { name: 'Rotate credentials' }).click();
      const result = page.getByRole('status').filter({ hasText: 'Re-enrolment token (shown once)' });
      await result.waitFor();
      expect(await result.innerText()).toContain(`identity ${router.identity}`);
      expect((await result.locator('code').innerText()).length).toBeGreaterThan(20);
      expect(await dialog.count()).toBe(0);
      const events = (await api(`/v1/audit?router=${router.id}&order=desc&limit=20`)).body.items;
      expect(events).toContainEqual(
        expect.objectContaining({ action: 'router.reenroll_requested', actor: 'token:tester' }),
      );
      expect(problems.errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('shows a read-only operator no action, and the controller refuses a forged one', async () => {
    const { secret } = await ctl.controller.tokens.create({
      name: 'viewer',
      owner: 'bob',
      scopes: ['read'],
      createdBy: 'test',
    });
    const { page, context } = await openPage(browser);
    try {
      const router = (await api('/v1/routers?soc=MT7621&limit=1')).body.items[0];
      await signInWithToken(page, ctl.url, secret, `/routers/${router.id}`);
      await page.getByRole('heading', { name: router.name, level: 1 }).waitFor();
      await page.getByRole('region', { name: 'Revisions' }).getByText('home@1').first().waitFor();
      expect(await page.getByRole('group', { name: 'Router actions' }).count()).toBe(0);
      expect(await page.getByRole('button', { name: 'Check drift' }).count()).toBe(0);
      const forged = await authedFetch(ctl.url, secret)(`/v1/routers/${router.id}/commands`, {
        method: 'POST',
        body: { kind: 'check_drift' },
      });
      expect(forged.status).toBe(403);
    } finally {
      await context.close();
    }
  });
});
