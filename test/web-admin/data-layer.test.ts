/**
 * The console's data layer (TanStack Query over the typed client), in Debian's Chromium against
 * a real controller with the demo's simulated fleet: the fleet drawn from one read of each of
 * its queries, a change made elsewhere reaching its row through the live feed's invalidation,
 * a mutation's list showing the new item without a reload, and keyset paging through the
 * cursor. "Without a reload" is checked with a marker on `window` that a reload would lose.
 */
import type { Browser, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authedFetch, eventually } from '../support/controller.js';
import { launchChromium, openPage, type PageProblems } from './support/browser.js';
import { DEMO_ROUTERS, startConsoleController, type ConsoleController } from './support/console-controller.js';
import { signInWithToken } from './support/sign-in.js';

/** The API calls the page made (method and path with query), in order. */
function recordCalls(page: Page): string[] {
  const calls: string[] = [];
  page.on('request', (request: Request) => {
    const url = new URL(request.url());
    if (url.pathname.startsWith('/v1/')) calls.push(`${request.method()} ${url.pathname}${url.search}`);
  });
  return calls;
}

const count = (calls: string[], pattern: RegExp) => calls.filter((c) => pattern.test(c)).length;

async function markWindow(page: Page) {
  await page.evaluate(() => Object.assign(window, { wfNoReload: true }));
}
async function stillTheSameWindow(page: Page): Promise<boolean> {
  return page.evaluate(() => (window as unknown as { wfNoReload?: boolean }).wfNoReload === true);
}

describe('the console data layer', () => {
  let ctl: ConsoleController;
  let browser: Browser;
  let page: Page;
  let problems: PageProblems;
  let calls: string[];
  let admin: ReturnType<typeof authedFetch>;

  beforeAll(async () => {
    [ctl, browser] = await Promise.all([startConsoleController(), launchChromium()]);
    admin = authedFetch(ctl.url, ctl.token);
    ({ page, problems } = await openPage(browser));
    calls = recordCalls(page);
  });

  afterAll(async () => {
    await browser?.close();
    await ctl?.close();
  });

  it('draws the fleet from one read of the list and one of the counts', async () => {
    await signInWithToken(page, ctl.url, ctl.token, '/fleet');
    await expect.poll(() => page.locator('table tbody tr').count()).toBe(DEMO_ROUTERS);
    await page.locator('[data-count="total"]').getByText(String(DEMO_ROUTERS)).waitFor();
    // Nothing reads them a second time once drawn (a double read was the last attempt's regression).
    await page.waitForTimeout(500);
    expect(count(calls, /^GET \/v1\/routers\?/), calls.join('\n')).toBe(1);
    expect(count(calls, /^GET \/v1\/routers\/counts/), calls.join('\n')).toBe(1);
    await markWindow(page);
  });

  it("shows a change made elsewhere in its router's row, from the live feed, without a reload", async () => {
    const first = await page.locator('table tbody tr').first().getByRole('link').innerText();
    const router = await ctl.controller.db.prisma.router.findFirstOrThrow({ where: { name: first } });
    const before = count(calls, /^GET \/v1\/routers\?/);
    const res = await admin('/v1/routers/bulk', {
      method: 'POST',
      body: { action: 'tag', tags: ['feed:live'], ids: [router.id] },
    });
    expect(res.status).toBe(200);
    // The feed names the router; the layer invalidates the list, which reads again and draws the tag.
    await page.locator('table tbody tr', { hasText: first }).getByText('feed:live').waitFor({ timeout: 20_000 });
    expect(count(calls, /^GET \/v1\/routers\?/)).toBeGreaterThan(before);
    expect(await stillTheSameWindow(page)).toBe(true);
  });

  it('lists a created API token at once: the create invalidates the list, read once more', async () => {
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Access' }).click();
    const tokens = page.getByRole('table', { name: 'API tokens' });
    await tokens.getByRole('row').nth(1).waitFor();
    const reads = count(calls, /^GET \/v1\/tokens$/);
    await page.getByLabel('Token name').fill('layer-check');
    await page.getByRole('button', { name: 'Create token' }).click();
    await tokens.getByRole('rowheader', { name: 'layer-check' }).waitFor();
    await page.waitForTimeout(300);
    expect(count(calls, /^POST \/v1\/tokens$/)).toBe(1);
    expect(count(calls, /^GET \/v1\/tokens$/)).toBe(reads + 1);
    expect(await stillTheSameWindow(page)).toBe(true);
  });

  it('shows a refused change through the shared error notice, and keeps the list', async () => {
    // An account name that is taken: the controller refuses (409) and the form shows its sentence.
    const create = async () => {
      await page.getByLabel('Account name').fill('layer-ops');
      await page.getByLabel('Initial password').fill('a password long enough');
      await page.getByRole('button', { name: 'Create account' }).click();
    };
    await create();
    const accounts = page.getByRole('table', { name: 'Operator accounts' });
    await accounts.getByRole('rowheader', { name: 'layer-ops' }).waitFor();
    await create();
    const alert = page.getByRole('form', { name: 'Create an account' }).getByRole('alert');
    await alert.waitFor();
    expect(await alert.innerText()).toContain('an account named "layer-ops" exists already');
    expect(await alert.innerText()).toContain('HTTP 409');
    await accounts.getByRole('rowheader', { name: 'layer-ops' }).waitFor();
  });

  it("follows a running command over its stream: the job's query is written by events, not read again", async () => {
    // A stopped router never answers: the job runs until it is cancelled.
    const silent = ctl.fleet.at(-1)!;
    await silent.stop();
    const router = await eventually(
      () => ctl.controller.db.prisma.router.findFirst({ where: { status: 'offline' } }),
      15_000,
      'the stopped router stored offline',
    );
    const sent = await admin('/v1/commands', {
      method: 'POST',
      body: { kind: 'check_drift', selector: { ids: [router.id] } },
    });
    expect(sent.status).toBe(201);
    const jobId = (sent.body as { id: string }).id;
    await page.goto(`${ctl.url}/commands/${jobId}`);
    await page.getByRole('button', { name: 'Use an API token' }).click();
    await page.getByLabel('API token').fill(ctl.token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const state = page.getByTestId('command-state');
    await expect.poll(() => state.innerText()).toBe('running');
    const jobReads = () => count(calls, new RegExp(`^GET /v1/commands/${jobId}$`));
    await expect.poll(() => count(calls, new RegExp(`^GET /v1/commands/${jobId}/events`))).toBe(1);
    const before = jobReads();
    const cancelled = await admin(`/v1/commands/${jobId}/cancel`, { method: 'POST' });
    expect(cancelled.status).toBe(200);
    await expect.poll(() => state.innerText(), { timeout: 10_000 }).toBe('cancelled');
    // The stream's progress event set the job's query: no poll read it in the meantime.
    expect(jobReads()).toBe(before);
    await markWindow(page);
  });

  it('pages the audit history with its cursor: "Older events" appends the next page', async () => {
    // Every router tagged and untagged three times: six audit events each, 72 in all (pages of 50).
    const ids = (await ctl.controller.db.prisma.router.findMany({ select: { id: true } })).map((r) => r.id);
    for (let i = 0; i < 3; i++) {
      for (const action of ['tag', 'untag'] as const) {
        const res = await admin('/v1/routers/bulk', { method: 'POST', body: { action, tags: ['paging:yes'], ids } });
        expect(res.status).toBe(200);
      }
    }
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Audit' }).click();
    const events = page.getByRole('list', { name: 'Audit events, newest first' }).locator(':scope > li');
    await expect.poll(() => events.count()).toBe(50);
    const firstSeq = Number(await events.first().getAttribute('data-seq'));
    await page.getByRole('button', { name: 'Older events' }).click();
    await expect.poll(() => events.count()).toBeGreaterThan(50);
    const seqs = await events.evaluateAll((items) => items.map((li) => Number(li.getAttribute('data-seq'))));
    // Newest first, no event twice, and the first page kept in place.
    expect(seqs[0]).toBe(firstSeq);
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(seqs).toEqual([...seqs].sort((a, b) => b - a));
    const pages = calls.filter((c) => c.startsWith('GET /v1/audit?'));
    expect(pages.at(-1)).toMatch(/[?&]cursor=/);
    expect(await stillTheSameWindow(page)).toBe(true);
    expect(problems.errors).toEqual([]);
  });
});
