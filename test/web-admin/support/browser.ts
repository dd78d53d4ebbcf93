import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

/** Debian's chromium (test/system-deps.sh installs it); never a downloaded browser. */
export const CHROMIUM = process.env.WRTFLEET_CHROMIUM ?? '/usr/bin/chromium';

/** The desktop size the console is designed for, and a phone's width. */
export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };

/**
 * Launches Chromium headless, as root needs it (no sandbox), with nothing that reaches the
 * network on its own. Playwright gives every launch a fresh temporary profile
 * (--user-data-dir) and removes it on close. A missing browser fails the test file loudly.
 */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `${CHROMIUM} is missing: the console's browser tests need Debian's chromium (bash test/system-deps.sh)`,
    );
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
    timeout: 60_000,
  });
}

/** What a page did that a test must see: errors thrown in it, and anything the CSP refused. */
export interface PageProblems {
  errors: string[];
  cspViolations: string[];
}

/**
 * A fresh context (its own cookies) at desktop size, and a page that records uncaught errors
 * and Content-Security-Policy violations, so a test can assert there were none.
 */
export async function openPage(
  browser: Browser,
  options: { viewport?: { width: number; height: number } } = {},
): Promise<{ context: BrowserContext; page: Page; problems: PageProblems }> {
  const context = await browser.newContext({ viewport: options.viewport ?? DESKTOP, colorScheme: 'light' });
  const page = await context.newPage();
  const problems: PageProblems = { errors: [], cspViolations: [] };
  page.on('pageerror', (error) => problems.errors.push(error.message));
  page.on('console', (message) => {
    const text = message.text();
    if (/Content Security Policy|Refused to (load|execute|apply|connect)/i.test(text))
      problems.cspViolations.push(text);
  });
  page.setDefaultTimeout(15_000);
  return { context, page, problems };
}
