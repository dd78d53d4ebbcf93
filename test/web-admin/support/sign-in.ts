import type { Page } from 'playwright-core';

/**
 * Signs in on the console's sign-in form as an operator would: opens `path`, chooses
 * "Use an API token", pastes it, and waits for the console's navigation.
 */
export async function signInWithToken(page: Page, baseUrl: string, token: string, path = '/fleet'): Promise<void> {
  await page.goto(`${baseUrl}${path}`);
  await page.getByRole('button', { name: 'Use an API token' }).click();
  await page.getByLabel('API token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Console' }).waitFor();
}
