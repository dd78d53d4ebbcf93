/**
 * The console's shell against a real controller and the demo's simulated fleet, in Debian's
 * Chromium: how the controller serves it (CSP, caching, the SPA fallback beside the API), and
 * what an operator sees (sign-in, navigation by URL, errors in words, the session ending).
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DESKTOP, launchChromium, openPage, PHONE, type PageProblems } from './support/browser.js';
import { seriousAccessibilityViolations } from './support/axe.js';
import { DEMO_ROUTERS, startConsoleController, type ConsoleController } from './support/console-controller.js';
import { screenshotThemes } from './support/screenshots.js';
import { signInWithToken } from './support/sign-in.js';

const html = { accept: 'text/html,application/xhtml+xml' };

describe('the console shell, served by a real controller (simulated fleet)', () => {
  let ctl: ConsoleController;
  let browser: Browser;

  beforeAll(async () => {
    [ctl, browser] = await Promise.all([startConsoleController(), launchChromium()]);
  });

  afterAll(async () => {
    await browser?.close();
    await ctl?.close();
  });

  describe('over HTTP', () => {
    it('serves index.html at / with a strict CSP, no inline script, revalidated', async () => {
      const res = await fetch(`${ctl.url}/`, { headers: html });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.headers.get('cache-control')).toBe('no-cache');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("object-src 'none'");
      expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|https?:/);
      const body = await res.text();
      const scripts = [...body.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/g)];
      expect(scripts.length).toBeGreaterThan(0);
      for (const [tag, content] of scripts) {
        expect(tag).toMatch(/\ssrc="\/assets\/[^"]+-[A-Za-z0-9_-]{8}\.js"/);
        expect(content!.trim()).toBe('');
      }
    });

    it('serves hashed assets for a year, compressed', async () => {
      const index = await (await fetch(`${ctl.url}/`, { headers: html })).text();
      const asset = /src="(\/assets\/[^"]+\.js)"/.exec(index)![1]!;
      const res = await fetch(`${ctl.url}${asset}`, { headers: { 'accept-encoding': 'br, gzip' } });
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(res.headers.get('content-type')).toMatch(/javascript/);
      expect(res.headers.get('content-encoding')).toBe('br');
      expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(1000);
      const missing = await fetch(`${ctl.url}/assets/none-00000000.js`);
      expect(missing.status).toBe(404);
    });

    it('falls back to index.html for client routes, and leaves the API as it was', async () => {
      const logged = ctl.logs.length;
      for (const path of ['/fleet', '/routers/some-id', '/rollouts/r1', '/access?x=1']) {
        const res = await fetch(`${ctl.url}${path}`, { headers: html });
        expect(res.status, path).toBe(200);
        expect(await res.text(), path).toContain('<div id="root"></div>');
      }
      const favicon = await fetch(`${ctl.url}/favicon.svg`);
      expect(favicon.status).toBe(200);
      expect(favicon.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
      await favicon.arrayBuffer();
      // A page is answered once: no 404 sent on top of it (fastify would log "Reply was already sent").
      expect(ctl.logs.slice(logged).join('\n')).not.toMatch(/already sent|"level":[45]0/);
      // An unknown API path is still the API's: 401 without a token, 404 with one, JSON either way.
      const anonymous = await fetch(`${ctl.url}/v1/nothing-here`, { headers: html });
      expect(anonymous.status).toBe(401);
      expect(((await anonymous.json()) as { error: string }).error).toBe('unauthenticated');
      const authed = await fetch(`${ctl.url}/v1/nothing-here`, {
        headers: { ...html, authorization: `Bearer ${ctl.token}` },
      });
      expect(authed.status).toBe(404);
      expect(authed.headers.get('cache-control')).toBe('no-store');
      // A page asked for as data is not a page.
      expect((await fetch(`${ctl.url}/fleet`, { headers: { accept: 'application/json' } })).status).toBe(404);
      expect((await fetch(`${ctl.url}/.vite/manifest.json`)).status).toBe(404);
      expect(await (await fetch(`${ctl.url}/healthz`)).json()).toMatchObject({ ok: true, status: 'ok' });
    });

    it('keeps Swagger UI and the OpenAPI document at /docs', async () => {
      const ui = await fetch(`${ctl.url}/docs/`, { headers: html });
      expect(ui.status).toBe(200);
      expect(await ui.text()).toMatch(/swagger/i);
      const doc = (await (await fetch(`${ctl.url}/docs/json`)).json()) as { paths: Record<string, unknown> };
      expect(Object.keys(doc.paths)).toContain('/v1/session');
      expect(Object.keys(doc.paths).some((p) => p === '/' || p.startsWith('/assets'))).toBe(false);
    });
  });

  describe('in Chromium', () => {
    let page: Page;
    let problems: PageProblems;

    beforeAll(async () => {
      ({ page, problems } = await openPage(browser));
    });

    it('opens at / on the sign-in form, refuses a wrong token with its message, then signs in', async () => {
      await page.goto(`${ctl.url}/`);
      await page.getByRole('heading', { name: 'Sign in to wrtfleet' }).waitFor();
      expect(new URL(page.url()).pathname).toBe('/fleet');
      await expect.poll(() => seriousAccessibilityViolations(page)).toEqual([]);
      await screenshotThemes(page, 'sign-in');

      await page.getByRole('button', { name: 'Use an API token' }).click();
      await page.getByLabel('API token').fill('wft_this-is-not-a-token');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('alert').getByText('the API token is unknown, revoked or expired').waitFor();

      await signInWithToken(page, ctl.url, ctl.token);
      await page.getByRole('heading', { name: 'Fleet', level: 1 }).waitFor();
      await page.getByRole('row').nth(DEMO_ROUTERS).waitFor();
      const rows = await page.getByRole('row').allInnerTexts();
      expect(rows).toHaveLength(DEMO_ROUTERS + 1);
      const text = rows.join('\n');
      for (const soc of ['MT7621', 'QCA9558', 'MT7986']) expect(text).toContain(soc);
      expect(await page.title()).toBe('Fleet · wrtfleet');
    });

    it('gives every page its own URL, reachable from the navigation and by history', async () => {
      const pages: [string, string, string][] = [
        ['Profiles', '/profiles', 'profiles'],
        ['Rollouts', '/rollouts', 'rollouts'],
        ['Audit', '/audit', 'audit'],
        ['Onboarding', '/onboarding', 'onboarding'],
        ['Access', '/access', 'access'],
        ['Fleet', '/fleet', 'fleet'],
      ];
      for (const [label, path, name] of pages) {
        await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: label }).click();
        await page.getByRole('heading', { name: label, level: 1 }).waitFor();
        expect(new URL(page.url()).pathname).toBe(path);
        const current = page.getByRole('navigation', { name: 'Console' }).locator('[aria-current="page"]');
        expect(await current.innerText()).toBe(label);
        expect(await seriousAccessibilityViolations(page), name).toEqual([]);
        await screenshotThemes(page, name);
      }
      await page.goBack();
      await page.getByRole('heading', { name: 'Access', level: 1 }).waitFor();
      expect(new URL(page.url()).pathname).toBe('/access');
      await page.goForward();
      await page.getByRole('heading', { name: 'Fleet', level: 1 }).waitFor();
    });

    it('opens a router from the fleet, and a URL typed in directly after a reload', async () => {
      const first = page.getByRole('table').getByRole('link').first();
      const name = await first.innerText();
      await first.click();
      await page.getByRole('heading', { name, level: 1 }).waitFor();
      expect(new URL(page.url()).pathname).toMatch(/^\/routers\/[0-9a-f-]{36}$/);
      const current = page.getByRole('navigation', { name: 'Console' }).locator('[aria-current="page"]');
      expect(await current.innerText()).toBe('Fleet');
      expect(await seriousAccessibilityViolations(page)).toEqual([]);
      await screenshotThemes(page, 'router');
      await page.goto(`${ctl.url}/rollouts/some-rollout`);
      // A reload forgets the pasted token (it is held in memory only): sign in again.
      await page.getByRole('heading', { name: 'Sign in to wrtfleet' }).waitFor();
      await signInWithToken(page, ctl.url, ctl.token, '/rollouts/some-rollout');
      await page.getByRole('heading', { name: 'Rollout some-rollout', level: 1 }).waitFor();
      await screenshotThemes(page, 'rollout');
    });

    it("shows the API's error in words, never a blank page", async () => {
      await page.goto(`${ctl.url}/routers/no-such-router`);
      await signInWithToken(page, ctl.url, ctl.token, '/routers/no-such-router');
      const alert = page.getByRole('alert');
      await alert.waitFor();
      expect(await alert.innerText()).toMatch(
        /no router with id no-such-router[\s\S]*HTTP 404 · not_found[\s\S]*request /,
      );
      await page.goto(`${ctl.url}/nowhere`);
      await signInWithToken(page, ctl.url, ctl.token, '/nowhere');
      await page.getByRole('heading', { name: 'Not found', level: 1 }).waitFor();
    });

    it('is usable at phone width', async () => {
      const phone = await openPage(browser, { viewport: PHONE });
      try {
        await signInWithToken(phone.page, ctl.url, ctl.token);
        await phone.page.getByRole('row').nth(DEMO_ROUTERS).waitFor();
        const nav = await phone.page.getByRole('navigation', { name: 'Console' }).boundingBox();
        expect(nav!.width).toBeLessThanOrEqual(PHONE.width);
        // The page itself does not scroll sideways; only the table's own frame does.
        const overflow = await phone.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        expect(overflow).toBeLessThanOrEqual(0);
        await screenshotThemes(phone.page, 'fleet-phone');
        expect(phone.problems).toEqual({ errors: [], cspViolations: [] });
      } finally {
        await phone.context.close();
      }
    });

    it('asks to sign in again when the session ends, keeping the page underneath', async () => {
      await page.setViewportSize(DESKTOP);
      const { secret, record } = await ctl.controller.tokens.create({
        name: 'short-lived',
        owner: 'mallory',
        scopes: ['read'],
        createdBy: 'test',
      });
      await signInWithToken(page, ctl.url, secret, '/fleet');
      await page.getByText('mallory').waitFor();
      // The fleet's live stream opens after the table: once it runs, the page calls nothing more.
      await page
        .getByRole('status')
        .filter({ hasText: /^Live$/ })
        .waitFor();
      await ctl.controller.tokens.revoke(record.id, { actor: 'test' });
      // The Profiles page loads its list: the first call after the revocation, a 401.
      await page.getByRole('link', { name: 'Profiles', exact: true }).click();
      const dialog = page.getByRole('dialog', { name: 'Your session has ended' });
      await dialog.waitFor();
      expect(await page.getByRole('heading', { name: 'Profiles', level: 1 }).count()).toBe(1);
      await dialog.getByRole('button', { name: 'Use an API token' }).click();
      await dialog.getByLabel('API token').fill(ctl.token);
      await dialog.getByRole('button', { name: 'Sign in' }).click();
      await dialog.waitFor({ state: 'detached' });
      await page.getByText('tester').waitFor();
      // The list refused while nobody was signed in is loaded again: no error left on the page.
      await page.getByRole('alert').waitFor({ state: 'detached' });
      expect(await page.getByRole('button', { name: 'New profile' }).count()).toBe(1);
    });

    it('ran without a page error or a CSP violation', () => {
      expect(problems).toEqual({ errors: [], cspViolations: [] });
    });
  });
});
