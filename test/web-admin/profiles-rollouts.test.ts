/**
 * The Profiles and Rollouts pages against a real controller and the demo's 12 simulated
 * routers, in Debian's Chromium, as an operator uses them: write a spec with an error and
 * see it at its line, fix it and save, save a second revision and diff the two, preview the
 * plan on the MT7621 routers and read the offload downgrade, start a rollout with a canary
 * from a Fleet-style link and watch it complete live, and lose the session mid-edit without
 * losing the text.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousAccessibilityViolations } from './support/axe.js';
import { launchChromium, openPage, type PageProblems } from './support/browser.js';
import { startConsoleController, type ConsoleController } from './support/console-controller.js';
import { screenshotThemes } from './support/screenshots.js';
import { signInWithToken } from './support/sign-in.js';

const PROFILE = 'mt7621-hw';
/** Short, so a test sees the console live through the controller ending a stream. */
const STREAM_MAX_SECONDS = 3;
/** Line 4 holds a TTL the schema refuses. */
const WITH_ERROR = `{
  "l3Rewrite": {
    "ttl": {
      "value": 300
    }
  },
  "flowOffload": { "mode": "hardware" }
}`;
const FIXED = WITH_ERROR.replace('300', '64');

describe('the Profiles and Rollouts pages (real controller, 12 simulated routers)', () => {
  let ctl: ConsoleController;
  let browser: Browser;
  let page: Page;
  let problems: PageProblems;

  beforeAll(async () => {
    [ctl, browser] = await Promise.all([
      startConsoleController({ config: { http: { streamMaxSeconds: STREAM_MAX_SECONDS } } }),
      launchChromium(),
    ]);
    ({ page, problems } = await openPage(browser));
  });

  afterAll(async () => {
    await browser?.close();
    await ctl?.close();
  });

  const editor = () => page.getByLabel('Spec (JSON)');
  const problemList = () => page.getByRole('list', { name: 'Problems in the spec' });
  const api = async (path: string) => {
    const res = await fetch(`${ctl.url}${path}`, { headers: { authorization: `Bearer ${ctl.token}` } });
    expect(res.status, path).toBe(200);
    return (await res.json()) as Record<string, unknown>;
  };

  it('shows a spec error at its line as it is typed, and saves once it is fixed', async () => {
    await signInWithToken(page, ctl.url, ctl.token, '/profiles');
    await page.getByRole('heading', { name: 'Profiles', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'New profile' }).click();
    await page.getByLabel('Profile name').fill(PROFILE);

    // A syntax error first: its line and column.
    await editor().fill('{\n  "l3Rewrite": {}\n  "flowOffload": {}\n}');
    await problemList()
      .getByText(/expected "," between two values, found """/)
      .waitFor();
    expect(await problemList().innerText()).toMatch(/^line 3: line 3, column 3:/);
    expect(await page.locator('.wf-editor__line--error').allInnerTexts()).toEqual(['3']);

    // Then a value the published schema refuses: shown at the line of that value.
    await editor().fill(WITH_ERROR);
    await problemList().getByText('/l3Rewrite/ttl/value must be at most 255').waitFor();
    expect(await problemList().innerText()).toBe('line 4: /l3Rewrite/ttl/value must be at most 255');
    expect(await page.locator('.wf-editor__line--error').allInnerTexts()).toEqual(['4']);
    expect(await page.getByRole('button', { name: 'Create profile' }).isDisabled()).toBe(true);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshotThemes(page, 'profiles-editor-error');

    // "line 4" moves the caret to that line.
    await problemList().getByRole('button', { name: 'line 4' }).click();
    const selected = await editor().evaluate((el: HTMLTextAreaElement) =>
      el.value.slice(el.selectionStart, el.selectionEnd),
    );
    expect(selected).toBe('      "value": 300');

    await editor().fill(FIXED);
    await page.getByText('The spec is valid.').waitFor();
    await page.getByRole('button', { name: 'Create profile' }).click();
    await page.getByRole('heading', { name: `Edit ${PROFILE}` }).waitFor();
    expect(new URL(page.url()).searchParams.get('profile')).toBe(PROFILE);
    const stored = await api(`/v1/profiles/${PROFILE}`);
    expect(stored.revision).toBe(1);
    expect((stored.spec as { l3Rewrite: { ttl: { value: number } } }).l3Rewrite.ttl.value).toBe(64);
    // The list shows it, and the editor now holds the stored (defaulted) spec.
    await page.getByRole('navigation', { name: 'Profiles' }).getByRole('link', { name: PROFILE }).waitFor();
    expect(await editor().inputValue()).toContain('"conflictPolicy": "prefer-rewrite"');
  });

  it('saves a second revision and diffs any two side by side', async () => {
    const text = await editor().inputValue();
    await editor().fill(text.replace('"value": 64', '"value": 128'));
    await page.getByRole('button', { name: 'Save revision' }).click();
    await page.getByText(`Saved revision 2 of ${PROFILE}.`).waitFor();
    expect((await api(`/v1/profiles/${PROFILE}`)).revision).toBe(2);

    await page.getByLabel('From', { exact: true }).selectOption('1');
    await page.getByLabel('To', { exact: true }).selectOption('2');
    const diff = page.getByRole('table', { name: 'Diff of revision 1 and revision 2' });
    await diff.waitFor();
    await page.getByText('1 line removed, 1 added from revision 1 to 2.').waitFor();
    const changed = diff.locator('tr[data-kind="changed"]');
    expect(await changed.count()).toBe(1);
    const [, left, , right] = await changed.locator('td').allInnerTexts();
    expect(left).toContain('"value": 64');
    expect(right).toContain('"value": 128');
    expect(await diff.locator('tr[data-kind="same"]').count()).toBeGreaterThan(10);
    // The same revision on both sides: nothing differs.
    await page.getByLabel('From', { exact: true }).selectOption('2');
    await page.getByText('The same revision on both sides.').waitFor();
    expect(await diff.locator('tr[data-kind="changed"], tr[data-kind="added"], tr[data-kind="removed"]').count()).toBe(
      0,
    );
    await page.getByLabel('From', { exact: true }).selectOption('1');
  });

  it('previews the plan on the MT7621 routers, each expandable to its reasons', async () => {
    await page.getByLabel('Revision to preview').selectOption('2');
    await page.getByLabel('SoC').fill('MT7621');
    await page.getByRole('button', { name: 'Preview plan' }).click();
    await page.getByText(/^4 routers matched/).waitFor();
    const table = page.getByRole('table', { name: 'Plan preview per router' });
    const rows = table.locator('tbody tr');
    expect(await rows.count()).toBe(4);
    const first = (await rows.first().locator('td').allInnerTexts()).map((t) => t.trim());
    expect(first.slice(1, 4)).toEqual(['yes', 'ebpf', 'software (asked hardware)']);
    await rows.first().getByRole('button').click();
    const reasons = table.locator('.wf-reasons');
    await reasons.waitFor();
    const text = await reasons.innerText();
    expect(text).toContain('offload-downgraded');
    expect(text).toContain('prefer-rewrite downgrades to software offload');
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshotThemes(page, 'profiles-plan-preview');
  });

  it('starts a rollout with a canary from a Fleet link and watches it complete live', async () => {
    const selector = encodeURIComponent(JSON.stringify({ soc: ['MT7621'] }));
    // Opened as a shared link is: a fresh load, signed in at that URL.
    await signInWithToken(page, ctl.url, ctl.token, `/rollouts?new=1&selector=${selector}`);
    await page.getByRole('heading', { name: 'New rollout' }).waitFor();
    expect(await page.getByLabel('SoC').inputValue()).toBe('MT7621');
    await page.getByText('Choose a profile to count the matching routers.').waitFor();
    await page.getByLabel('Profile', { exact: true }).selectOption(PROFILE);
    await page.getByText('4 routers match (SoC MT7621)').waitFor();
    // The count follows the selector as it is typed.
    await page.getByLabel('SoC').fill('MT7621, MT7986');
    await page.getByText('8 routers match (SoC MT7621 or MT7986)').waitFor();
    await page.getByLabel('SoC').fill('MT7621');
    await page.getByText('4 routers match (SoC MT7621)').waitFor();
    expect(await page.getByLabel('Revision').inputValue()).toBe('2');
    await page.getByLabel('Canary size').fill('1');
    await page.getByLabel('Batch size').fill('2');
    await page.getByText('4 routers in 3 batches, the first a canary of 1.').waitFor();
    // A bad field says so, and nothing is sent.
    await page.getByLabel('Failure threshold (%)').fill('150');
    await page.getByRole('button', { name: 'Start rollout' }).click();
    await page.getByText('failure threshold: a percentage from 0 to 100').waitFor();
    expect(((await api('/v1/rollouts')).items as unknown[]).length).toBe(0);
    await page.getByLabel('Failure threshold (%)').fill('0');
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshotThemes(page, 'rollouts-wizard');

    // A start a few seconds ahead: the simulated routers apply within a second, and the page
    // is to be seen going scheduled -> running -> completed by itself.
    const startAt = await page.evaluate(() => {
      const d = new Date(Date.now() + 6_000);
      const pad = (n: number) => String(n).padStart(2, '0');
      const local = `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
      return { local, iso: new Date(local).toISOString() };
    });
    await page.getByLabel('Start time').fill(startAt.local);
    await page.evaluate(() => ((window as unknown as { sameDocument: boolean }).sameDocument = true));
    await page.getByRole('button', { name: 'Start rollout' }).click();
    await page.waitForURL(/\/rollouts\/[^/?]+$/);
    const id = decodeURIComponent(new URL(page.url()).pathname.split('/').pop()!);
    const state = page.getByTestId('rollout-state');
    const seen: string[] = [];
    const deadline = Date.now() + 120_000;
    for (;;) {
      const now = (await state.innerText().catch(() => '')).trim();
      if (now && seen[seen.length - 1] !== now) seen.push(now);
      if (now === 'completed' || Date.now() > deadline) break;
      await page.waitForTimeout(100);
    }
    expect(seen[seen.length - 1]).toBe('completed');
    expect(seen[0]).toBe('scheduled');
    // Followed over the event stream: the page was never reloaded.
    expect(await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument)).toBe(true);
    const counts = await page.getByRole('list', { name: 'Routers by state' }).innerText();
    expect(counts).toMatch(/4\s*\/4 finished/);
    expect(counts).toMatch(/4\s*applied/);
    const batches = page.getByRole('table', { name: 'Batches' }).locator('tbody tr');
    expect(await batches.count()).toBe(3);
    await expect
      .poll(async () => (await batches.allInnerTexts()).map((t) => t.split('\t').slice(0, 3).join(' ')), {
        timeout: 5_000,
      })
      .toEqual(['canary done 1', 'batch 1 done 2', 'batch 2 done 1']);
    const routers = page.getByRole('table', { name: 'Routers of the rollout' }).locator('tbody tr');
    await expect.poll(() => routers.count(), { timeout: 5_000 }).toBe(4);
    for (const row of await routers.allInnerTexts()) expect(row).toContain('applied');
    // Finished: no more actions.
    expect(await page.getByRole('button', { name: 'Cancel rollout' }).count()).toBe(0);
    const stored = await api(`/v1/rollouts/${id}`);
    expect(stored).toMatchObject({ state: 'completed', total: 4, createdBy: 'token:tester' });
    expect(stored.strategy).toMatchObject({ canary: 1, batchSize: 2, maxFailureRatio: 0 });
    expect(stored.startAt).toBe(startAt.iso);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshotThemes(page, 'rollout-progress');

    await page.getByRole('link', { name: 'All rollouts' }).click();
    const list = page.getByRole('table', { name: 'Rollouts' });
    await list.waitFor();
    expect(await list.locator('tbody tr').first().innerText()).toContain(`${PROFILE}@2`);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshotThemes(page, 'rollouts-list');
  }, 180_000);

  it('hides pause, resume and abort from a read-only caller; a writer follows it across reconnects, aborts', async () => {
    const write = await fetch(`${ctl.url}/v1/rollouts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ctl.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        profile: PROFILE,
        selector: { soc: ['QCA9558'] },
        startAt: new Date(Date.now() + 3_600_000).toISOString(),
      }),
    });
    expect(write.status).toBe(201);
    const scheduled = (await write.json()) as { id: string; state: string };
    expect(scheduled.state).toBe('scheduled');
    const reader = await ctl.controller.tokens.create({
      name: 'reader',
      owner: 'rita',
      scopes: ['read'],
      createdBy: 'test',
    });
    const { context, page: readerPage } = await openPage(browser);
    try {
      await signInWithToken(readerPage, ctl.url, reader.secret, `/rollouts/${scheduled.id}`);
      await readerPage.getByTestId('rollout-state').getByText('scheduled').waitFor();
      expect(await readerPage.getByRole('button', { name: /^(Pause|Resume|Cancel rollout)$/ }).count()).toBe(0);
      await signInWithToken(readerPage, ctl.url, reader.secret, '/rollouts?new=1');
      await readerPage.getByRole('table', { name: 'Rollouts' }).waitFor();
      expect(await readerPage.getByRole('heading', { name: 'New rollout' }).count()).toBe(0);
      // Profiles too: the spec can be read, not edited.
      await signInWithToken(readerPage, ctl.url, reader.secret, `/profiles?profile=${PROFILE}`);
      await readerPage.getByRole('heading', { name: `Edit ${PROFILE}` }).waitFor();
      expect(await readerPage.getByLabel('Spec (JSON)').getAttribute('readonly')).not.toBeNull();
      expect(await readerPage.getByRole('button', { name: /^(Save revision|New profile)$/ }).count()).toBe(0);
      // And the controller refuses what the console hides.
      const forged = await fetch(`${ctl.url}/v1/rollouts/${scheduled.id}/cancel`, {
        method: 'POST',
        headers: { authorization: `Bearer ${reader.secret}` },
      });
      expect(forged.status).toBe(403);
    } finally {
      await context.close();
    }
    // A writer sees them, and abort asks first.
    await signInWithToken(page, ctl.url, ctl.token, `/rollouts/${scheduled.id}`);
    await page.getByTestId('rollout-state').getByText('scheduled').waitFor();
    // The controller ends every event stream after STREAM_MAX_SECONDS: the page says it lost
    // the connection, reconnects, and is live again.
    const badge = page.getByRole('status').filter({ hasText: /^(Live|Connecting…|Connection lost .*)$/ });
    const said: string[] = [];
    const until = Date.now() + (STREAM_MAX_SECONDS + 6) * 1000;
    while (Date.now() < until) {
      const text = (await badge.innerText().catch(() => '')).trim();
      if (text && said[said.length - 1] !== text) said.push(text);
      if (said.some((t) => t.startsWith('Connection lost')) && text === 'Live') break;
      await page.waitForTimeout(50);
    }
    expect(said.find((t) => t.startsWith('Connection lost'))).toMatch(/; reconnecting, attempt 1…$/);
    expect(said[said.length - 1]).toBe('Live');
    // Still followed after the reconnect: a pause made elsewhere shows up by itself.
    const paused = await fetch(`${ctl.url}/v1/rollouts/${scheduled.id}/pause`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ctl.token}` },
    });
    expect(paused.status).toBe(200);
    await page.getByTestId('rollout-state').getByText('paused').waitFor();
    await page.getByText('Paused: paused by token:tester').waitFor();
    expect(await page.getByRole('button', { name: 'Resume' }).count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Pause' }).count()).toBe(0);
    // Cancelling asks first, in the page's own dialog (never the browser's): kept, nothing happens.
    const nativeDialogs: string[] = [];
    const onNative = (d: { message(): string; dismiss(): Promise<void> }) => {
      nativeDialogs.push(d.message());
      void d.dismiss();
    };
    page.on('dialog', onNative);
    const abort = page.getByRole('button', { name: 'Cancel rollout', exact: true });
    const dialog = page.getByRole('dialog', { name: /^Cancel rollout / });
    await abort.click();
    await dialog.waitFor();
    expect(await dialog.innerText()).toMatch(/go back to the revision and\s+assignment they had before/);
    await screenshotThemes(page, 'rollout-cancel-dialog');
    await dialog.getByRole('button', { name: 'Keep it' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect((await api(`/v1/rollouts/${scheduled.id}`)).state).toBe('paused');
    await abort.click();
    await dialog.getByRole('button', { name: 'Cancel rollout' }).click();
    await page.getByTestId('rollout-state').getByText('cancelled').waitFor();
    // Cancelled is not paused: the banner goes with the pause.
    await expect.poll(() => page.getByText(/^Paused:/).count(), { timeout: 5_000 }).toBe(0);
    expect(nativeDialogs).toEqual([]);
    page.off('dialog', onNative);
    // The routers follow: never sent, each is skipped with the cancel as its reason.
    const rows = page.getByRole('table', { name: 'Routers of the rollout' }).locator('tbody tr');
    await expect
      .poll(async () => (await rows.allInnerTexts()).filter((r) => /skipped\s+rollout cancelled/.test(r)).length, {
        timeout: 5_000,
      })
      .toBe(4);
    await screenshotThemes(page, 'rollout-cancelled');
  });

  it("keeps the editor's text when the session ends mid-edit, and saves it after signing in again", async () => {
    const { secret, record } = await ctl.controller.tokens.create({
      name: 'editing',
      owner: 'erin',
      scopes: ['write'],
      createdBy: 'test',
    });
    await signInWithToken(page, ctl.url, secret, `/profiles?profile=${PROFILE}`);
    await page.getByRole('heading', { name: `Edit ${PROFILE}` }).waitFor();
    const edited = (await editor().inputValue()).replace('"value": 128', '"value": 100');
    await editor().fill(edited);
    await ctl.controller.tokens.revoke(record.id, { actor: 'test' });
    await page.getByRole('button', { name: 'Save revision' }).click();
    const dialog = page.getByRole('dialog', { name: 'Your session has ended' });
    await dialog.waitFor();
    expect(await editor().inputValue()).toBe(edited);
    expect((await api(`/v1/profiles/${PROFILE}`)).revision).toBe(2);
    await dialog.getByRole('button', { name: 'Use an API token' }).click();
    await dialog.getByLabel('API token').fill(ctl.token);
    await dialog.getByRole('button', { name: 'Sign in' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(await editor().inputValue()).toBe(edited);
    await page.getByRole('button', { name: 'Save revision' }).click();
    await page.getByText(`Saved revision 3 of ${PROFILE}.`).waitFor();
    const stored = await api(`/v1/profiles/${PROFILE}`);
    expect(stored.revision).toBe(3);
    expect(stored.createdBy).toBe('token:tester');
  });

  it('ran without a page error or a CSP violation', () => {
    expect(problems).toEqual({ errors: [], cspViolations: [] });
  });
});
