import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';

/** Where every run writes the console's screenshots (gitignored). */
export const SCREENSHOT_DIR = path.resolve(import.meta.dirname, '../../../test-results/web-admin');

/**
 * Writes the page as it looks now in the light and the dark theme, as
 * test-results/web-admin/<name>-light.png and <name>-dark.png, and returns the paths. The
 * theme follows the system, so each is the same page under an emulated colour scheme.
 */
export async function screenshotThemes(page: Page, name: string): Promise<string[]> {
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  const written: string[] = [];
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    // Two frames: the media change restyles, then paints.
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    const file = path.join(SCREENSHOT_DIR, `${name}-${colorScheme}.png`);
    await page.screenshot({ path: file, fullPage: true, animations: 'disabled' });
    written.push(file);
  }
  await page.emulateMedia({ colorScheme: 'light' });
  return written;
}
