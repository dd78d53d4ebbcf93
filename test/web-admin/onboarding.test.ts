/**
 * The Onboarding page against a real controller (with the demo's 12 simulated routers) and a
 * real SSH "router": a network namespace running Debian's OpenSSH sshd
 * (test/support/ssh-router.ts). In Chromium, as an operator: onboard it with a password and a
 * pinned host key, cancel a run midway, onboard it for real and watch it appear in the fleet;
 * upload an inventory and follow it per router; see a bad upload refused, naming its rows,
 * with nothing started (checked on the controller too).
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SshRouter } from '../support/ssh-router.js';
import { seriousAccessibilityViolations } from './support/axe.js';
import { launchChromium, openPage, type PageProblems } from './support/browser.js';
import { DEMO_ROUTERS, startConsoleController, type ConsoleController } from './support/console-controller.js';
import { screenshotThemes } from './support/screenshots.js';
import { signInWithToken } from './support/sign-in.js';

const NAME = 'lab-ssh-router';

describe('the Onboarding page (real controller, a router over real SSH)', () => {
  let ctl: ConsoleController;
  let browser: Browser;
  let router: SshRouter;
  let page: Page;
  let problems: PageProblems;

  beforeAll(async () => {
    router = new SshRouter();
    [ctl, browser] = await Promise.all([startConsoleController(), launchChromium(), router.start()]);
    ({ page, problems } = await openPage(browser));
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await ctl?.close();
    await router?.stop().catch(() => undefined);
  });

  const jobs = () => ctl.controller.db.prisma.job.count();
  const jobRows = () => page.getByRole('table', { name: 'Onboarding jobs' }).locator('tbody tr');

  const fillOneRouter = async () => {
    await page.getByLabel('Host', { exact: true }).fill(router.addr.router);
    await page.getByLabel('User').fill('root');
    await page.getByLabel('Password', { exact: true }).fill(router.password);
    await page.getByLabel('Placement').selectOption('proxy');
    await page.getByLabel('Host-key fingerprint pin').fill(router.hostKeyFingerprint);
    await page.getByLabel('Tags').fill('site:lab, group:console');
    await page.getByLabel('Name').fill(NAME);
  };

  it('checks the form before sending anything', async () => {
    await signInWithToken(page, ctl.url, ctl.token, '/onboarding');
    await page.getByRole('heading', { name: 'Onboarding', level: 1 }).waitFor();
    await page.getByLabel('Host', { exact: true }).fill('10.0.0.1; rm -rf /');
    await page.getByLabel('Host-key fingerprint pin').fill('MD5:aa:bb');
    await page.getByRole('button', { name: 'Onboard router' }).click();
    await page.getByText('an IP address or host name').waitFor();
    await page.getByText('the SSH password is required').waitFor();
    await page.getByText('SHA256:… as ssh-keygen -lf prints it').waitFor();
    expect(await jobs()).toBe(0);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshotThemes(page, 'onboarding-form-errors');
  });

  it('cancels an onboarding midway, and it rolls back', async () => {
    await fillOneRouter();
    await page.getByRole('button', { name: 'Onboard router' }).click();
    const row = jobRows().first();
    await row.waitFor();
    await row.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => row.getAttribute('data-state'), { timeout: 60_000 }).toBe('cancelled');
    expect(await row.innerText()).toMatch(/cancelled (during|before)/);
    expect(await row.getByRole('button', { name: 'Cancel' }).count()).toBe(0);
    // The password left the form once sent.
    expect(await page.getByLabel('Password', { exact: true }).inputValue()).toBe('');
    expect(await ctl.controller.db.prisma.router.count({ where: { name: NAME } })).toBe(0);
  }, 90_000);

  it('onboards the router over SSH with a pinned host key, live, and it appears in the fleet', async () => {
    await fillOneRouter();
    await page.getByRole('button', { name: 'Onboard router' }).click();
    const row = jobRows().first();
    await expect.poll(() => row.getAttribute('data-state')).not.toBe('cancelled');
    const states = new Set<string>();
    const steps = new Set<string>();
    const deadline = Date.now() + 120_000;
    while (Date.now() < deadline) {
      const state = (await row.getAttribute('data-state')) ?? '';
      states.add(state);
      const cells = await row.locator('td').allInnerTexts();
      if (cells[4]) steps.add(cells[4].trim());
      if (['succeeded', 'failed', 'cancelled'].includes(state)) break;
      await page.waitForTimeout(100);
    }
    const text = await row.innerText();
    expect(await row.getAttribute('data-state'), text).toBe('succeeded');
    expect(states.has('running')).toBe(true);
    // Seen live, step by step, not only the end.
    expect(steps.size).toBeGreaterThan(1);
    expect(text).toContain('100%');
    const stored = await ctl.controller.db.prisma.router.findFirst({ where: { name: NAME } });
    expect(stored).toMatchObject({ placement: 'proxy' });
    expect(stored!.tags).toEqual(expect.arrayContaining(['site:lab', 'group:console']));
    const cred = await ctl.controller.db.prisma.routerCredential.findUnique({ where: { routerId: stored!.id } });
    expect(cred?.hostKeyFingerprint).toBe(router.hostKeyFingerprint);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshotThemes(page, 'onboarding-jobs');

    // The host links to its router; the fleet lists it beside the 12 demo routers.
    await row.getByRole('link', { name: router.addr.router }).click();
    await page.waitForURL(new RegExp(`/routers/${stored!.id}$`));
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Fleet' }).click();
    await page.getByRole('cell', { name: NAME, exact: true }).waitFor();
    expect(await page.getByRole('row').count()).toBe(DEMO_ROUTERS + 2);
  }, 150_000);

  it('shows a failed onboarding stopped at its step with its error; Retry opens the form filled in, and runs again', async () => {
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Onboarding' }).click();
    await fillOneRouter();
    await page.getByLabel('Password', { exact: true }).fill('not-the-password');
    await page.getByRole('button', { name: 'Onboard router' }).click();
    const row = jobRows().first();
    await expect.poll(() => row.getAttribute('data-state'), { timeout: 60_000 }).toBe('failed');
    // Where it stopped and why, not "done": the job never got past connecting.
    await expect.poll(async () => (await row.locator('td').allInnerTexts())[5]).toMatch(/authentication failed/);
    const cells = await row.locator('td').allInnerTexts();
    expect(cells[4]).toBe('stopped at connect');
    expect(cells[3]).not.toContain('100%');
    const failed = await ctl.controller.db.prisma.job.findFirst({ orderBy: { createdAt: 'desc' } });
    expect(failed).toMatchObject({ state: 'failed', step: 'connect' });
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshotThemes(page, 'onboarding-failed');

    // The credential is not kept with a job: Retry brings back the form with the target, the
    // password left to type again, and the cursor in it.
    await row.getByRole('button', { name: `Retry ${router.addr.router}` }).click();
    await page.getByRole('heading', { name: `Retry onboarding ${router.addr.router}` }).waitFor();
    expect(await page.getByLabel('Host', { exact: true }).inputValue()).toBe(router.addr.router);
    expect(await page.getByLabel('User').inputValue()).toBe('root');
    expect(await page.getByLabel('Placement').inputValue()).toBe('proxy');
    expect(await page.getByLabel('Host-key fingerprint pin').inputValue()).toBe(router.hostKeyFingerprint);
    expect(await page.getByLabel('Tags').inputValue()).toBe('site:lab, group:console');
    expect(await page.getByLabel('Name').inputValue()).toBe(NAME);
    const password = page.getByLabel('Password', { exact: true });
    expect(await password.inputValue()).toBe('');
    expect(await password.evaluate((el) => el === document.activeElement)).toBe(true);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshotThemes(page, 'onboarding-retry');

    await password.fill(router.password);
    await page.getByRole('button', { name: 'Onboard router' }).click();
    const retried = jobRows().first();
    await expect.poll(() => retried.getAttribute('data-job')).not.toBe(failed!.id);
    await expect.poll(() => retried.getAttribute('data-state'), { timeout: 60_000 }).toBe('succeeded');
    // Onboarded by the test before: the same target, found online, nothing to do.
    expect(await retried.innerText()).toMatch(/retry[\s\S]*already onboarded/);
    await page.getByRole('heading', { name: 'One router' }).waitFor();
    // Leave the page, as the test before did: the next one starts with no job listed.
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Fleet' }).click();
    await page.getByRole('heading', { name: 'Fleet', level: 1 }).waitFor();
  }, 120_000);

  it('refuses an upload that is not CSV or YAML, or has bad rows, naming them, and starts nothing', async () => {
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Onboarding' }).click();
    await page.getByRole('button', { name: 'Inventory file' }).click();
    const before = await jobs();
    await page.getByLabel('Password', { exact: true }).fill(router.password);
    const file = page.getByLabel('Inventory file');

    await file.setInputFiles({ name: 'routers.txt', mimeType: 'text/plain', buffer: Buffer.from('host\n10.0.0.1\n') });
    await page.getByRole('button', { name: 'Upload and onboard' }).click();
    await page.getByText('routers.txt is not CSV or YAML (.csv, .yaml, .yml)').waitFor();

    const csv = [
      'host,port,user,tags,placement',
      `${router.addr.router},22,root,site:lab,proxy`,
      `${router.addr.router},99999,root,,proxy`,
      '# a comment line counts as a line',
      `${router.addr.router},22,root,bad tag!,proxy`,
      `169.254.169.254,22,root,,proxy`,
    ].join('\n');
    await file.setInputFiles({ name: 'inv.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await page.getByRole('button', { name: 'Upload and onboard' }).click();
    const alert = page.getByRole('alert');
    await alert.getByText('3 bad rows in inv.csv: inv.csv:3, inv.csv:5, inv.csv:6; nothing was started').waitFor();
    const details = await alert.locator('li').allInnerTexts();
    expect(details).toHaveLength(3);
    expect(details[0]).toContain('inv.csv:3: port must be 1-65535');
    expect(details[1]).toMatch(/inv\.csv:5 \(.*\): tags\.1 "tag!" must match pattern/);
    expect(details[2]).toMatch(/inv\.csv:6 \(169\.254\.169\.254\): .*169\.254\.169\.254/);
    expect(await jobs()).toBe(before);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshotThemes(page, 'onboarding-inventory-refused');

    // The controller enforces it on its own, whatever the console checked.
    const post = (body: Record<string, unknown>) =>
      fetch(`${ctl.url}/v1/onboarding/inventory`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ctl.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ password: router.password, ...body }),
      });
    const txt = await post({ filename: 'routers.txt', text: 'host\n10.0.0.1\n' });
    expect(txt.status).toBe(400);
    expect(((await txt.json()) as { message: string }).message).toBe(
      'routers.txt is not an inventory: upload a .csv, .yaml or .yml file',
    );
    const yaml = await post({
      filename: 'inv.yaml',
      text: 'routers:\n  - host: 10.0.0.9\n  - port: 22\n  - host: 10.0.0.8\n    password: x\n',
    });
    expect(yaml.status).toBe(400);
    const refusal = (await yaml.json()) as { message: string; details: { message: string }[] };
    expect(refusal.message).toBe(
      '2 bad rows in inv.yaml: inv.yaml: routers[1], inv.yaml: routers[2]; nothing was started',
    );
    expect(JSON.stringify(refusal)).not.toContain(router.password);
    const notYaml = await post({ filename: 'inv.yml', text: 'routers: [a, {b' });
    expect(notYaml.status).toBe(400);
    expect(((await notYaml.json()) as { message: string }).message).toMatch(/^inv\.yml: not YAML/);
    const noSecret = await fetch(`${ctl.url}/v1/onboarding/inventory`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ctl.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ filename: 'inv.csv', text: `host\n${router.addr.router}` }),
    });
    expect(noSecret.status).toBe(400);
    const reader = await ctl.controller.tokens.create({
      name: 'r',
      owner: 'rita',
      scopes: ['read'],
      createdBy: 'test',
    });
    const forbidden = await fetch(`${ctl.url}/v1/onboarding/inventory`, {
      method: 'POST',
      headers: { authorization: `Bearer ${reader.secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ filename: 'inv.csv', text: `host\n${router.addr.router}`, password: 'x' }),
    });
    expect(forbidden.status).toBe(403);
    expect(await jobs()).toBe(before);
  });

  it('onboards every router of a good inventory, each followed live', async () => {
    const before = await jobs();
    const yaml = `defaults: { user: root, placement: proxy }\nrouters:\n  - host: ${router.addr.router}\n    tags: [site:lab]\n`;
    await page
      .getByLabel('Inventory file')
      .setInputFiles({ name: 'lab.yaml', mimeType: 'application/yaml', buffer: Buffer.from(yaml) });
    await page.getByLabel('Password', { exact: true }).fill(router.password);
    await page.getByRole('button', { name: 'Upload and onboard' }).click();
    const row = jobRows().first();
    await row.getByText('lab.yaml: routers[0]').waitFor();
    await expect.poll(() => row.getAttribute('data-state'), { timeout: 90_000 }).toBe('succeeded');
    expect(await jobs()).toBe(before + 1);
    const job = await ctl.controller.db.prisma.job.findFirst({ orderBy: { createdAt: 'desc' } });
    expect(job?.createdBy).toBe('token:tester');
    expect(JSON.stringify(job)).not.toContain(router.password);
    await page.getByText('1 of 1 finished').waitFor();
    // The URL names the jobs: a fresh load of it (a reload, a shared link) follows them again.
    const link = new URL(page.url());
    expect(link.searchParams.get('jobs')).toBe(job!.id);
    const { context, page: other } = await openPage(browser);
    try {
      await signInWithToken(other, ctl.url, ctl.token, `${link.pathname}${link.search}`);
      const rows = other.getByRole('table', { name: 'Onboarding jobs' }).locator('tbody tr');
      await expect.poll(() => rows.count()).toBe(1);
      await expect.poll(() => rows.first().getAttribute('data-state')).toBe('succeeded');
      // The host comes from the job's read, which may land after the stream's last event.
      await expect.poll(() => rows.first().innerText()).toContain(router.addr.router);
    } finally {
      await context.close();
    }
    // The password went to the controller many times in this file, never into its log.
    expect(ctl.logs.join('\n')).not.toContain(router.password);
  }, 120_000);

  it('shows a read-only caller no onboarding form, and the controller refuses one', async () => {
    const reader = await ctl.controller.tokens.create({
      name: 'ro',
      owner: 'rob',
      scopes: ['read'],
      createdBy: 'test',
    });
    const { context, page: readerPage } = await openPage(browser);
    try {
      await signInWithToken(readerPage, ctl.url, reader.secret, '/onboarding');
      await readerPage.getByText('Onboarding needs the write scope; your role can only read.').waitFor();
      expect(await readerPage.getByRole('button', { name: /^(Onboard router|Upload and onboard)$/ }).count()).toBe(0);
    } finally {
      await context.close();
    }
    const forged = await fetch(`${ctl.url}/v1/onboarding`, {
      method: 'POST',
      headers: { authorization: `Bearer ${reader.secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ host: router.addr.router, password: router.password }),
    });
    expect(forged.status).toBe(403);
  });

  it('ran without a page error or a CSP violation', () => {
    expect(problems).toEqual({ errors: [], cspViolations: [] });
  });
});
