/**
 * Signing in with an account and the Access page, in Debian's Chromium against a real
 * controller with the demo's simulated fleet: a wrong password refused then the right one,
 * the session cookie's flags, an admin minting an API token it sees once, a read-only account
 * that sees no write action and whose forged writes are refused, logout, and the session-ended
 * dialog signing in again with the password.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, openPage, type PageProblems } from './support/browser.js';
import { seriousAccessibilityViolations } from './support/axe.js';
import { startConsoleController, type ConsoleController } from './support/console-controller.js';
import { screenshotThemes } from './support/screenshots.js';
import { signInWithPassword } from './support/sign-in.js';
import { authedFetch } from '../support/controller.js';

const ADMIN = { name: 'ops-admin', password: 'admin password, long' };
const VIEWER = { name: 'viewer', password: 'only looking, thanks' };
/** Buttons that change the fleet or access: none may show to a read-only account. */
const WRITE_ACTION =
  /create|revoke|disable|enable|delete|reset|tag|assign|rollout|run|command|drift|apply|decommission|rotate|re-?probe|detach|roll back/i;

describe('sign-in with an account, and the Access page', () => {
  let ctl: ConsoleController;
  let browser: Browser;

  beforeAll(async () => {
    [ctl, browser] = await Promise.all([startConsoleController(), launchChromium()]);
    const admin = authedFetch(ctl.url, ctl.token);
    for (const [account, role] of [
      [ADMIN, 'admin'],
      [VIEWER, 'read'],
    ] as const) {
      const res = await admin('/v1/accounts', { method: 'POST', body: { ...account, role } });
      expect(res.status, account.name).toBe(201);
    }
  });

  afterAll(async () => {
    await browser?.close();
    await ctl?.close();
  });

  describe('as an admin', () => {
    let page: Page;
    let problems: PageProblems;

    beforeAll(async () => {
      ({ page, problems } = await openPage(browser));
    });

    it('refuses a wrong password with a clear message, then signs in with the right one into an HttpOnly, SameSite=Strict cookie', async () => {
      await page.goto(`${ctl.url}/access`);
      await page.getByRole('heading', { name: 'Sign in to wrtfleet' }).waitFor();
      await page.getByLabel('Name').fill(ADMIN.name);
      await page.getByLabel('Password').fill('not my password at all');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('alert').getByText('the name or the password is wrong').waitFor();
      // The wrong password is cleared; the name stays.
      expect(await page.getByLabel('Password').inputValue()).toBe('');
      expect(await page.getByLabel('Name').inputValue()).toBe(ADMIN.name);
      expect(await seriousAccessibilityViolations(page)).toEqual([]);
      await screenshotThemes(page, 'sign-in-password');

      await page.getByLabel('Password').fill(ADMIN.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Access', level: 1 }).waitFor();
      expect(new URL(page.url()).pathname).toBe('/access');
      const header = page.getByRole('banner');
      await header.getByText(ADMIN.name).waitFor();
      expect(await header.innerText()).toContain('admin');

      const cookies = await page.context().cookies();
      const session = cookies.find((c) => c.name === 'wrtfleet_session');
      expect(session).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/', secure: false });
      // The page's script cannot read it.
      expect(await page.evaluate(() => document.cookie)).not.toContain('wrtfleet_session');
    });

    it('shows accounts, API tokens and enrollment tokens; a new API token is shown once, with a copy button and a warning', async () => {
      await page.getByRole('heading', { name: 'Operator accounts' }).waitFor();
      await page.getByRole('heading', { name: 'API tokens' }).waitFor();
      await page.getByRole('heading', { name: 'Enrollment tokens' }).waitFor();
      const accounts = page.getByRole('table', { name: 'Operator accounts' });
      await accounts.getByRole('row', { name: /viewer/ }).waitFor();
      expect(await accounts.getByRole('row', { name: /viewer/ }).innerText()).toMatch(/active/);

      await page.getByLabel('Token name').fill('ci-deploy');
      await page.getByRole('checkbox', { name: 'write' }).check();
      await page.getByRole('button', { name: 'Create token' }).click();
      const shown = page.getByRole('region', { name: 'API token "ci-deploy"' });
      await shown.waitFor();
      expect(await shown.innerText()).toContain('shown only this once');
      await shown.getByRole('button', { name: 'Copy' }).waitFor();
      const secret = await shown.getByRole('textbox').inputValue();
      expect(secret).toMatch(/^wft_[\w-]{43}$/);
      const tokens = page.getByRole('table', { name: 'API tokens' });
      await tokens.getByRole('row', { name: /ci-deploy/ }).waitFor();
      expect(await tokens.getByRole('row', { name: /ci-deploy/ }).innerText()).toMatch(/ops-admin[\s\S]*read, write/);
      expect(await seriousAccessibilityViolations(page)).toEqual([]);
      await screenshotThemes(page, 'access-admin');

      // The value works, and is gone from the page once dismissed (and after a reload).
      const me = await authedFetch(ctl.url, secret)('/v1/session');
      expect(me.body).toMatchObject({ kind: 'token', actor: 'token:ops-admin', scopes: ['read', 'write'] });
      await shown.getByRole('button', { name: 'I have copied it' }).click();
      await shown.waitFor({ state: 'detached' });
      expect(await page.content()).not.toContain(secret);
      await page.reload();
      await page
        .getByRole('table', { name: 'API tokens' })
        .getByRole('row', { name: /ci-deploy/ })
        .waitFor();
      expect(await page.content()).not.toContain(secret);

      // Made in the console, audited with the account as actor.
      const event = await ctl.controller.db.prisma.auditEvent.findFirstOrThrow({
        where: { action: 'api_token.created', after: { path: ['name'], equals: 'ci-deploy' } },
      });
      expect(event.actor).toBe(`account:${ADMIN.name}`);
    });

    it('creates an account (a short password refused beside its field), changes its role, disables it', async () => {
      await page.getByLabel('Account name').fill('newbie');
      await page.getByLabel('Account role').selectOption('write');
      await page.getByLabel('Initial password').fill('too short');
      await page.getByRole('button', { name: 'Create account' }).click();
      await page.getByText('At least 12 characters (9 now).').waitFor();
      await page.getByLabel('Initial password').fill('long enough for newbie');
      await page.getByRole('button', { name: 'Create account' }).click();
      await page.getByRole('status').getByText('Created newbie.').waitFor();
      const row = page.getByRole('table', { name: 'Operator accounts' }).getByRole('row', { name: /newbie/ });
      await row.waitFor();

      await page.getByLabel('Role of newbie').selectOption('read');
      await expect.poll(async () => (await ctl.controller.accounts.get('newbie'))?.role).toBe('read');
      await row.getByRole('button', { name: 'Disable' }).click();
      await row.getByRole('button', { name: 'Yes, disable' }).click();
      await row.getByText('disabled').waitFor();
      expect((await ctl.controller.accounts.get('newbie'))?.disabled).toBe(true);
      const actors = await ctl.controller.db.prisma.auditEvent.findMany({
        where: { targetType: 'account', targetId: 'newbie' },
        orderBy: { seq: 'asc' },
      });
      expect(actors.map((e) => [e.action, e.actor])).toEqual([
        ['account.created', `account:${ADMIN.name}`],
        ['account.updated', `account:${ADMIN.name}`],
        ['account.disabled', `account:${ADMIN.name}`],
      ]);
    });

    it('signs out from the header: the session ends on the controller', async () => {
      await page.getByRole('banner').getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('heading', { name: 'Sign in to wrtfleet' }).waitFor();
      await page.getByText('Signed out.').waitFor();
      expect(await page.evaluate(async () => (await fetch('/v1/session')).status)).toBe(401);
      expect((await page.context().cookies()).some((c) => c.name === 'wrtfleet_session')).toBe(false);
    });

    it('ran without a page error or a CSP violation', () => {
      expect(problems).toEqual({ errors: [], cspViolations: [] });
    });
  });

  describe('as a read-only account', () => {
    let page: Page;
    let problems: PageProblems;

    beforeAll(async () => {
      ({ page, problems } = await openPage(browser));
      await signInWithPassword(page, ctl.url, VIEWER.name, VIEWER.password, '/fleet');
    });

    it('sees no write action on the Fleet and Access pages', async () => {
      await page.getByRole('heading', { name: 'Fleet', level: 1 }).waitFor();
      await page.getByRole('table').getByRole('link').first().waitFor();
      const main = page.getByRole('main');
      const fleetButtons = await main.getByRole('button').allInnerTexts();
      expect(fleetButtons.filter((b) => WRITE_ACTION.test(b))).toEqual([]);

      await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Access' }).click();
      await page.getByRole('heading', { name: 'Access', level: 1 }).waitFor();
      await page.getByText('may not manage accounts or tokens').waitFor();
      const accessButtons = await main.getByRole('button').allInnerTexts();
      expect(accessButtons.filter((b) => WRITE_ACTION.test(b))).toEqual([]);
      expect(await page.getByRole('heading', { name: 'API tokens' }).count()).toBe(0);
      expect(await page.getByRole('heading', { name: 'Operator accounts' }).count()).toBe(0);
      expect(await seriousAccessibilityViolations(page)).toEqual([]);
      await screenshotThemes(page, 'access-read-only');
    });

    it('a forged write with its cookie is refused 403, without and with the CSRF header', async () => {
      const routerId = (await ctl.controller.db.prisma.router.findFirstOrThrow({ orderBy: { name: 'asc' } })).id;
      const outcomes = await page.evaluate(async (id) => {
        const csrf = ((await (await fetch('/v1/session')).json()) as { csrfToken: string }).csrfToken;
        const forge = async (path: string, method: string, body: unknown, withCsrf: boolean) => {
          const res = await fetch(path, {
            method,
            credentials: 'same-origin',
            headers: { 'content-type': 'application/json', ...(withCsrf ? { 'x-csrf-token': csrf } : {}) },
            body: JSON.stringify(body),
          });
          return { status: res.status, error: ((await res.json()) as { error: string }).error };
        };
        return [
          await forge(`/v1/routers/${id}/tags`, 'PUT', { tags: ['forged'] }, false),
          await forge(`/v1/routers/${id}/tags`, 'PUT', { tags: ['forged'] }, true),
          await forge('/v1/tokens', 'POST', { name: 'forged', scopes: ['admin'] }, true),
        ];
      }, routerId);
      expect(outcomes).toEqual([
        { status: 403, error: 'csrf_token_invalid' },
        { status: 403, error: 'forbidden' },
        { status: 403, error: 'forbidden' },
      ]);
      const stored = await ctl.controller.db.prisma.router.findUniqueOrThrow({ where: { id: routerId } });
      expect(stored.tags).not.toContain('forged');
      expect((await ctl.controller.tokens.list()).some((t) => t.name === 'forged')).toBe(false);
    });

    it('asks for the password again when the session ends, keeping the page, and signs in from the dialog', async () => {
      const sessions = ctl.controller.sessions;
      const realNow = sessions.now;
      sessions.now = () => new Date(Date.now() + 31 * 60_000);
      try {
        await page.getByRole('link', { name: 'Fleet', exact: true }).click();
        const dialog = page.getByRole('dialog', { name: 'Your session has ended' });
        await dialog.waitFor();
        expect(await page.getByRole('heading', { name: 'Fleet', level: 1 }).count()).toBe(1);
        // The name is known; the password is asked first.
        expect(await dialog.getByLabel('Name').inputValue()).toBe(VIEWER.name);
        sessions.now = realNow;
        await dialog.getByLabel('Password').fill(VIEWER.password);
        await dialog.getByRole('button', { name: 'Sign in' }).click();
        await dialog.waitFor({ state: 'detached' });
        await page.getByRole('heading', { name: 'Fleet', level: 1 }).waitFor();
        // What was refused while the session was dead is loaded again: the table, no error.
        await page.getByRole('alert').waitFor({ state: 'detached' });
        await page.getByRole('row').nth(1).waitFor();
        const me = await page.evaluate(async () => (await fetch('/v1/session')).json());
        expect(me).toMatchObject({ kind: 'account', actor: `account:${VIEWER.name}`, role: 'read' });
      } finally {
        sessions.now = realNow;
      }
    });

    it('ran without a page error or a CSP violation', () => {
      expect(problems).toEqual({ errors: [], cspViolations: [] });
    });
  });
});
