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

/**
 * Signs in with an account's name and password, the console's first way: opens `path`, fills
 * the form and waits for the console's navigation.
 */
export async function signInWithPassword(
  page: Page,
  baseUrl: string,
  name: string,
  password: string,
  path = '/fleet',
): Promise<void> {
  await page.goto(`${baseUrl}${path}`);
  await page.getByLabel('Name').fill(name);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Console' }).waitFor();
}
